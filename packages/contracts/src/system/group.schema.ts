import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains } from '../common/list';
import { codeText, nameText } from '../common/validation';

const fields = {
  groupName: field(nameText(50), { widget: 'text', unique: true }),
  groupCode: field(codeText(50), { widget: 'text', unique: true }),
  gridId: field(IdSchema, { widget: 'treeSelect', lookup: 'gridTree' }),
  remark: field(z.string().trim().max(500, 'tooLong').default(''), {
    widget: 'textarea',
  }),
};

export const GroupSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    gridName: field(z.string(), { widget: 'text' }),
    userCount: field(z.number().int(), { widget: 'number' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Group = z.infer<typeof GroupSchema>;

export const GroupCreateSchema = z.strictObject(fields);
export type GroupCreate = z.infer<typeof GroupCreateSchema>;
export const GroupUpdateSchema = GroupCreateSchema.extend({ id: IdSchema });

export const groupEntity = defineEntity({
  name: 'group',
  record: GroupSchema,
  create: GroupCreateSchema,
  pagePath: '/sysMGT/userGroupMGT',
  columns: [
    { field: 'groupName', sortable: true },
    { field: 'groupCode', sortable: true },
    { field: 'gridName', sortable: true },
    { field: 'userCount', width: 110 },
    { field: 'remark' },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [contains('groupName', 50), contains('groupCode', 50), contains('gridName', 50)],
  detail: ['groupName', 'groupCode', 'gridName', 'userCount', 'remark', 'createTime', 'updateTime'],
});

export const GroupListQuerySchema = groupEntity.listQuery;
export type GroupListQuery = z.infer<typeof GroupListQuerySchema>;

/** Power grid levels (DOMAIN: region → substation → feeder → transformer area). */
export const GRID_TYPES = [0, 1, 2, 3] as const;
