import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type * as schema from './schema';

/**
 * The query types, apart from the driver so that what the driver is built from (`bulk-insert.ts`) can
 * name them without importing it. Business code takes them from `db/driver.ts`, which re-exports them.
 */
type Schema = typeof schema;
/** The one query interface business code sees, whatever runs underneath. */
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Executor = Db | Tx;
