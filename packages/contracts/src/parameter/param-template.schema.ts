import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals } from '../common/list';
import type { MessageKey } from '../common/messages';
import { nameText, optionalText } from '../common/validation';
import { isObisCode } from '../device/protocol';
import { OBIS_UNIT_NONE } from './obis.schema';

/*
 * A parameter template (spec §2 paramTemplateSetting): a named set of OBIS item values for a meter
 * type — demand period, capture period, thresholds, display list… — applied to meters by the
 * `applyParamTemplate` operation, a parameter sync whose values come from the template. Its items are
 * catalogue items flagged *setting channel*; their values are raw, as the meter holds them (the
 * catalogue's scaler and unit say what they read as: 2530 with scaler −1 and unit V is 253 V).
 */

/** One template's items: each a set item of one device command, which holds at most 64. */
export const MAX_PARAM_TEMPLATE_ITEMS = 32;
const PARAM_TEXT_MAX = 100;
const PARAM_LIST_MAX = 32;

/** What a template item's value is, from its catalogue item: how the form asks it and the server checks it. */
export const PARAM_VALUE_KINDS = ['integer', 'time', 'obisList', 'text'] as const;
export type ParamValueKind = (typeof PARAM_VALUE_KINDS)[number];

/** Objects set by operations of their own (clock sync, the tariff push, the firmware upgrade), never by a template. */
const OWN_OPERATION_CLASSES: readonly number[] = [8, 11, 18, 20];
/** Register-like classes and the limiter: a raw integer scaled for display. */
const INTEGER_CLASSES: readonly number[] = [3, 4, 5, 71, 111];

/**
 * The kind of value an object takes, or null when a template cannot set it: a profile's capture
 * objects (the display list) are OBIS codes, its capture period and any object with a unit (or a
 * register, the limiter, the account) a whole number, a push schedule a time of day, the rest text.
 */
export function paramValueKind(item: { classId: number; attribute: number; unit: number }): ParamValueKind | null {
  if (OWN_OPERATION_CLASSES.includes(item.classId)) return null;
  if (item.classId === 7) return item.attribute === 3 ? 'obisList' : item.attribute === 4 ? 'integer' : null;
  if (item.classId === 40 && item.attribute === 4) return 'time';
  if (item.unit !== OBIS_UNIT_NONE || INTEGER_CLASSES.includes(item.classId)) return 'integer';
  return 'text';
}

const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Why a value does not fit its kind (a message key), or null when it does. */
export function paramValueIssue(kind: ParamValueKind, value: unknown): MessageKey | null {
  switch (kind) {
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? null : 'wholeNumber';
    case 'time':
      return typeof value === 'string' && TIME_OF_DAY.test(value) ? null : 'timeFormat';
    case 'obisList':
      if (!Array.isArray(value) || value.length === 0) return 'mandatory';
      return value.every((code) => typeof code === 'string' && isObisCode(code)) ? null : 'obisFormat';
    case 'text':
      return typeof value === 'string' && value.trim() !== '' ? null : 'mandatory';
  }
}

/** What the catalogue says of an item's object, as far as a template needs it. */
export interface SettableObis {
  classId: number;
  attribute: number;
  unit: number;
  settingChannel: boolean;
}

/**
 * Why an item cannot be in a template, naming its member: no catalogue item has its code, the item is
 * not one a template sets (not flagged setting channel, or set by an operation of its own), or its
 * value does not fit. Null when it can. The save checks it, and so does each apply (the catalogue may
 * have changed since).
 */
export function paramItemIssue(
  entry: SettableObis | undefined,
  value: unknown,
): { member: 'obis' | 'value'; key: MessageKey } | null {
  if (!entry) return { member: 'obis', key: 'obisNotFound' };
  const kind = paramValueKind(entry);
  if (!entry.settingChannel || !kind) return { member: 'obis', key: 'obisNotSettable' };
  const issue = paramValueIssue(kind, value);
  return issue ? { member: 'value', key: issue } : null;
}

/** A value as the meter holds it: a number, a text, or a list of OBIS codes. */
export const ParamValueSchema = z.union(
  [
    z.number().finite(),
    z.string().max(PARAM_TEXT_MAX, 'tooLong'),
    z.array(z.string().max(50, 'tooLong')).max(PARAM_LIST_MAX, 'tooLong'),
  ],
  { error: (issue) => (issue.input === undefined || issue.input === null ? 'mandatory' : 'invalidValue') },
);

const obisCode = z.string('mandatory').trim().min(1, 'mandatory').refine(isObisCode, { error: 'obisFormat' });

export const ParamTemplateItemSchema = z.strictObject({
  obis: field(obisCode, { label: 'paramTemplate.fields.obis', widget: 'text' }),
  value: field(ParamValueSchema, { label: 'paramTemplate.fields.value', widget: 'text' }),
});
export type ParamTemplateItem = z.infer<typeof ParamTemplateItemSchema>;

const fields = {
  templateName: field(nameText(100), { widget: 'text', unique: true }),
  meterTypeId: field(IdSchema, { widget: 'select', lookup: 'meterTypes' }),
  items: field(
    z
      .array(ParamTemplateItemSchema, 'mandatory')
      .min(1, 'mandatory')
      .max(MAX_PARAM_TEMPLATE_ITEMS, 'tooLong')
      .refine((items) => new Set(items.map((i) => i.obis.toLowerCase())).size === items.length, {
        error: 'paramTemplateDuplicateItem',
      }),
    { widget: 'rows', help: 'paramTemplate.help.items' },
  ),
  remark: field(optionalText(500), { widget: 'textarea' }),
};

/**
 * An item as the detail shows it: the stored value with what the OBIS catalogue says of its object
 * (absent for an item the catalogue no longer holds), and the value scaled (`scaled()`).
 */
const ItemRecordSchema = z.object({
  obis: field(z.string(), { label: 'paramTemplate.fields.obis', widget: 'text' }),
  description: field(z.string().optional(), { label: 'paramTemplate.fields.description', widget: 'text' }),
  value: field(ParamValueSchema, { label: 'paramTemplate.fields.value', widget: 'text' }),
  scaler: field(z.number().optional(), { label: 'paramTemplate.fields.scaler', widget: 'number' }),
  unit: field(z.string().optional(), { label: 'paramTemplate.fields.unit', widget: 'text' }),
  shown: field(z.string().optional(), { label: 'paramTemplate.fields.shown', widget: 'text' }),
});

export const ParamTemplateSchema = storedRecord(
  z.object({
    id: IdSchema,
    templateName: fields.templateName,
    meterTypeId: fields.meterTypeId,
    meterTypeName: field(z.string(), { widget: 'text' }),
    items: field(z.array(ItemRecordSchema), { widget: 'rows' }),
    itemCount: field(z.number(), { widget: 'number' }),
    remark: fields.remark,
    createdBy: field(z.string(), { widget: 'text' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type ParamTemplate = z.infer<typeof ParamTemplateSchema>;

export const ParamTemplateCreateSchema = z.strictObject(fields);
export type ParamTemplateCreate = z.infer<typeof ParamTemplateCreateSchema>;

export const paramTemplateEntity = defineEntity({
  name: 'paramTemplate',
  record: ParamTemplateSchema,
  create: ParamTemplateCreateSchema,
  pagePath: '/parameterSetting/paramTemplateSetting',
  columns: [
    { field: 'templateName', sortable: true },
    { field: 'meterTypeName', width: 200 },
    { field: 'itemCount', width: 110 },
    { field: 'remark' },
    { field: 'createdBy', sortable: true, width: 140 },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [contains('templateName', 100), equals('meterTypeId', IdSchema)],
  detail: ['templateName', 'meterTypeName', 'items', 'remark', 'createdBy', 'createTime', 'updateTime'],
});
export type ParamTemplateListQuery = z.infer<typeof paramTemplateEntity.listQuery>;
