import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals, subtree } from '../common/list';
import { codeText, optionalText } from '../common/validation';
import { choice, DEVICE_TYPES, WORKING_MODES } from './enums';

const fields = {
  moduleNo: field(codeText(50), { label: 'module.fields.moduleNo', widget: 'text', unique: true }),
  deviceType: choice('module', 'deviceType', 'deviceTypes', DEVICE_TYPES),
  workingMode: choice('module', 'workingMode', 'workingModes', WORKING_MODES).default('client'),
  commAddress: field(optionalText(100), { label: 'module.fields.commAddress', widget: 'text' }),
  simNo: field(
    z
      .string()
      .trim()
      .max(30, 'tooLong')
      .regex(/^[0-9]*$/, 'digitsOnly')
      .default(''),
    { label: 'module.fields.simNo', widget: 'text' },
  ),
  gridId: field(IdSchema, { label: 'module.fields.gridId', widget: 'treeSelect', lookup: 'gridTree' }),
  remark: field(optionalText(500), { label: 'module.fields.remark', widget: 'textarea' }),
};

export const ModuleSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    gridName: field(z.string(), { label: 'module.fields.gridName', widget: 'text' }),
    /** The serial of the meter the module serves; empty while it serves none. */
    devAddr: field(z.string(), { label: 'module.fields.devAddr', widget: 'text' }),
    createTime: field(z.string(), { label: 'module.fields.createTime', widget: 'datetime' }),
    updateTime: field(z.string(), { label: 'module.fields.updateTime', widget: 'datetime' }),
  }),
);
export type Module = z.infer<typeof ModuleSchema>;

export const ModuleCreateSchema = z.strictObject(fields);
export type ModuleCreate = z.infer<typeof ModuleCreateSchema>;

export const moduleEntity = defineEntity({
  name: 'module',
  record: ModuleSchema,
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
  form: ['moduleNo', 'deviceType', 'workingMode', 'commAddress', 'simNo', 'gridId', 'remark'],
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
