import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals, subtree } from '../common/list';
import { latitude, longitude, optionalText, serialText } from '../common/validation';
import { AUTH_TYPES, COMM_TYPES, choice, INTERFACE_TYPES, METER_STATUSES, SECURITY_TYPES } from './enums';
import { linkStateField, meterLiveFields, relayStateField } from './live-state';
import { COMM_TYPE_OPTIONS } from './meter-type.schema';

const text = (name: string) => ({ label: `meter.fields.${name}`, widget: 'text' as const });
const reference = (name: string, lookup: string) =>
  field(IdSchema.nullable().default(null), { label: `meter.fields.${name}`, widget: 'select', lookup });

export const meterStatusField = () => choice('meter', 'status', 'statuses', METER_STATUSES);

const fields = {
  /** spec §5: 'Please enter the complete Meter SN' below 7 or above 49 characters. */
  devAddr: field(serialText(6, 'meterSnIncomplete'), { ...text('devAddr'), unique: true }),
  gridId: field(IdSchema, { widget: 'treeSelect', lookup: 'gridTree' }),
  /** Choosing a type sets the supplier to the type's: a meter's supplier is its type's (see supplierId). */
  meterTypeId: field(IdSchema.nullable().default(null), {
    widget: 'select',
    lookup: 'meterTypes',
    fills: { supplierId: 'supplierId' },
  }),
  /** Left empty, the meter type's supplier; with a type, another one is refused (`supplierNotOfMeterType`). */
  supplierId: field(IdSchema.nullable().default(null), {
    widget: 'select',
    lookup: 'suppliers',
    help: 'meter.supplierHelp',
  }),
  /** The uplink: how the meter reaches the head-end or its DCU. */
  commType: field(z.enum(COMM_TYPES, 'invalidValue').nullable().default(null), {
    widget: 'select',
    options: COMM_TYPE_OPTIONS,
  }),
  authType: choice('meter', 'authType', 'authTypes', AUTH_TYPES).default('none'),
  securityType: choice('meter', 'securityType', 'securityTypes', SECURITY_TYPES).default(0),
  dataChannel: field(optionalText(50), text('dataChannel')),
  interfaceType: choice('meter', 'interfaceType', 'interfaceTypes', INTERFACE_TYPES).nullable().default(null),
  virtual: field(z.boolean('invalidValue').default(false), { widget: 'switch' }),
  meterBoxNo: field(optionalText(50), text('meterBoxNo')),
  moduleId: reference('moduleId', 'freeModules'),
  dcuId: reference('dcuId', 'dcus'),
  tariffId: reference('tariffId', 'tariffs'),
  longitude: field(longitude(), { widget: 'number' }),
  latitude: field(latitude(), { widget: 'number' }),
  remark: field(optionalText(500), { widget: 'textarea' }),
};

const shown = (name: string) => field(z.string().nullable(), text(name));

export const MeterSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    status: meterStatusField(),
    /** The HES password itself is never sent back. */
    hesPasswordSet: field(z.boolean(), { widget: 'switch' }),
    gridName: shown('gridName'),
    meterTypeName: shown('meterTypeName'),
    supplierName: shown('supplierName'),
    moduleNo: shown('moduleNo'),
    dcuNo: shown('dcuNo'),
    /** The POC the meter measures now, and that POC's consumer. */
    pocNo: shown('pocNo'),
    consumerCode: shown('consumerCode'),
    consumerName: shown('consumerName'),
    tariffName: shown('tariffName'),
    ...meterLiveFields,
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Meter = z.infer<typeof MeterSchema>;

export const MeterCreateSchema = z.strictObject({
  ...fields,
  /** Where the meter starts its life cycle; afterwards only maintain changes it (update keeps it). */
  status: meterStatusField().default(0),
  /** Sealed at rest. On update an empty password keeps the stored one. */
  hesPassword: field(z.string().max(64, 'tooLong').default(''), {
    label: 'meter.fields.hesPassword',
    widget: 'password',
    help: 'meter.hesPasswordHelp',
  }),
});
export type MeterCreate = z.infer<typeof MeterCreateSchema>;

export const meterEntity = defineEntity({
  name: 'meter',
  record: MeterSchema,
  create: MeterCreateSchema,
  pagePath: '/archiveSetting/meter',
  columns: [
    { field: 'devAddr', sortable: true, width: 150 },
    { field: 'status', sortable: true, width: 110 },
    { field: 'linkState', width: 100 },
    { field: 'lastCommTime', sortable: true, width: 170 },
    { field: 'relayState', width: 120 },
    { field: 'lastReading', width: 120 },
    { field: 'consumerName', width: 150 },
    { field: 'pocNo', width: 120 },
    { field: 'gridName', width: 140 },
    { field: 'meterTypeName', width: 120 },
    { field: 'moduleNo', width: 120 },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [
    contains('devAddr', 50),
    equals('status', meterStatusField()),
    subtree('gridId'),
    equals('meterTypeId', IdSchema),
    equals('dcuId', IdSchema),
    equals('linkState', linkStateField()),
    equals('relayState', relayStateField()),
  ],
  form: [
    'devAddr',
    'gridId',
    'meterTypeId',
    'supplierId',
    'commType',
    'authType',
    'securityType',
    'dataChannel',
    'interfaceType',
    'virtual',
    'meterBoxNo',
    'moduleId',
    'dcuId',
    'tariffId',
    'longitude',
    'latitude',
    'remark',
  ],
  detail: [
    'devAddr',
    'status',
    'linkState',
    'lastCommTime',
    'relayState',
    'lastReading',
    'lastReadTime',
    'gridName',
    'meterTypeName',
    'supplierName',
    'commType',
    'authType',
    'securityType',
    'hesPasswordSet',
    'dataChannel',
    'interfaceType',
    'virtual',
    'meterBoxNo',
    'moduleNo',
    'dcuNo',
    'pocNo',
    'consumerCode',
    'consumerName',
    'tariffName',
    'longitude',
    'latitude',
    'remark',
    'createTime',
    'updateTime',
  ],
});
export type MeterListQuery = z.infer<typeof meterEntity.listQuery>;
