import { customType, timestamp, varchar } from 'drizzle-orm/pg-core';

/** Archive and system ids are 32 hex characters (spec). */
export const id = () => varchar({ length: 32 }).primaryKey();
export const ref = () => varchar({ length: 32 });
export const createdAt = () => timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () => timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** Bytes kept in the database (an upload, a firmware image): the same on PostgreSQL and PGlite. */
export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
});
