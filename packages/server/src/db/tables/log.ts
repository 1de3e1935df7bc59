import type { syslogApi } from '@meterdesk/contracts';
import { index, integer, pgTable, text, timestamp, varchar } from 'drizzle-orm/pg-core';
import { id } from './columns';

export type LogType = (typeof syslogApi.LOG_TYPES)[number];
export type ActorKind = (typeof syslogApi.ACTOR_KINDS)[number];

export const sysLog = pgTable(
  'sys_log',
  {
    id: id(),
    logType: varchar({ length: 16 }).$type<LogType>().notNull(),
    actorKind: varchar({ length: 8 }).$type<ActorKind>().notNull().default('user'),
    /** The actor's name: a username, a job name or a device address. */
    username: varchar({ length: 50 }).notNull().default(''),
    operatingType: varchar({ length: 16 }).notNull().default(''),
    logLevel: varchar({ length: 8 }).notNull().default('info'),
    content: text().notNull().default(''),
    /** The content as operators read it in each language: what the content filter searches. */
    searchText: text().notNull().default(''),
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
