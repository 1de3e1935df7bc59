import { z } from 'zod';
import { choice } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals } from '../common/list';
import { nameText, optionalText } from '../common/validation';
import { EVENT_LEVELS } from '../device/protocol';

/** The codes a device's event log entry may carry (protocol `DeviceEventSchema`). */
export const EVENT_CODE_MAX = 65535;

const int = (min: number, max: number) =>
  z.number('mandatory').int('wholeNumber').min(min, 'outOfRange').max(max, 'outOfRange');

const fields = {
  code: field(int(0, EVENT_CODE_MAX), { widget: 'number', unique: true }),
  name: field(nameText(100), { widget: 'text', unique: true }),
  description: field(optionalText(500), { widget: 'textarea' }),
  level: choice('eventDefinition', 'level', 'levels', EVENT_LEVELS),
  parentId: field(IdSchema.nullable().default(null), {
    widget: 'select',
    lookup: 'eventDefinitions',
    help: 'eventDefinition.help.parentId',
  }),
  analyticalWay: field(optionalText(200), { widget: 'text' }),
  cumulativeNumber: field(int(0, 1_000_000).default(0), {
    widget: 'number',
  }),
};

export const EventDefinitionSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    parentCode: field(z.number().nullable(), { widget: 'number' }),
    parentName: field(z.string().nullable(), { widget: 'text' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type EventDefinition = z.infer<typeof EventDefinitionSchema>;

export const EventDefinitionCreateSchema = z.strictObject(fields);
export type EventDefinitionCreate = z.infer<typeof EventDefinitionCreateSchema>;

/** What the head-end reads of an event definition (server `EventCatalogue`). */
export type EventDefinitionItem = Pick<
  EventDefinition,
  'code' | 'name' | 'description' | 'level' | 'parentCode' | 'analyticalWay' | 'cumulativeNumber'
>;

export const eventDefinitionEntity = defineEntity({
  name: 'eventDefinition',
  record: EventDefinitionSchema,
  create: EventDefinitionCreateSchema,
  pagePath: '/parameterSetting/eventDefinition',
  columns: [
    { field: 'code', sortable: true, width: 100 },
    { field: 'name', sortable: true, width: 200 },
    { field: 'level', sortable: true, width: 110 },
    { field: 'parentName', width: 200 },
    { field: 'analyticalWay', width: 160 },
    { field: 'cumulativeNumber', width: 140 },
    { field: 'description' },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [contains('name', 100), equals('level', fields.level)],
  form: ['code', 'name', 'level', 'parentId', 'analyticalWay', 'cumulativeNumber', 'description'],
  detail: [
    'code',
    'name',
    'level',
    'parentCode',
    'parentName',
    'analyticalWay',
    'cumulativeNumber',
    'description',
    'createTime',
    'updateTime',
  ],
});
export type EventDefinitionListQuery = z.infer<typeof eventDefinitionEntity.listQuery>;
