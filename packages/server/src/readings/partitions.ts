import { sql } from 'drizzle-orm';
import type { Db, Executor } from '../db/driver';
import { rowsOf } from '../db/rows';
import { defineJob } from '../jobs/job-system';

type Span = 'month' | 'year';

/**
 * The time-partitioned tables (migrations 0013, 0022, 0027, 0028 and 0030) and the span of one partition.
 * A month of interval rows is a unit an operator keeps or lets go; frozen monthly values are few, a year
 * each. The meters' day and month rollups, and devices' online time, go with the readings they sum:
 * made and dropped with them.
 */
export const PARTITIONED = {
  reading_profile: 'month',
  reading_daily: 'month',
  reading_monthly: 'year',
  meter_event: 'month',
  dcu_event: 'month',
  link_change: 'month',
  clock_check: 'month',
  rollup_meter_day: 'month',
  rollup_meter_event_day: 'month',
  rollup_online_day: 'month',
  rollup_meter_month: 'year',
} as const satisfies Record<string, Span>;
export type PartitionedTable = keyof typeof PARTITIONED;

/** Months before the current one made at start-up, so recent history (a demo's 30 days) lands. */
export const MONTHS_BEHIND = 2;
/** Months after the current one kept ready, so midnight on the first never finds no partition. */
export const MONTHS_AHEAD = 2;

const startOf = (span: Span, at: Date) =>
  new Date(Date.UTC(at.getUTCFullYear(), span === 'month' ? at.getUTCMonth() : 0, 1));
const next = (span: Span, at: Date) =>
  new Date(Date.UTC(at.getUTCFullYear() + (span === 'year' ? 1 : 0), at.getUTCMonth() + (span === 'month' ? 1 : 0), 1));
const day = (at: Date) => at.toISOString().slice(0, 10);

/** `reading_profile_p202611`, `reading_monthly_p2026`: the name says the range it holds. */
export function partitionName(table: PartitionedTable, start: Date) {
  const year = start.getUTCFullYear();
  return PARTITIONED[table] === 'year'
    ? `${table}_p${year}`
    : `${table}_p${year}${String(start.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The partitions (start of each) that cover [from, to] for a table. */
export function partitionStarts(table: PartitionedTable, from: Date, to: Date): Date[] {
  const span = PARTITIONED[table];
  const starts: Date[] = [];
  for (let at = startOf(span, from); at <= to; at = next(span, at)) starts.push(at);
  return starts;
}

/**
 * Makes the missing partitions of the tables (every partitioned one unless named) covering [from, to];
 * answers how many it made. Bounds are UTC midnights; an advisory lock keeps two servers from making
 * the same one at once.
 */
export async function ensurePartitions(
  db: Executor,
  from: Date,
  to: Date,
  tables: readonly PartitionedTable[] = Object.keys(PARTITIONED) as PartitionedTable[],
): Promise<number> {
  let made = 0;
  for (const table of tables) {
    for (const start of partitionStarts(table, from, to)) {
      const name = partitionName(table, start);
      const end = next(PARTITIONED[table], start);
      const created = await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('reading partitions'))`);
        const [exists] = await rowsOf<{ found: boolean }>(tx, sql`select to_regclass(${name}) is not null as found`);
        if (exists?.found) return false;
        await tx.execute(
          sql.raw(`create table ${name} partition of ${table} for values from ('${day(start)}') to ('${day(end)}')`),
        );
        return true;
      });
      if (created) made++;
    }
  }
  return made;
}

/** The partitions kept ready around `now`: MONTHS_BEHIND before it to MONTHS_AHEAD after. */
export function ensurePartitionsAround(db: Executor, now: Date) {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - MONTHS_BEHIND, 1));
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + MONTHS_AHEAD, 1));
  return ensurePartitions(db, from, to);
}

export const READING_PARTITIONS_JOB = 'reading-partitions';

/** Daily: the months ahead are made long before their first reading arrives. */
export const readingPartitionsJob = (db: Db) =>
  defineJob({
    name: READING_PARTITIONS_JOB,
    schedule: '7 0 * * *',
    policy: 'stately',
    expireInSeconds: 60 * 60,
    handler: async () => ({ made: await ensurePartitionsAround(db, new Date()) }),
  });
