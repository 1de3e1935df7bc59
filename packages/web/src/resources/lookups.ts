import {
  type GridNode,
  groupApi,
  MAX_PAGE_SIZE,
  type OrgNode,
  orgApi,
  type ResourceNode,
  resourceApi,
  roleApi,
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

/** A named option source that `lookup` in a field's meta refers to. */
export interface Lookup {
  load(signal: AbortSignal): Promise<unknown>;
  options(data: unknown, language: Language): LookupOption[];
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
    load: (signal) => callApi(groupApi.gridtree, {}, { signal }),
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
  users: {
    load: (signal) => callApi(userApi.getsimplesysuserlist, {}, { signal }),
    options: (data) =>
      (data as { username: string; fullName: string }[]).map((user) => ({
        value: user.username,
        title: user.fullName ? `${user.fullName} (${user.username})` : user.username,
      })),
  },
};
