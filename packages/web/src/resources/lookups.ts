import { type ResourceNode, ROOT_PARENT_ID, resourceApi } from '@meterdesk/contracts';
import type { TFunction } from 'i18next';
import { callApi } from '@/api/api-client';
import { nodeName } from '@/app/permissions/permission-index';
import type { Language } from '@/i18n/i18n';

export interface TreeOption {
  value: string;
  title: string;
  children?: TreeOption[];
}

/** A named option source that `lookup` in a field's meta refers to. */
export interface Lookup {
  load(signal: AbortSignal): Promise<unknown>;
  toTree(data: unknown, language: Language, t: TFunction): TreeOption[];
}

function resourceOptions(nodes: readonly ResourceNode[], language: Language): TreeOption[] {
  return nodes.map((node) => ({
    value: node.id,
    title: nodeName(node, language),
    children: node.children.length ? resourceOptions(node.children, language) : undefined,
  }));
}

export const LOOKUPS: Readonly<Record<string, Lookup>> = {
  /** Parent picker: the whole resource tree under a "top level" root. */
  resourceTree: {
    load: (signal) => callApi(resourceApi.getsysresourcetree, {}, { signal }),
    toTree: (data, language, t) => [
      {
        value: ROOT_PARENT_ID,
        title: t('crud.root'),
        children: resourceOptions(data as ResourceNode[], language),
      },
    ],
  },
};
