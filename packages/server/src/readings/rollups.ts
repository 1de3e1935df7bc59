import { sql } from 'drizzle-orm';
import type { Db, Executor } from '../db/driver';
import { rowsOf } from '../db/rows';
import { rollupPending } from '../db/schema';
import { defineJob } from '../jobs/job-system';
import type { ReadingBatch } from './rows';

const DAY_MS = 86_400_000;
const utcDay = (at: Date) => at.toISOString().slice(0, 10);
const nextDay = (day: string) => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS));

/** A meter's UTC day whose rollup row must be recomputed. */
export interface RollupKey {
  meterId: string;
  day: string;
}

/**
 * The (meter, day) keys the stored rows of a batch change. A daily frozen row changes two days: its
 * own (daily(D) − daily(D−1)) and the next (daily(D+1) − daily(D)).
 */
export function rollupKeys(stored: Pick<ReadingBatch, 'profile' | 'daily' | 'meterEvents'>): RollupKey[] {
  const keys = new Map<string, RollupKey>();
  const add = (meterId: string, day: string) => keys.set(`${meterId}|${day}`, { meterId, day });
  for (const r of stored.profile ?? []) add(r.meterId, utcDay(r.ts));
  for (const r of stored.meterEvents ?? []) add(r.meterId, utcDay(r.ts));
  for (const r of stored.daily ?? []) {
    add(r.meterId, r.day);
    add(r.meterId, nextDay(r.day));
  }
  return [...keys.values()];
}

/** Keys per INSERT: three parameters each, well under PostgreSQL's 65,535. */
const MARK_CHUNK = 5000;

/** Marks keys for the rollup job; a key already waiting stays one row. */
export async function markPending(db: Executor, keys: readonly RollupKey[]): Promise<void> {
  for (let i = 0; i < keys.length; i += MARK_CHUNK)
    await db
      .insert(rollupPending)
      .values(keys.slice(i, i + MARK_CHUNK))
      .onConflictDoNothing();
}

/** Keys folded per transaction: large enough to amortise the statements, small enough to keep locks short. */
export const FOLD_BATCH = 5000;

/**
 * Recomputes the meter rows of `keys` and the grid rows they touch from the raw rows: the same keys
 * folded twice give the same rows. Runs in the caller's transaction.
 */
async function recompute(tx: Executor, keys: readonly RollupKey[]): Promise<number> {
  const keyJson = JSON.stringify(keys.map((k) => ({ meter_id: k.meterId, day: k.day })));
  // A UTC day whatever the session's time zone says.
  const start = sql.raw(`(k.day::timestamp at time zone 'UTC')`);
  const end = sql.raw(`((k.day + 1)::timestamp at time zone 'UTC')`);
  // A meter moved to another node since its row was computed leaves its old node's row to recompute too.
  const touched = await rowsOf<{ grid_id: string; day: string }>(
    tx,
    sql`with keys as (select * from jsonb_to_recordset(${keyJson}::jsonb) as k(meter_id varchar, day date)),
      old as (select r.grid_id, r.day from rollup_meter_day r join keys k on r.meter_id = k.meter_id and r.day = k.day),
      computed as (
        select k.meter_id, k.day, m.grid_id,
          (select d.active_import from reading_daily d where d.meter_id = k.meter_id and d.day = k.day)
            - (select d.active_import from reading_daily d where d.meter_id = k.meter_id and d.day = k.day - 1) as consumption,
          p.intervals, p.demand_min, p.demand_max, p.demand_avg, e.regular, e.medium, e.severe
        from keys k
        join meter m on m.id = k.meter_id
        cross join lateral (
          select count(*)::int as intervals, min(p.active_power) as demand_min, max(p.active_power) as demand_max,
            round(avg(p.active_power))::int as demand_avg
          from reading_profile p where p.meter_id = k.meter_id and p.ts >= ${start} and p.ts < ${end}) p
        cross join lateral (
          select count(*) filter (where e.level = 0)::int as regular, count(*) filter (where e.level = 1)::int as medium,
            count(*) filter (where e.level = 2)::int as severe
          from meter_event e where e.meter_id = k.meter_id and e.ts >= ${start} and e.ts < ${end}) e
      ),
      upserted as (
        insert into rollup_meter_day as r (meter_id, day, grid_id, consumption, intervals, demand_min, demand_max,
          demand_avg, events_regular, events_medium, events_severe, updated_at)
        select c.*, now() from computed c
        on conflict (meter_id, day) do update set grid_id = excluded.grid_id, consumption = excluded.consumption,
          intervals = excluded.intervals, demand_min = excluded.demand_min, demand_max = excluded.demand_max,
          demand_avg = excluded.demand_avg, events_regular = excluded.events_regular,
          events_medium = excluded.events_medium, events_severe = excluded.events_severe, updated_at = now()
        returning r.grid_id, r.day
      )
      select distinct grid_id, day::text as day from (select * from upserted union all select * from old) t`,
  );
  if (touched.length === 0) return 0;
  await recomputeGrids(tx, touched);
  return keys.length;
}

/**
 * Grid rows from their meters' rows. The CTE above cannot see its own upserts, so this is its own
 * statement; a node left without meter rows loses its row.
 */
async function recomputeGrids(tx: Executor, nodes: readonly { grid_id: string; day: string }[]): Promise<void> {
  const nodeJson = JSON.stringify(nodes);
  await tx.execute(
    sql`with nodes as (select * from jsonb_to_recordset(${nodeJson}::jsonb) as n(grid_id varchar, day date)),
      gone as (delete from rollup_grid_day g using nodes n where g.grid_id = n.grid_id and g.day = n.day)
      insert into rollup_grid_day (grid_id, day, meters, consumption, meters_with_consumption, intervals, demand_max,
        events_regular, events_medium, events_severe, updated_at)
      select r.grid_id, r.day, count(*)::int, coalesce(sum(r.consumption), 0), count(r.consumption)::int,
        sum(r.intervals), max(r.demand_max), sum(r.events_regular)::int, sum(r.events_medium)::int,
        sum(r.events_severe)::int, now()
      from nodes n join rollup_meter_day r on r.grid_id = n.grid_id and r.day = n.day
      group by r.grid_id, r.day
      on conflict (grid_id, day) do update set meters = excluded.meters, consumption = excluded.consumption,
        meters_with_consumption = excluded.meters_with_consumption, intervals = excluded.intervals,
        demand_max = excluded.demand_max, events_regular = excluded.events_regular,
        events_medium = excluded.events_medium, events_severe = excluded.events_severe, updated_at = now()`,
  );
}

/**
 * Folds waiting keys into the rollups, a batch per transaction, until none wait; answers how many it
 * folded. Taking a key deletes it in the same transaction that writes its rows, so a crash leaves it
 * waiting, and a write that marks it again meanwhile waits for the delete and leaves a fresh mark for
 * the next round. One fold at a time (an advisory lock): two folds recomputing the same grid row from
 * different snapshots could leave the older one last.
 */
export async function foldPending(db: Db, batch = FOLD_BATCH): Promise<number> {
  let folded = 0;
  for (;;) {
    const n = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('reading rollups'))`);
      const taken = await rowsOf<{ meter_id: string; day: string }>(
        tx,
        sql`delete from rollup_pending where (meter_id, day) in (
              select meter_id, day from rollup_pending order by marked_at limit ${batch})
            returning meter_id, day::text as day`,
      );
      if (taken.length === 0) return 0;
      await recompute(
        tx,
        taken.map((k) => ({ meterId: k.meter_id, day: k.day })),
      );
      return taken.length;
    });
    folded += n;
    if (n < batch) return folded;
  }
}

/**
 * Rolls up every meter's day from raw rows at once (a backfill, or a day after a bulk load that
 * bypassed the writer); the same statements as the incremental fold, over every meter with rows that day.
 */
export async function rollupDay(db: Db, day: string, batch = 20_000): Promise<number> {
  const meters = await rowsOf<{ meter_id: string }>(
    db,
    sql`select distinct meter_id from reading_daily where day in (${day}::date, ${day}::date - 1)
        union select distinct meter_id from reading_profile
          where ts >= (${day}::date::timestamp at time zone 'UTC')
            and ts < ((${day}::date + 1)::timestamp at time zone 'UTC')`,
  );
  for (let i = 0; i < meters.length; i += batch)
    await db.transaction((tx) =>
      recompute(
        tx,
        meters.slice(i, i + batch).map((m) => ({ meterId: m.meter_id, day })),
      ),
    );
  return meters.length;
}

export const READING_ROLLUPS_JOB = 'reading-rollups';

/** Every minute (pg-boss's finest schedule); stately, so a fold still running when the next minute fires queues one more, not many. */
export const readingRollupsJob = (db: Db) =>
  defineJob({
    name: READING_ROLLUPS_JOB,
    schedule: '* * * * *',
    policy: 'stately',
    expireInSeconds: 30 * 60,
    handler: async () => ({ folded: await foldPending(db) }),
  });
