import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, subtree } from '../common/list';
import { codeText, latitude, longitude, optionalInt, optionalText } from '../common/validation';

const label = (name: string) => `dcu.fields.${name}`;

/** Most meters a DCU's blacklist names: about what one concentrator serves. */
export const MAX_BLACKLIST = 1024;
/** Room for MAX_BLACKLIST serials of the longest kind and their separators. */
const MAX_BLACKLIST_TEXT = MAX_BLACKLIST * 51;

/** spec §5: blacklist numbers are separated by Chinese or English commas or line breaks. */
export function parseBlacklist(text: string): string[] {
  const serials = text
    .split(/[,，\r\n]+/)
    .map((serial) => serial.trim())
    .filter((serial) => serial !== '');
  return [...new Set(serials)];
}

/** A time of day as `HH:mm`, or empty. */
const timeOfDay = () =>
  z
    .string()
    .trim()
    .regex(/^(([01]\d|2[0-3]):[0-5]\d)?$/, 'timeFormat')
    .default('');

/*
 * Keys go in and never come out: the record says only whether each is set. An HLS key is an
 * AES-128 key (32 hexadecimal characters); the LLS key is a password of up to 16 printable
 * characters. On update an empty key keeps the stored one.
 */
const hlsKey = (name: string) =>
  field(
    z
      .string()
      .trim()
      .regex(/^([0-9A-Fa-f]{32})?$/, 'hexKey')
      .toUpperCase()
      .default(''),
    {
      label: label(name),
      widget: 'password',
      help: 'dcu.help.hlsKey',
    },
  );

export const DCU_KEYS = ['llsKey', 'hlsAuthKey', 'hlsEncKey', 'hlsAuthEncKey'] as const;
export type DcuKey = (typeof DCU_KEYS)[number];

/** The task parameters, in the order the form, the detail and the import template show them. */
export const DCU_TASK_FIELDS = [
  'taskEnabled',
  'taskGroup',
  'minCycleMinutes',
  'collectPeriodMinutes',
  'reportPeriodMinutes',
  'taskStart',
  'taskEnd',
  'maxSupplementDays',
  'executionOffsetMinutes',
] as const;

const keyFields = {
  llsKey: field(
    z
      .string()
      .max(16, 'tooLong')
      .regex(/^[\x20-\x7E]*$/, 'printableOnly')
      .default(''),
    {
      label: label('llsKey'),
      widget: 'password',
      help: 'dcu.help.llsKey',
    },
  ),
  hlsAuthKey: hlsKey('hlsAuthKey'),
  hlsEncKey: hlsKey('hlsEncKey'),
  hlsAuthEncKey: hlsKey('hlsAuthEncKey'),
};

const fields = {
  dcuNo: field(codeText(50), { label: label('dcuNo'), widget: 'text', unique: true }),
  dcuName: field(optionalText(100), { label: label('dcuName'), widget: 'text' }),
  model: field(optionalText(50), { label: label('model'), widget: 'text' }),
  supplierId: field(IdSchema.nullable().default(null), {
    label: label('supplierId'),
    widget: 'select',
    lookup: 'suppliers',
  }),
  gridId: field(IdSchema, { label: label('gridId'), widget: 'treeSelect', lookup: 'gridTree' }),
  address: field(optionalText(200), { label: label('address'), widget: 'text' }),
  longitude: field(longitude(), { label: label('longitude'), widget: 'number' }),
  latitude: field(latitude(), { label: label('latitude'), widget: 'number' }),
  llsLevel: field(z.number('numberFormat').int('wholeNumber').min(0, 'outOfRange').max(15, 'outOfRange').default(0), {
    label: label('llsLevel'),
    widget: 'number',
  }),
  blacklist: field(
    z
      .string()
      .max(MAX_BLACKLIST_TEXT, 'tooLong')
      .refine((text) => parseBlacklist(text).length <= MAX_BLACKLIST, 'blacklistTooLong')
      .default(''),
    { label: label('blacklist'), widget: 'textarea', help: 'dcu.help.blacklist' },
  ),
  taskEnabled: field(z.boolean().default(false), { label: label('taskEnabled'), widget: 'switch' }),
  /** spec §5: one task group or none. */
  taskGroup: field(optionalInt(1, 255), { label: label('taskGroup'), widget: 'number' }),
  minCycleMinutes: field(optionalInt(1, 1440), { label: label('minCycleMinutes'), widget: 'number' }),
  collectPeriodMinutes: field(optionalInt(1, 1440), { label: label('collectPeriodMinutes'), widget: 'number' }),
  reportPeriodMinutes: field(optionalInt(1, 1440), { label: label('reportPeriodMinutes'), widget: 'number' }),
  taskStart: field(timeOfDay(), { label: label('taskStart'), widget: 'text', help: 'dcu.help.time' }),
  taskEnd: field(timeOfDay(), { label: label('taskEnd'), widget: 'text', help: 'dcu.help.time' }),
  maxSupplementDays: field(optionalInt(1, 31), { label: label('maxSupplementDays'), widget: 'number' }),
  executionOffsetMinutes: field(optionalInt(0, 1439), { label: label('executionOffsetMinutes'), widget: 'number' }),
  remark: field(optionalText(500), { label: label('remark'), widget: 'textarea' }),
};

const keySet = (name: DcuKey) => field(z.boolean(), { label: label(`${name}Set`), widget: 'switch' });

export const DcuSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    supplierName: field(z.string(), { label: label('supplierName'), widget: 'text' }),
    gridName: field(z.string(), { label: label('gridName'), widget: 'text' }),
    /** One serial a line (spec: the blacklist is shown one per line). */
    blacklist: field(z.string(), { label: label('blacklist'), widget: 'textarea' }),
    llsKeySet: keySet('llsKey'),
    hlsAuthKeySet: keySet('hlsAuthKey'),
    hlsEncKeySet: keySet('hlsEncKey'),
    hlsAuthEncKeySet: keySet('hlsAuthEncKey'),
    meterCount: field(z.number().int(), { label: label('meterCount'), widget: 'number' }),
    createTime: field(z.string(), { label: label('createTime'), widget: 'datetime' }),
    updateTime: field(z.string(), { label: label('updateTime'), widget: 'datetime' }),
  }),
);
export type Dcu = z.infer<typeof DcuSchema>;

export const DcuCreateSchema = z.strictObject({ ...fields, ...keyFields });
export type DcuCreate = z.infer<typeof DcuCreateSchema>;

/** What *reveal* answers: the keys in clear, empty where none is stored. */
export const DcuKeysSchema = z.object({
  llsKey: z.string(),
  hlsAuthKey: z.string(),
  hlsEncKey: z.string(),
  hlsAuthEncKey: z.string(),
});
export type DcuKeys = z.infer<typeof DcuKeysSchema>;

export const dcuEntity = defineEntity({
  name: 'dcu',
  record: DcuSchema,
  create: DcuCreateSchema,
  pagePath: '/archiveSetting/DCU',
  columns: [
    { field: 'dcuNo', sortable: true, width: 160 },
    { field: 'dcuName', sortable: true },
    { field: 'model', width: 120 },
    { field: 'supplierName', width: 160 },
    { field: 'gridName', sortable: true, width: 160 },
    { field: 'meterCount', width: 90 },
    { field: 'taskEnabled', width: 120 },
  ],
  filters: [contains('dcuNo', 50), contains('dcuName', 100), subtree('gridId')],
  form: [
    'dcuNo',
    'dcuName',
    'model',
    'supplierId',
    'gridId',
    'address',
    'longitude',
    'latitude',
    'remark',
    'llsLevel',
    ...DCU_KEYS,
    ...DCU_TASK_FIELDS,
    'blacklist',
    // The keys are write-only: the form takes them, the record never carries them.
  ] as readonly (keyof typeof DcuSchema.shape)[],
  detail: [
    'dcuNo',
    'dcuName',
    'model',
    'supplierName',
    'gridName',
    'address',
    'longitude',
    'latitude',
    'remark',
    'llsLevel',
    'llsKeySet',
    'hlsAuthKeySet',
    'hlsEncKeySet',
    'hlsAuthEncKeySet',
    'blacklist',
    'meterCount',
    ...DCU_TASK_FIELDS,
    'createTime',
    'updateTime',
  ],
});
export type DcuListQuery = z.infer<typeof dcuEntity.listQuery>;
