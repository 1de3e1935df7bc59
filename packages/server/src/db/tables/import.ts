import { index, integer, jsonb, pgTable, timestamp, varchar } from 'drizzle-orm/pg-core';
import { bytea, createdAt, id } from './columns';

/**
 * An uploaded import and how it went. The file is kept in the database, not on one server's
 * disk, so the job that reads it survives a restart or runs on another instance; it is dropped
 * once the import has finished.
 */
export const archiveImport = pgTable(
  'archive_import',
  {
    id: id(),
    entity: varchar({ length: 32 }).notNull(),
    username: varchar({ length: 50 }).notNull(),
    userId: varchar({ length: 32 }).notNull(),
    language: integer().notNull().default(1),
    fileName: varchar({ length: 200 }).notNull().default(''),
    content: bytea(),
    jobId: varchar({ length: 64 }).notNull().default(''),
    state: varchar({ length: 16 }).notNull().default('queued'),
    total: integer().notNull().default(0),
    done: integer().notNull().default(0),
    imported: integer().notNull().default(0),
    errorCount: integer().notNull().default(0),
    errors: jsonb().notNull().default([]),
    createTime: createdAt(),
    finishTime: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [index('archive_import_user_idx').on(t.username, t.createTime)],
);
