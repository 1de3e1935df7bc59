import * as contracts from '@meterdesk/contracts';
import {
  COMMAND_OPERATIONS,
  type EntityDefinition,
  MESSAGES,
  OPERATION_NAMES,
  resourceEntity,
} from '@meterdesk/contracts';
import { enCore } from '@meterdesk/contracts/locales/en';
import { enScreens } from '@meterdesk/contracts/locales/en/screens';
import { zhCore } from '@meterdesk/contracts/locales/zh';
import { zhScreens } from '@meterdesk/contracts/locales/zh/screens';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { type CrudConfig, describeField, describeSchemaField, type FieldDescriptor } from '@/crud/crud-config';
import { MAINTAIN_FIELDS } from '@/pages/archive/meter-maintain.page';
import { paramFields } from '@/pages/operations/operation-params';
import { SEND_FIELDS } from '@/pages/system/notice-announcement.page';
import { SETTINGS_FIELDS } from '@/pages/system/system-settings.page';
import { meterCrud } from '@/resources/archive/meter.resource';
import { meterTypeCrud } from '@/resources/archive/meter-type.resource';
import { tariffCrud } from '@/resources/parameter/tariff.resource';
import { groupCrud } from '@/resources/system/group.resource';
import { myNoticeCrud, noticeBatchCrud } from '@/resources/system/notice.resource';
import { orgCrud } from '@/resources/system/org.resource';
import { RESET_PASSWORD_FIELDS } from '@/resources/system/reset-password-dialog';
import { resourceCrud } from '@/resources/system/resource.resource';
import { roleCrud } from '@/resources/system/role.resource';
import { syslogCrud } from '@/resources/system/syslog.resource';
import { userCrud } from '@/resources/system/user.resource';

const en = { ...enCore, ...enScreens };
const zh = { ...zhCore, ...zhScreens };

function keysOf(tree: object, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null ? keysOf(value, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

function has(tree: object, key: string): boolean {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null || !(part in node)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'string' && node.length > 0;
}

const isEntity = (value: unknown): value is EntityDefinition<z.ZodObject, string> =>
  typeof value === 'object' && value !== null && 'record' in value && 'pagePath' in value && 'columns' in value;

/** The label, option and help keys of a field and, for a group, of its members. */
function fieldKeys(field: FieldDescriptor): string[] {
  return [
    field.label,
    ...(field.options?.map((option) => option.label) ?? []),
    ...(field.help ? [field.help] : []),
    ...(field.fields?.flatMap(fieldKeys) ?? []),
    ...(field.items?.flatMap(fieldKeys) ?? []),
  ];
}

const entityFields = (entity: EntityDefinition<z.ZodObject, string>) =>
  new Set([
    ...entity.columns.map((c) => c.field),
    ...entity.filters.map((f) => f.field),
    ...entity.form,
    ...entity.detail,
  ]);

/** Every i18n key a contracts entity reaches: labels (declared or by convention), options and help. */
function entityKeys(entity: EntityDefinition<z.ZodObject, string>): string[] {
  return [...entityFields(entity)].flatMap((key) =>
    fieldKeys(describeSchemaField(key, entity.record.shape[key] as z.ZodType | undefined, `${entity.name}.fields`)),
  );
}

/** What a screen of the kit shows: its fields (with create-only ones), row actions and time range. */
function crudKeys(crud: CrudConfig): string[] {
  const keys = [...entityFields(crud.entity), ...crud.createFields, ...crud.secretFields];
  return [
    ...keys.flatMap((key) => fieldKeys(describeField(crud, key))),
    ...crud.rowActions.flatMap((action) => [
      action.label ?? `${crud.entity.name}.actions.${action.key}`,
      ...(action.run ? [action.run.confirm, action.run.done] : []),
    ]),
    ...(crud.timeRange ? [crud.timeRange.label] : []),
  ];
}

const CRUDS = [
  resourceCrud,
  orgCrud,
  userCrud,
  groupCrud,
  roleCrud,
  myNoticeCrud,
  noticeBatchCrud,
  syslogCrud,
  meterTypeCrud,
  meterCrud,
  tariffCrud,
];
const OPERATION_FORMS = [
  SEND_FIELDS,
  RESET_PASSWORD_FIELDS,
  ...SETTINGS_FIELDS,
  MAINTAIN_FIELDS,
  // Every meter and DCU operation's parameters (their options too: sync modes, clock sources).
  ...OPERATION_NAMES.map(paramFields),
];

describe('locales', () => {
  it('English and Chinese have the same keys', () => {
    expect(keysOf(zh).sort()).toEqual(keysOf(en).sort());
  });

  it('translate every message key of the contracts in both languages', () => {
    for (const key of Object.keys(MESSAGES)) {
      expect(has(en, `errors.${key}`), `en errors.${key}`).toBe(true);
      expect(has(zh, `errors.${key}`), `zh errors.${key}`).toBe(true);
    }
  });

  it('have every label, option and help key the entity declarations reach', () => {
    const entities = Object.values(contracts as Record<string, unknown>).filter(isEntity);
    expect(entities).toContain(resourceEntity);
    for (const key of entities.flatMap(entityKeys)) {
      expect(has(en, key), `en ${key}`).toBe(true);
      expect(has(zh, key), `zh ${key}`).toBe(true);
    }
  });

  it('have every label the web screens reach beyond the entities: create-only fields, actions, forms', () => {
    const keys = [
      ...CRUDS.flatMap(crudKeys),
      ...OPERATION_FORMS.flat().flatMap(fieldKeys),
      // A command history names every kind of command, collection reads too.
      ...COMMAND_OPERATIONS.map((operation) => `operations.names.${operation}`),
    ];
    expect(keys).toContain('org.fields.phoneUser');
    expect(keys).toContain('user.fields.password');
    expect(keys).toContain('operations.paramSyncModes.channelAndFreezePeriod');
    for (const key of keys) {
      expect(has(en, key), `en ${key}`).toBe(true);
      expect(has(zh, key), `zh ${key}`).toBe(true);
    }
  });

  it('leave no text empty', () => {
    for (const key of keysOf(zh)) expect(has(zh, key), key).toBe(true);
    for (const key of keysOf(en)) expect(has(en, key), key).toBe(true);
  });
});
