import {
  ARCHIVE_PICKERS,
  type ArchivePicker,
  COLLECT_ITEM_LABELS,
  COLLECTION_PROFILE_OBIS,
  EVENT_NAME_LABELS,
  type EventCodeOption,
  type GridNode,
  gridApi,
  groupApi,
  MAX_PAGE_SIZE,
  meterEventsApi,
  type OptionsAnswer,
  type OrgNode,
  obisApi,
  orgApi,
  paramTemplateApi,
  type ResourceNode,
  resourceApi,
  roleApi,
  templateApi,
  userApi,
} from '@meterdesk/contracts';
import { callApi } from '@/api/api-client';
import { nodeName } from '@/app/permissions/permission-index';
import { valueLabel } from '@/fields/field-value';
import { i18n, type Language } from '@/i18n/i18n';
import { type ObisItem, obisItems } from '@/resources/obis-items';

export interface LookupOption {
  value: string;
  title: string;
  children?: LookupOption[];
  /** The option as the server answered it, whose members a field's `fills` copies into the form. */
  record?: Readonly<Record<string, unknown>>;
}

/** What a searched lookup is asked: the text typed, the values the field already holds, the form's filters. */
export interface LookupSearch {
  keyword: string;
  values: readonly string[];
  /** The filters the field's `lookupWith` takes from the form. */
  context: Readonly<Record<string, string>>;
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
  /** Whether a searched answer left matches out, so the user narrows the keyword. */
  more?(data: unknown): boolean;
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

/** A picker of archive records, searched by its options call on the server within the caller's scope. */
const archivePicker = ({ operation, query }: ArchivePicker): Lookup => ({
  searched: true,
  load: (signal, { keyword, values, context }) =>
    callApi(operation, { ...query, ...context, keyword, ids: [...values] }, { signal }),
  options: (data) =>
    (data as OptionsAnswer).list.map((option) => ({ value: option.id, title: option.label, record: option })),
  more: (data) => (data as OptionsAnswer).more,
});

/** OBIS items by a catalogue flag: the real-time read offers those read instantly, a sync the channels. */
const obisLookup = (flag: Parameters<typeof obisItems>[0]): Lookup => ({
  load: (signal) => obisItems(flag, signal),
  options: (data) =>
    (data as ObisItem[]).map((item) => ({ value: item.obis, title: `${item.obis} ${item.description}` })),
});

export const LOOKUPS: Readonly<Record<string, Lookup>> = {
  ...Object.fromEntries(Object.entries(ARCHIVE_PICKERS).map(([name, picker]) => [name, archivePicker(picker)])),
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
  readInstantlyObis: obisLookup('readInstantly'),
  /**
   * A template's collection items: the profiles a run reads among the OBIS items read periodically
   * (COLLECTION_PROFILE_OBIS), named by their collection item (cgName),
   * translated where the locales name it (an operator's own item: its code and the catalogue's description).
   */
  collectItems: {
    load: (signal) => callApi(obisApi.list, { ...ALL, readPeriodically: true }, { signal }),
    options: (data, language) => {
      const t = i18n.getFixedT(language);
      const items = (data as { list: { cgName: string; obis: string; description: string }[] }).list;
      return items
        .filter((item) => COLLECTION_PROFILE_OBIS.includes(item.obis))
        .map((item) => {
          const label = valueLabel(t, COLLECT_ITEM_LABELS, item.cgName);
          return {
            value: item.cgName,
            title:
              label === item.cgName
                ? `${item.cgName} (${item.obis} ${item.description})`
                : `${label} (${item.cgName}, ${item.obis})`,
          };
        });
    },
  },
  /** The task form's templates, each option carrying the template its orders and filters are copied from. */
  templates: {
    load: (signal) => callApi(templateApi.list, ALL, { signal }),
    options: (data) =>
      (data as { list: { id: string; templateName: string }[] }).list.map((template) => ({
        value: template.id,
        title: template.templateName,
        record: template,
      })),
  },
  channelObis: obisLookup('channelOption'),
  /** The parameter templates an operation applies, each named with the meter type it is for. */
  paramTemplates: {
    load: (signal) => callApi(paramTemplateApi.list, ALL, { signal }),
    options: (data) =>
      (data as { list: { id: string; templateName: string; meterTypeName: string }[] }).list.map((template) => ({
        value: template.id,
        title: `${template.templateName} (${template.meterTypeName})`,
      })),
  },
  /** The event definitions by code (the meter events filters), a standard event named in the user's language. */
  eventCodes: {
    load: (signal) => callApi(meterEventsApi.codes, {}, { signal }),
    options: (data, language) => {
      const t = i18n.getFixedT(language);
      return (data as EventCodeOption[]).map((event) => ({
        value: String(event.code),
        title: `${event.code} · ${valueLabel(t, EVENT_NAME_LABELS, event.name)}`,
      }));
    },
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
