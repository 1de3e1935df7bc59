import { and, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { readingDaily, readingMonthly, readingProfile } from '../../db/schema';
import { type ItemKind, storedKey } from './run-items';

/*
 * What the readings tables hold of a run's capture times: which ones each meter has (what a repair asks
 * again) and how many (what a run counts as received).
 */

type StoredKind = Exclude<ItemKind, 'events'>;

const TABLES = {
  profile: { table: readingProfile, key: readingProfile.ts, meter: readingProfile.meterId },
  daily: { table: readingDaily, key: readingDaily.day, meter: readingDaily.meterId },
  monthly: { table: readingMonthly, key: readingMonthly.month, meter: readingMonthly.meterId },
} as const;

/** The stored capture times (as the grid's times) of each meter within the expected ones. */
export async function storedTimes(db: Executor, kind: StoredKind, meterIds: string[], expected: number[]) {
  const { table, key, meter: meterColumn } = TABLES[kind];
  const byKey = new Map(expected.map((ts) => [storedKey(kind, ts), ts]));
  const first = expected[0] as number;
  const last = expected.at(-1) as number;
  const rows = await db
    .select({ meterId: meterColumn, key: sql<string>`${key}` })
    .from(table)
    .where(and(inArray(meterColumn, meterIds), keyBetween(kind, first, last)));
  const out = new Map<string, Set<number>>();
  for (const row of rows) {
    const ts = byKey.get(kind === 'profile' ? new Date(row.key).toISOString() : String(row.key).slice(0, 10));
    if (ts === undefined) continue;
    const set = out.get(row.meterId) ?? new Set<number>();
    set.add(ts);
    out.set(row.meterId, set);
  }
  return out;
}

/** How many of the expected capture times each meter has stored (profile rows off the quarter-hour grid aside). */
export async function storedCounts(db: Executor, kind: StoredKind, meterIds: string[], expected: number[]) {
  const { table, meter: meterColumn } = TABLES[kind];
  const rows = await db
    .select({ meterId: meterColumn, n: sql<number>`count(*)::int` })
    .from(table)
    .where(
      and(
        inArray(meterColumn, meterIds),
        keyBetween(kind, expected[0] as number, expected.at(-1) as number),
        kind === 'profile' ? sql`extract(epoch from ${readingProfile.ts})::bigint % ${15 * 60} = 0` : undefined,
      ),
    )
    .groupBy(meterColumn);
  return new Map(rows.map((r) => [r.meterId, Number(r.n)]));
}

function keyBetween(kind: StoredKind, first: number, last: number) {
  if (kind === 'profile')
    return and(
      sql`${readingProfile.ts} >= ${new Date(first).toISOString()}`,
      sql`${readingProfile.ts} <= ${new Date(last).toISOString()}`,
    );
  const { key } = TABLES[kind];
  return and(sql`${key} >= ${storedKey(kind, first)}`, sql`${key} <= ${storedKey(kind, last)}`);
}
