import type { LookupOption } from '@/resources/lookups';

export interface TreeIndex {
  /** Every key in tree order (parents before children). */
  order: readonly string[];
  parent: ReadonlyMap<string, string>;
  children: ReadonlyMap<string, readonly string[]>;
}

export function indexTree(options: readonly LookupOption[]): TreeIndex {
  const order: string[] = [];
  const parent = new Map<string, string>();
  const children = new Map<string, string[]>();
  const walk = (nodes: readonly LookupOption[], parentKey: string | undefined) => {
    for (const node of nodes) {
      order.push(node.value);
      if (parentKey !== undefined) parent.set(node.value, parentKey);
      children.set(
        node.value,
        (node.children ?? []).map((child) => child.value),
      );
      walk(node.children ?? [], node.value);
    }
  };
  walk(options, undefined);
  return { order, parent, children };
}

function descendantsOf(key: string, index: TreeIndex): string[] {
  return (index.children.get(key) ?? []).flatMap((child) => [child, ...descendantsOf(child, index)]);
}

function ancestorsOf(key: string, index: TreeIndex): string[] {
  const chain: string[] = [];
  for (let up = index.parent.get(key); up !== undefined; up = index.parent.get(up)) chain.push(up);
  return chain;
}

/**
 * The selection after the user checks or unchecks `key`. Checking takes the whole branch below and
 * every ancestor, because the server serves a node only when all its ancestors are granted; unchecking
 * drops the branch and leaves the ancestors (a page may be granted without its buttons). The result is
 * closed under "parent of" and listed in tree order; ids the tree does not know are kept at the end.
 */
export function toggleChecked(selected: readonly string[], key: string, checked: boolean, index: TreeIndex): string[] {
  const next = new Set(selected);
  const branch = [key, ...descendantsOf(key, index)];
  if (checked) for (const node of branch) next.add(node);
  else for (const node of branch) next.delete(node);
  for (const node of [...next]) for (const up of ancestorsOf(node, index)) next.add(up);
  const known = index.order.filter((node) => next.has(node));
  const unknown = [...next].filter((node) => !index.parent.has(node) && !index.children.has(node));
  return [...known, ...unknown];
}

/**
 * How the tree shows a selection: a node is checked when it and its whole branch are selected, and
 * half-checked when it is selected (or leads to a selected node) but part of its branch is not.
 */
export function checkState(
  selected: readonly string[],
  index: TreeIndex,
): { checked: string[]; halfChecked: string[] } {
  const set = new Set(selected);
  const checked: string[] = [];
  const halfChecked: string[] = [];
  for (const key of index.order) {
    const branch = descendantsOf(key, index);
    if (set.has(key) && branch.every((node) => set.has(node))) checked.push(key);
    else if (set.has(key) || branch.some((node) => set.has(node))) halfChecked.push(key);
  }
  return { checked, halfChecked };
}
