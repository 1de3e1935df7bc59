import { z } from 'zod';
import { choice } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals, flag } from '../common/list';
import { nameText, optionalText } from '../common/validation';
import { DLMS_UNITS, type ObisFlags } from '../device/catalogue';
import { isObisCode } from '../device/protocol';

/** The DLMS unit codes an OBIS item may carry (select options labelled `obis.units.<code>`). */
export const OBIS_UNIT_CODES = Object.values(DLMS_UNITS);
export const OBIS_UNIT_NONE = DLMS_UNITS.none;
/** An OBIS item's scaler: a power of ten within the range a DLMS scaler_unit uses in practice. */
export const OBIS_SCALER_MIN = -9;
export const OBIS_SCALER_MAX = 9;
/** spec §5 'Number below 1000' for the class id. */
export const OBIS_CLASS_ID_MAX = 999;

const int = (min: number, max: number) =>
  z.number('mandatory').int('wholeNumber').min(min, 'outOfRange').max(max, 'outOfRange');

const obisFlag = (name: keyof ObisFlags) =>
  field(z.boolean('invalidValue').default(false), { label: `obis.fields.${name}`, widget: 'switch' });

/** The six flags of spec §3, each a switch in the form and a yes/no tag in the list. */
export const OBIS_FLAGS = [
  'channelOption',
  'thresholdOption',
  'settingChannel',
  'displayOption',
  'readInstantly',
  'readPeriodically',
] as const satisfies readonly (keyof ObisFlags)[];

const fields = {
  obis: field(
    z
      .string('mandatory')
      .trim()
      .min(1, { error: 'mandatory', abort: true })
      .refine(isObisCode, { error: 'obisFormat' }),
    { widget: 'text', help: 'obis.help.obis', unique: true },
  ),
  classId: field(int(1, OBIS_CLASS_ID_MAX), { label: 'obis.fields.classId', widget: 'number' }),
  attribute: field(int(0, 255), { widget: 'number' }),
  description: field(nameText(200), { widget: 'text' }),
  unit: choice('obis', 'unit', 'units', OBIS_UNIT_CODES).default(OBIS_UNIT_NONE),
  scaler: field(int(OBIS_SCALER_MIN, OBIS_SCALER_MAX).default(0), {
    widget: 'number',
    help: 'obis.help.scaler',
  }),
  cgName: field(
    z
      .string('mandatory')
      .trim()
      .min(1, { error: 'mandatory', abort: true })
      .max(50, 'tooLong')
      .regex(/^[A-Za-z0-9_]+$/, 'cgNameFormat'),
    { widget: 'text', unique: true },
  ),
  channelOption: obisFlag('channelOption'),
  thresholdOption: obisFlag('thresholdOption'),
  settingChannel: obisFlag('settingChannel'),
  displayOption: obisFlag('displayOption'),
  readInstantly: obisFlag('readInstantly'),
  readPeriodically: obisFlag('readPeriodically'),
  rateDataType: field(optionalText(50), { widget: 'text' }),
  commonConfig: field(z.boolean('invalidValue').default(false), {
    widget: 'switch',
  }),
};

export const ObisRecordSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type ObisRecord = z.infer<typeof ObisRecordSchema>;

export const ObisCreateSchema = z.strictObject(fields);
export type ObisCreate = z.infer<typeof ObisCreateSchema>;

/** What the head-end reads of an OBIS item (server `ObisCatalogue`); `unit` is any DLMS unit code stored. */
export interface ObisItem {
  obis: string;
  classId: number;
  attribute: number;
  unit: number;
  scaler: number;
  description: string;
  cgName: string;
  readInstantly: boolean;
  channelOption: boolean;
  settingChannel: boolean;
}

export const obisEntity = defineEntity({
  name: 'obis',
  record: ObisRecordSchema,
  create: ObisCreateSchema,
  pagePath: '/parameterSetting/obisManagement',
  columns: [
    { field: 'obis', sortable: true, width: 160 },
    { field: 'attribute', width: 100 },
    { field: 'classId', sortable: true, width: 100 },
    { field: 'description' },
    { field: 'cgName', sortable: true, width: 170 },
    { field: 'unit', width: 90 },
    { field: 'scaler', width: 90 },
    { field: 'readInstantly', width: 120 },
    { field: 'readPeriodically', width: 120 },
    { field: 'settingChannel', width: 120 },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [
    contains('obis', 30),
    contains('cgName', 50),
    equals('classId', fields.classId),
    flag('readInstantly'),
    flag('readPeriodically'),
    flag('settingChannel'),
  ],
});
export type ObisListQuery = z.infer<typeof obisEntity.listQuery>;
