import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals, subtree } from '../common/list';
import { codeText, optionalInt, optionalNumber, optionalText } from '../common/validation';
import { choice, POC_NATURES, SYNC_STATUSES } from './enums';

const label = (name: string) => `poc.fields.${name}`;

export const REGISTRATIONS = ['unregistered', 'registered'] as const;

const nature = choice('poc', 'nature', 'natures', POC_NATURES);
const syncStatus = choice('poc', 'syncStatus', 'syncStatuses', SYNC_STATUSES);

/** A CT or PT ratio: positive, as the numeric(10,2) column holds it. */
const ratio = (name: string) =>
  field(z.number('numberFormat').min(0.01, 'outOfRange').max(99_999_999, 'outOfRange').default(1), {
    label: label(name),
    widget: 'number',
  });

/** A reference picked by searching (there may be a million meters); none is null. */
const reference = (name: string, lookup: string) =>
  field(IdSchema.nullable().default(null), { label: label(name), widget: 'select', lookup });

const fields = {
  pocNo: field(codeText(50), { label: label('pocNo'), widget: 'text', unique: true }),
  nature,
  ctRatio: ratio('ctRatio'),
  ptRatio: ratio('ptRatio'),
  capacity: field(optionalNumber(0.01, 9_999_999_999), { label: label('capacity'), widget: 'number' }),
  registration: choice('poc', 'registration', 'registrations', REGISTRATIONS).default('unregistered'),
  tariffId: reference('tariffId', 'tariffs'),
  taskGroupId: field(optionalInt(1, 255), { label: label('taskGroupId'), widget: 'number' }),
  consumerId: reference('consumerId', 'consumers'),
  meterId: reference('meterId', 'freeMeters'),
  dcuId: reference('dcuId', 'dcus'),
  gridId: field(IdSchema, { label: label('gridId'), widget: 'treeSelect', lookup: 'gridTree' }),
  remark: field(optionalText(500), { label: label('remark'), widget: 'textarea' }),
};

export const PocSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    /** Set by the system: 0 not synchronized, 1 synchronized, 2 changed since. */
    syncStatus,
    consumerCode: field(z.string(), { label: label('consumerCode'), widget: 'text' }),
    consumerName: field(z.string(), { label: label('consumerName'), widget: 'text' }),
    devAddr: field(z.string(), { label: label('devAddr'), widget: 'text' }),
    dcuNo: field(z.string(), { label: label('dcuNo'), widget: 'text' }),
    gridName: field(z.string(), { label: label('gridName'), widget: 'text' }),
    tariffName: field(z.string().nullable(), { label: label('tariffName'), widget: 'text' }),
    createTime: field(z.string(), { label: label('createTime'), widget: 'datetime' }),
    updateTime: field(z.string(), { label: label('updateTime'), widget: 'datetime' }),
  }),
);
export type Poc = z.infer<typeof PocSchema>;

export const PocCreateSchema = z.strictObject(fields);
export type PocCreate = z.infer<typeof PocCreateSchema>;

export const pocEntity = defineEntity({
  name: 'poc',
  record: PocSchema,
  create: PocCreateSchema,
  pagePath: '/archiveSetting/poc',
  columns: [
    { field: 'pocNo', sortable: true, width: 140 },
    { field: 'nature', sortable: true, width: 170 },
    { field: 'consumerCode', width: 130 },
    { field: 'consumerName', width: 150 },
    { field: 'devAddr', sortable: true, width: 150 },
    { field: 'dcuNo', width: 130 },
    { field: 'syncStatus', sortable: true, width: 160 },
  ],
  filters: [
    contains('pocNo', 50),
    contains('devAddr', 50),
    equals('nature', nature),
    equals('syncStatus', syncStatus),
    subtree('gridId'),
  ],
  form: [
    'pocNo',
    'nature',
    'gridId',
    'consumerId',
    'meterId',
    'dcuId',
    'ctRatio',
    'ptRatio',
    'capacity',
    'registration',
    'tariffId',
    'taskGroupId',
    'remark',
  ],
  detail: [
    'pocNo',
    'nature',
    'gridName',
    'consumerCode',
    'consumerName',
    'devAddr',
    'dcuNo',
    'ctRatio',
    'ptRatio',
    'capacity',
    'syncStatus',
    'registration',
    'tariffName',
    'taskGroupId',
    'remark',
    'createTime',
    'updateTime',
  ],
});
export type PocListQuery = z.infer<typeof pocEntity.listQuery>;

const numberError = (issue: { input?: unknown }) => (issue.input === undefined ? 'mandatory' : 'numberFormat');
const replacementLabel = (name: string) => `poc.replacement.${name}`;
const historyLabel = (name: string) => `poc.history.${name}`;
/** An energy total as a register reads it (kWh, kvarh), as numeric(14,3) holds it. */
const total = (name: string) =>
  field(z.number({ error: numberError }).min(0, 'outOfRange').max(99_999_999_999, 'outOfRange'), {
    label: replacementLabel(name),
    widget: 'number',
  });

/** What *replace* takes: the new meter and the registers of both meters at the change. */
export const PocReplaceSchema = z.strictObject({
  id: IdSchema,
  newMeterId: field(IdSchema, { label: replacementLabel('newMeterId'), widget: 'select', lookup: 'freeMeters' }),
  oldActiveTotal: total('oldActiveTotal'),
  oldReactiveTotal: total('oldReactiveTotal'),
  newActiveTotal: total('newActiveTotal'),
  newReactiveTotal: total('newReactiveTotal'),
  changeTime: field(z.iso.datetime({ offset: true, message: 'invalidValue' }).optional(), {
    label: replacementLabel('changeTime'),
    widget: 'datetime',
    help: 'poc.help.changeTime',
  }),
});
export type PocReplace = z.infer<typeof PocReplaceSchema>;

/** One replacement in a POC's history: PRE1 is the first meter replaced there. */
export const PocReplacementSchema = z.object({
  id: IdSchema,
  seq: z.number().int(),
  name: field(z.string(), { label: historyLabel('name'), widget: 'text' }),
  oldDevAddr: field(z.string(), { label: historyLabel('oldDevAddr'), widget: 'text' }),
  newDevAddr: field(z.string(), { label: historyLabel('newDevAddr'), widget: 'text' }),
  oldActiveTotal: field(z.number().nullable(), { label: historyLabel('oldActiveTotal'), widget: 'number' }),
  oldReactiveTotal: field(z.number().nullable(), { label: historyLabel('oldReactiveTotal'), widget: 'number' }),
  newActiveTotal: field(z.number().nullable(), { label: historyLabel('newActiveTotal'), widget: 'number' }),
  newReactiveTotal: field(z.number().nullable(), { label: historyLabel('newReactiveTotal'), widget: 'number' }),
  changer: field(z.string(), { label: historyLabel('changer'), widget: 'text' }),
  changeTime: field(z.string(), { label: historyLabel('changeTime'), widget: 'datetime' }),
});
export type PocReplacement = z.infer<typeof PocReplacementSchema>;
