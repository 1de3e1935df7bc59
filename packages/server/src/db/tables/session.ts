import { index, integer, pgTable, primaryKey, timestamp, varchar } from 'drizzle-orm/pg-core';
import { createdAt, id, ref } from './columns';
import { sysUser } from './people';

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

/** Captchas waiting for their answer; the column `answer` keeps only `captchaAnswerHash` of it. */
export const sysCaptcha = pgTable('sys_captcha', {
  id: id(),
  answerHash: varchar('answer', { length: 16 }).notNull(),
  expiresAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
});

/**
 * Failed logins counted per typed username (lower case, whether or not such a user exists) and
 * client address, so one address cannot lock a user out of every other, and an unknown name
 * behaves exactly like a known one. See docs/architecture.md §Sessions and login.
 */
export const sysLoginFailure = pgTable(
  'sys_login_failure',
  {
    username: varchar({ length: 50 }).notNull(),
    ip: varchar({ length: 64 }).notNull(),
    failures: integer().notNull().default(0),
    lastFailureAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lockedUntil: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [primaryKey({ columns: [t.username, t.ip] })],
);
