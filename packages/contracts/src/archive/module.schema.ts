import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals, subtree } from '../common/list';
import { codeText, optionalText } from '../common/validation';
import { choice, DEVICE_TYPES, WORKING_MODES } from './enums';

const fields = {
  moduleNo: field(codeText(50), { widget: 'text', unique: true }),
  deviceType: choice('module', 'deviceType', 'deviceTypes', DEVICE_TYPES),
  workingMode: choice('module', 'workingMode', 'workingModes', WORKING_MODES).default('client'),
  commAddress: field(optionalText(100), { widget: 'text' }),
  simNo: field(
    z
      .string()
      .trim()
      .max(30, 'tooLong')
      .regex(/^[0-9]*$/, 'digitsOnly')
      .default(''),
    { widget: 'text' },
  ),
  gridId: field(IdSchema, { widget: 'treeSelect', lookup: 'gridTree' }),
  remark: field(optionalText(500), { widget: 'textarea' }),
};

export const ModuleSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    gridName: field(z.string(), { widget: 'text' }),
    /** The serial of the meter the module serves; empty while it serves none. */
    devAddr: field(z.string(), { widget: 'text' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Module = z.infer<typeof ModuleSchema>;

export const ModuleCreateSchema = z.strictObject(fields);
export type ModuleCreate = z.infer<typeof ModuleCreateSchema>;

export const moduleEntity = defineEntity({
  name: 'module',
  record: ModuleSchema,
  create: ModuleCreateSchema,
  pagePath: '/archiveSetting/module',
  columns: [
    { field: 'moduleNo', sortable: true, width: 140 },
    { field: 'deviceType', sortable: true, width: 230 },
    { field: 'workingMode', width: 120 },
    { field: 'simNo', sortable: true, width: 190 },
    { field: 'commAddress', width: 200 },
    { field: 'devAddr', width: 160 },
    { field: 'gridName', width: 140 },
  ],
  filters: [
    contains('moduleNo', 50),
    contains('simNo', 30),
    equals(
      'deviceType',
      z.union(
        DEVICE_TYPES.map((value) => z.literal(value)),
        'invalidValue',
      ),
    ),
    equals('workingMode', z.enum(WORKING_MODES, 'invalidValue')),
    subtree('gridId'),
  ],
  detail: [
    'moduleNo',
    'deviceType',
    'workingMode',
    'commAddress',
    'simNo',
    'devAddr',
    'gridName',
    'remark',
    'createTime',
    'updateTime',
  ],
});
export type ModuleListQuery = z.infer<typeof moduleEntity.listQuery>;
