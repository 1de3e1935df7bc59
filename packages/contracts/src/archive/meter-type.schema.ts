import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals } from '../common/list';
import { nameText, optionalNumber, optionalText } from '../common/validation';
import { COMM_TYPES, choice, METERING_SIDES, WIRINGS } from './enums';

/** One label per communication type, shared by the meter type's list of them and the meter's uplink. */
export const COMM_TYPE_OPTIONS = COMM_TYPES.map((value) => ({ value, label: `meterType.commTypes.${value}` }));

const fields = {
  modelName: field(nameText(100), { widget: 'text', unique: true }),
  supplierId: field(IdSchema, {
    widget: 'select',
    lookup: 'suppliers',
  }),
  wiring: choice('meterType', 'wiring', 'wirings', WIRINGS),
  side: choice('meterType', 'side', 'sides', METERING_SIDES),
  ratedVoltage: field(optionalNumber(0, 1_000_000), { widget: 'number' }),
  ratedCurrent: field(optionalNumber(0, 100_000), { widget: 'number' }),
  maxCurrent: field(optionalNumber(0, 100_000), { widget: 'number' }),
  accuracyClass: field(optionalText(16), { widget: 'text' }),
  commTypes: field(z.array(z.enum(COMM_TYPES, 'invalidValue')).max(COMM_TYPES.length, 'tooLong').default([]), {
    widget: 'select',
    multiple: true,
    options: COMM_TYPE_OPTIONS,
  }),
  remark: field(optionalText(500), { widget: 'textarea' }),
};

export const MeterTypeSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    supplierName: field(z.string(), { widget: 'text' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type MeterType = z.infer<typeof MeterTypeSchema>;

export const MeterTypeCreateSchema = z.strictObject(fields);
export type MeterTypeCreate = z.infer<typeof MeterTypeCreateSchema>;

export const meterTypeEntity = defineEntity({
  name: 'meterType',
  record: MeterTypeSchema,
  create: MeterTypeCreateSchema,
  pagePath: '/parameterSetting/meterType',
  columns: [
    { field: 'modelName', sortable: true, width: 160 },
    { field: 'supplierName', sortable: true },
    { field: 'wiring', width: 130 },
    { field: 'side', width: 130 },
    { field: 'ratedVoltage', width: 120 },
    { field: 'ratedCurrent', width: 120 },
    { field: 'commTypes', width: 180 },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [contains('modelName', 100), equals('supplierId', IdSchema), equals('wiring', fields.wiring)],
  detail: [
    'modelName',
    'supplierName',
    'wiring',
    'side',
    'ratedVoltage',
    'ratedCurrent',
    'maxCurrent',
    'accuracyClass',
    'commTypes',
    'remark',
    'createTime',
    'updateTime',
  ],
});
export type MeterTypeListQuery = z.infer<typeof meterTypeEntity.listQuery>;
