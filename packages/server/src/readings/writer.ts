import { sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db/driver';
import { databaseError } from '../db/errors';
import {
  clockCheck,
  dcuEvent,
  linkChange,
  meterEvent,
  readingDaily,
  readingMonthly,
  readingProfile,
} from '../db/schema';
import { ensurePartitions } from './partitions';
import { markPending, rollupKeys } from './rollups';
import type { ReadingBatch } from './rows';

/** Each part of a batch, its table and the time that places a row in a partition. */
const PARTS = {
  profile: { table: readingProfile, at: (r: { ts: Date }) => r.ts },
  daily: { table: readingDaily, at: (r: { day: string }) => new Date(r.day) },
  monthly: { table: readingMonthly, at: (r: { month: string }) => new Date(r.month) },
  meterEvents: { table: meterEvent, at: (r: { ts: Date }) => r.ts },
  dcuEvents: { table: dcuEvent, at: (r: { ts: Date }) => r.ts },
  linkChanges: { table: linkChange, at: (r: { ts: Date }) => r.ts },
  clockChecks: { table: clockCheck, at: (r: { ts: Date }) => r.ts },
} as const;

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters at the widest row. */
const CHUNK = 2000;

/** PostgreSQL: no partition of the table holds the row's time. */
const NO_PARTITION = '23514';

/** The parts the rollups read: the keys of their stored rows are marked for the rollup job. */
const ROLLED_UP = new Set<keyof ReadingBatch>(['profile', 'daily', 'meterEvents']);

/**
 * Stores readings once: a row already stored (the same meter and time) is left as it is, so a value
 * re-delivered or re-read is never stored twice. A row for a month without a partition makes it.
 * The (meter, day) keys of the rows it stores are marked for the rollups in the same transaction, so
 * a stored row is never missed by them; a row already stored marks nothing.
 */
export class ReadingWriter {
  constructor(private readonly db: Db) {}

  async write(batch: ReadingBatch): Promise<number> {
    let stored = 0;
    for (const [part, { table, at }] of Object.entries(PARTS) as [
      keyof ReadingBatch,
      (typeof PARTS)[keyof typeof PARTS],
    ][]) {
      const rows = batch[part] as Record<string, unknown>[] | undefined;
      if (!rows?.length) continue;
      for (let i = 0; i < rows.length; i += CHUNK) {
        const chunk = rows.slice(i, i + CHUNK);
        stored += await this.insert(part, table, chunk, () => {
          const times = chunk.map((r) => (at as (r: unknown) => Date)(r).getTime());
          return ensurePartitions(this.db, new Date(Math.min(...times)), new Date(Math.max(...times)));
        });
      }
    }
    return stored;
  }

  private async insert(
    part: keyof ReadingBatch,
    table: PgTable,
    rows: Record<string, unknown>[],
    makePartitions: () => Promise<number>,
  ) {
    const run = () =>
      this.db.transaction(async (tx) => {
        if (!ROLLED_UP.has(part)) {
          const inserted = await tx.insert(table).values(rows).onConflictDoNothing().returning({ one: sql`1` });
          return inserted.length;
        }
        const inserted = (await tx.insert(table).values(rows).onConflictDoNothing().returning()) as never[];
        await markPending(tx, rollupKeys({ [part]: inserted }));
        return inserted.length;
      });
    try {
      return await run();
    } catch (error) {
      if (databaseError(error)?.code !== NO_PARTITION) throw error;
      await makePartitions();
      return run();
    }
  }
}
