import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains } from '../common/list';
import { nameText } from '../common/validation';

const fields = {
  roleName: field(nameText(50), { widget: 'text' }),
  remark: field(z.string().trim().max(500, 'tooLong').default(''), { widget: 'textarea' }),
  resourceIdList: field(z.array(IdSchema).max(2000, 'tooLong').default([]), {
    widget: 'checkTree',
    lookup: 'resourceTree',
    multiple: true,
  }),
};

export const RoleSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    userIdList: z.array(IdSchema),
    userCount: field(z.number().int(), { widget: 'number' }),
    builtIn: field(z.boolean(), { widget: 'switch' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Role = z.infer<typeof RoleSchema>;

export const RoleCreateSchema = z.strictObject(fields);
export type RoleCreate = z.infer<typeof RoleCreateSchema>;
export const RoleUpdateSchema = RoleCreateSchema.extend({ id: IdSchema });

export const roleEntity = defineEntity({
  name: 'role',
  record: RoleSchema,
  create: RoleCreateSchema,
  pagePath: '/sysMGT/roleMGT',
  columns: [
    { field: 'roleName', sortable: true },
    { field: 'userCount', width: 110 },
    { field: 'remark' },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [contains('roleName', 50)],
  detail: ['roleName', 'remark', 'userCount', 'createTime', 'updateTime'],
});

export const RoleListQuerySchema = roleEntity.listQuery;
export type RoleListQuery = z.infer<typeof RoleListQuerySchema>;
