import { Spin, Tree, type TreeDataNode } from 'antd';
import { useMemo } from 'react';
import type { LookupOption } from '@/resources/lookups';
import { checkState, indexTree, toggleChecked } from './check-tree';
import type { FieldInputProps } from './field-input-props';
import { useLookup } from './use-lookup';

/** A checkable tree of ids whose value always holds the ancestors of what is checked (see toggleChecked). */
export function CheckTreeInput({ field, id, value, onChange }: FieldInputProps) {
  const { options, loading } = useLookup(field.lookup);
  const index = useMemo(() => indexTree(options), [options]);
  const selected = Array.isArray(value) ? (value as string[]) : [];
  const state = useMemo(() => checkState(selected, index), [selected, index]);
  const treeData = useMemo(() => {
    const toNodes = (nodes: readonly LookupOption[]): TreeDataNode[] =>
      nodes.map((node) => ({
        key: node.value,
        title: <span data-testid={`tree-node-${node.value}`}>{node.title}</span>,
        children: node.children ? toNodes(node.children) : undefined,
      }));
    return toNodes(options);
  }, [options]);

  return (
    <div
      id={id}
      data-testid={`field-${field.key}`}
      style={{ maxHeight: 420, overflow: 'auto', border: '1px solid #d9d9d9', borderRadius: 6, padding: 8 }}
    >
      {loading ? (
        <Spin />
      ) : (
        <Tree
          checkable
          checkStrictly
          selectable={false}
          treeData={treeData}
          defaultExpandedKeys={options.map((option) => option.value)}
          checkedKeys={state}
          onCheck={(_keys, info) => onChange?.(toggleChecked(selected, String(info.node.key), info.checked, index))}
        />
      )}
    </div>
  );
}
