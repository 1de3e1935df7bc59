import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, smallint, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, updatedAt } from './columns';

export const sysResource = pgTable(
  'sys_resource',
  {
    id: id(),
    resourceName: varchar({ length: 50 }).notNull(),
    resourceNameEn: varchar({ length: 50 }).notNull(),
    resourceType: smallint().notNull(),
    resourceUri: varchar({ length: 200 }).notNull(),
    perms: varchar({ length: 100 }).notNull().default(''),
    icon: varchar({ length: 50 }).notNull().default(''),
    parentId: varchar({ length: 32 }).notNull(),
    orderNum: integer().notNull().default(0),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('sys_resource_uri_uq').on(t.resourceUri),
    index('sys_resource_parent_idx').on(t.parentId),
    uniqueIndex('sys_resource_name_uq').on(t.parentId, sql`lower(${t.resourceName})`),
    uniqueIndex('sys_resource_name_en_uq').on(t.parentId, sql`lower(${t.resourceNameEn})`),
  ],
);

export const sysRole = pgTable(
  'sys_role',
  {
    id: id(),
    roleName: varchar({ length: 50 }).notNull(),
    remark: varchar({ length: 500 }).notNull().default(''),
    /** The seeded `admin` role: it receives every resource at each start and cannot be emptied. */
    builtIn: boolean().notNull().default(false),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [uniqueIndex('sys_role_name_uq').on(sql`lower(${t.roleName})`)],
);

export const sysRoleResource = pgTable(
  'sys_role_resource',
  {
    roleId: ref()
      .notNull()
      .references(() => sysRole.id, { onDelete: 'cascade' }),
    resourceId: ref()
      .notNull()
      .references(() => sysResource.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.roleId, t.resourceId] }), index('sys_role_resource_res_idx').on(t.resourceId)],
);
