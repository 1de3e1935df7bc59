import type { syslogApi, UserStatus } from '@meterdesk/contracts';
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
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';

const id = () => varchar({ length: 32 }).primaryKey();
const ref = () => varchar({ length: 32 });
const createdAt = () => timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow();

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
  (t) => [uniqueIndex('sys_resource_uri_uq').on(t.resourceUri), index('sys_resource_parent_idx').on(t.parentId)],
);

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
  (t) => [uniqueIndex('sys_org_name_uq').on(t.orgName)],
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
  (t) => [uniqueIndex('sys_role_name_uq').on(t.roleName)],
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
  (t) => [uniqueIndex('sys_user_username_uq').on(t.username)],
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

/** Server-side sessions; only a SHA-256 of the cookie's token is stored. */
export const sysSession = pgTable(
  'sys_session',
  {
    tokenHash: varchar({ length: 64 }).primaryKey(),
    userId: ref()
      .notNull()
      .references(() => sysUser.id, { onDelete: 'cascade' }),
    createTime: createdAt(),
    lastSeenAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    ip: varchar({ length: 64 }).notNull().default(''),
    ua: varchar({ length: 500 }).notNull().default(''),
  },
  (t) => [index('sys_session_user_idx').on(t.userId)],
);

export const sysCaptcha = pgTable('sys_captcha', {
  id: id(),
  answer: varchar({ length: 16 }).notNull(),
  expiresAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
});

export type LogType = (typeof syslogApi.LOG_TYPES)[number];

export const sysLog = pgTable(
  'sys_log',
  {
    id: id(),
    logType: varchar({ length: 16 }).$type<LogType>().notNull(),
    username: varchar({ length: 50 }).notNull().default(''),
    operatingType: varchar({ length: 16 }).notNull().default(''),
    logLevel: varchar({ length: 8 }).notNull().default('info'),
    content: text().notNull().default(''),
    result: integer().notNull().default(200),
    ip: varchar({ length: 64 }).notNull().default(''),
    ua: varchar({ length: 500 }).notNull().default(''),
    os: varchar({ length: 64 }).notNull().default(''),
    browser: varchar({ length: 64 }).notNull().default(''),
    requestUrl: varchar({ length: 300 }).notNull().default(''),
    time: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('sys_log_time_idx').on(t.time),
    index('sys_log_type_time_idx').on(t.logType, t.time),
    index('sys_log_user_time_idx').on(t.username, t.time),
  ],
);

/** Notices sent to users; the header's unread badge counts them (spec §3 Notice). */
export const sysNotice = pgTable(
  'sys_notice',
  {
    id: id(),
    noticeBatchId: varchar({ length: 32 }).notNull(),
    noticeType: smallint().notNull().default(0),
    noticeTitle: varchar({ length: 200 }).notNull(),
    noticeContent: text().notNull().default(''),
    sendUsername: varchar({ length: 50 }).notNull(),
    recUsername: varchar({ length: 50 }).notNull(),
    /** 0 unread, 1 read */
    noticeFlag: smallint().notNull().default(0),
    sendTime: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    readTime: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('sys_notice_unread_idx').on(t.recUsername).where(sql`notice_flag = 0`),
    index('sys_notice_batch_idx').on(t.noticeBatchId),
  ],
);

/** The power grid hierarchy; the archive issue adds its management page and more columns. */
export const powerGrid = pgTable(
  'power_grid',
  {
    id: id(),
    gridName: varchar({ length: 50 }).notNull(),
    gridType: smallint().notNull().default(0),
    parentId: varchar({ length: 32 }).notNull(),
    remark: varchar({ length: 500 }).notNull().default(''),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [uniqueIndex('power_grid_name_uq').on(t.gridName), index('power_grid_parent_idx').on(t.parentId)],
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
  (t) => [uniqueIndex('sys_group_name_uq').on(t.groupName), uniqueIndex('sys_group_code_uq').on(t.groupCode)],
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

export const sysNoticeTemplate = pgTable('sys_notice_template', {
  id: id(),
  templateName: varchar({ length: 100 }).notNull(),
  noticeType: smallint().notNull().default(0),
  noticeTitle: varchar({ length: 200 }).notNull(),
  noticeContent: text().notNull().default(''),
  orderNum: integer().notNull().default(0),
});

/** Settings that exist once (SMTP, command time-out): a key and a JSON value. */
export const sysParameter = pgTable('sys_parameter', {
  key: varchar({ length: 64 }).primaryKey(),
  value: jsonb().notNull(),
  updateTime: updatedAt(),
});

export const sysDataItem = pgTable(
  'sys_data_item',
  {
    id: id(),
    itemName: varchar({ length: 100 }).notNull(),
    itemNameEn: varchar({ length: 100 }).notNull(),
    obis: varchar({ length: 32 }).notNull(),
    classId: smallint().notNull(),
    unit: varchar({ length: 16 }).notNull().default(''),
    enabled: boolean().notNull().default(true),
    orderNum: integer().notNull().default(0),
  },
  (t) => [uniqueIndex('sys_data_item_obis_uq').on(t.obis)],
);

export const sysTariffConfig = pgTable('sys_tariff_config', {
  id: id(),
  tariffValidCount: integer().notNull(),
  tariffDays: integer().notNull(),
  tariffWeeks: integer().notNull(),
  tariffSeasons: integer().notNull(),
  tariffSpecialDays: integer().notNull(),
  updateTime: updatedAt(),
});
