import { inArray, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from './driver';

/**
 * Deletes the rows matching `where` a batch at a time, so a purge of a large table holds its
 * locks (and, on PGlite, the one session) for short moments instead of one long statement.
 * Returns how many rows went.
 */
export async function deleteInBatches(
  db: Executor,
  table: PgTable,
  key: PgColumn,
  where: SQL,
  batchSize = 1000,
): Promise<number> {
  let total = 0;
  for (;;) {
    const batch = db.select({ key }).from(table).where(where).limit(batchSize);
    const deleted = await db.delete(table).where(inArray(key, batch)).returning({ key });
    total += deleted.length;
    if (deleted.length < batchSize) return total;
  }
}
