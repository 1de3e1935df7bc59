import {
  type GridNode,
  gridApi,
  groupApi,
  MAX_PAGE_SIZE,
  type MeterPick,
  meterApi,
  meterTypeApi,
  type OrgNode,
  orgApi,
  type PocOption,
  pocApi,
  type ResourceNode,
  resourceApi,
  roleApi,
  supplierApi,
  userApi,
} from '@meterdesk/contracts';
import { callApi } from '@/api/api-client';
import { nodeName } from '@/app/permissions/permission-index';
import type { Language } from '@/i18n/i18n';

export interface LookupOption {
  value: string;
  title: string;
  children?: LookupOption[];
}

/** What a searched lookup is asked: the text typed, and the values the field already holds. */
export interface LookupSearch {
  keyword: string;
  values: readonly string[];
}

/** A named option source that `lookup` in a field's meta refers to. */
export interface Lookup {
  load(signal: AbortSignal, search: LookupSearch): Promise<unknown>;
  options(data: unknown, language: Language): LookupOption[];
  /**
   * Too many records to load at once (meters): the picker asks again as the user types, and for the
   * values the field holds, so their labels show.
   */
  searched?: boolean;
}

interface TreeNode<N> {
  children: readonly N[];
}

function treeOptions<N extends TreeNode<N>>(
  nodes: readonly N[],
  value: (node: N) => string,
  title: (node: N) => string,
): LookupOption[] {
  return nodes.map((node) => ({
    value: value(node),
    title: title(node),
    children: node.children.length ? treeOptions(node.children, value, title) : undefined,
  }));
}

/** Pickers list every record; the API's largest page holds them for the sizes these tables reach. */
const ALL = { curPage: 1, pageSize: MAX_PAGE_SIZE };

/** The meter form's modules or DCUs: only those within the caller's grid scope. */
const meterPicks = (kind: 'module' | 'dcu'): Lookup => ({
  load: (signal) => callApi(meterApi.lookup, { kind }, { signal }),
  options: (data) => (data as MeterPick[]).map((pick) => ({ value: pick.id, title: pick.no })),
});

/** A picker of the POC form and the replace page, searched on the server within the caller's scope. */
const pocOptions = (kind: 'meter' | 'consumer' | 'dcu'): Lookup => ({
  searched: true,
  load: (signal, { keyword, values }) => callApi(pocApi.options, { kind, keyword, ids: [...values] }, { signal }),
  options: (data) => (data as PocOption[]).map((option) => ({ value: option.id, title: option.label })),
});

export const LOOKUPS: Readonly<Record<string, Lookup>> = {
  resourceTree: {
    load: (signal) => callApi(resourceApi.getsysresourcetree, {}, { signal }),
    options: (data, language) =>
      treeOptions(
        data as ResourceNode[],
        (node) => node.id,
        (node) => nodeName(node, language),
      ),
  },
  orgTree: {
    load: (signal) => callApi(orgApi.treesysorg, {}, { signal }),
    options: (data) =>
      treeOptions(
        data as OrgNode[],
        (node) => node.id,
        (node) => node.orgName,
      ),
  },
  gridTree: {
    load: (signal) => callApi(gridApi.tree, {}, { signal }),
    options: (data) =>
      treeOptions(
        data as GridNode[],
        (node) => node.id,
        (node) => node.gridName,
      ),
  },
  roles: {
    load: (signal) => callApi(roleApi.getsysrolelist, ALL, { signal }),
    options: (data) =>
      (data as { list: { id: string; roleName: string }[] }).list.map((role) => ({
        value: role.id,
        title: role.roleName,
      })),
  },
  groups: {
    load: (signal) => callApi(groupApi.getsysgrouplist, ALL, { signal }),
    options: (data) =>
      (data as { list: { groupCode: string; groupName: string }[] }).list.map((group) => ({
        value: group.groupCode,
        title: group.groupName,
      })),
  },
  suppliers: {
    load: (signal) => callApi(supplierApi.list, ALL, { signal }),
    options: (data) =>
      (data as { list: { id: string; supplierCode: string; supplierName: string }[] }).list.map((supplier) => ({
        value: supplier.id,
        title: `${supplier.supplierName} (${supplier.supplierCode})`,
      })),
  },
  meterTypes: {
    load: (signal) => callApi(meterTypeApi.list, ALL, { signal }),
    options: (data) =>
      (data as { list: { id: string; modelName: string; supplierName: string }[] }).list.map((type) => ({
        value: type.id,
        title: `${type.modelName} · ${type.supplierName}`,
      })),
  },
  meterModules: meterPicks('module'),
  meterDcus: meterPicks('dcu'),
  pocMeters: pocOptions('meter'),
  pocConsumers: pocOptions('consumer'),
  pocDcus: pocOptions('dcu'),
  users: {
    load: (signal) => callApi(userApi.getsimplesysuserlist, {}, { signal }),
    options: (data) =>
      (data as { username: string; fullName: string }[]).map((user) => ({
        value: user.username,
        title: user.fullName ? `${user.fullName} (${user.username})` : user.username,
      })),
  },
};
