import type { UserStatus } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import {
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  timestamp,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { sysRole } from './access';
import { createdAt, id, ref, updatedAt } from './columns';
import { powerGrid } from './grid';

export const sysOrg = pgTable(
  'sys_org',
  {
    id: id(),
    orgName: varchar({ length: 50 }).notNull(),
    orgCode: varchar({ length: 50 }).notNull().default(''),
    pid: varchar({ length: 32 }).notNull(),
    remark: varchar({ length: 500 }).notNull().default(''),
    extendInfo: jsonb().$type<Record<string, string>>().notNull().default({}),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('sys_org_name_uq').on(sql`lower(${t.orgName})`),
    uniqueIndex('sys_org_code_uq').on(sql`lower(${t.orgCode})`),
  ],
);

export const sysUser = pgTable(
  'sys_user',
  {
    id: id(),
    username: varchar({ length: 50 }).notNull(),
    passwordHash: varchar({ length: 200 }).notNull(),
    fullName: varchar({ length: 100 }).notNull().default(''),
    phone: varchar({ length: 30 }).notNull().default(''),
    email: varchar({ length: 100 }).notNull().default(''),
    address: varchar({ length: 200 }).notNull().default(''),
    gender: smallint().notNull().default(0),
    status: varchar({ length: 16 }).$type<UserStatus>().notNull().default('enabled'),
    birthday: date({ mode: 'string' }),
    expiryDate: timestamp({ withTimezone: true, mode: 'date' }),
    remark: varchar({ length: 500 }).notNull().default(''),
    orgId: ref().references(() => sysOrg.id),
    language: smallint().notNull().default(1),
    failedLogins: integer().notNull().default(0),
    lockedUntil: timestamp({ withTimezone: true, mode: 'date' }),
    mustChangePassword: boolean().notNull().default(false),
    subMeterEventFlag: boolean().notNull().default(false),
    subEmailFlag: boolean().notNull().default(false),
    subMsgFlag: boolean().notNull().default(true),
    subSpecialUserEventFlag: boolean().notNull().default(false),
    subExceptionFlag: boolean().notNull().default(false),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [uniqueIndex('sys_user_username_uq').on(sql`lower(${t.username})`)],
);

export const sysUserRole = pgTable(
  'sys_user_role',
  {
    userId: ref()
      .notNull()
      .references(() => sysUser.id, { onDelete: 'cascade' }),
    roleId: ref()
      .notNull()
      .references(() => sysRole.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.roleId] }), index('sys_user_role_role_idx').on(t.roleId)],
);

export const sysGroup = pgTable(
  'sys_group',
  {
    id: id(),
    groupName: varchar({ length: 50 }).notNull(),
    groupCode: varchar({ length: 50 }).notNull(),
    gridId: ref()
      .notNull()
      .references(() => powerGrid.id),
    remark: varchar({ length: 500 }).notNull().default(''),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('sys_group_name_uq').on(sql`lower(${t.groupName})`),
    uniqueIndex('sys_group_code_uq').on(sql`lower(${t.groupCode})`),
  ],
);

export const sysUserGroup = pgTable(
  'sys_user_group',
  {
    userId: ref()
      .notNull()
      .references(() => sysUser.id, { onDelete: 'cascade' }),
    groupId: ref()
      .notNull()
      .references(() => sysGroup.id),
  },
  (t) => [primaryKey({ columns: [t.userId, t.groupId] }), index('sys_user_group_group_idx').on(t.groupId)],
);
