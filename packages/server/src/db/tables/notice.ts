import { sql } from 'drizzle-orm';
import { index, integer, pgTable, smallint, text, timestamp, varchar } from 'drizzle-orm/pg-core';
import { id } from './columns';

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

export const sysNoticeTemplate = pgTable('sys_notice_template', {
  id: id(),
  templateName: varchar({ length: 100 }).notNull(),
  noticeType: smallint().notNull().default(0),
  noticeTitle: varchar({ length: 200 }).notNull(),
  noticeContent: text().notNull().default(''),
  orderNum: integer().notNull().default(0),
});
