import { INTERVALS_PER_DAY, REPORTING_METER_STATUSES } from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import { compactArchiveCounts } from '../db/archive-counts';
import type { Db, Executor } from '../db/driver';
import { rowsOf } from '../db/rows';
import { defineJob } from '../jobs/job-system';
import { ensurePartitions } from './partitions';

/** A meter's UTC day whose rollup row must be recomputed. */
export interface RollupKey {
  meterId: string;
  day: string;
}

const DAY_MS = 86_400_000;

/**
 * The UTC day numbers (days since 1970-01-01) whose rollups a row changes. A profile row is stamped
 * with its interval's end (run-items.ts): a day's 96 intervals are those of (00:00, 24:00], so the row
 * of 24:00 is the day's last, not the next day's first. Events are instants: [00:00, 24:00). A daily
 * frozen row changes two days: its own (daily(D) − daily(D−1)) and the next (daily(D+1) − daily(D)).
 */
const CHANGED_DAYS = {
  profile: { firstDay: (row: { ts: Date }) => Math.floor((row.ts.getTime() - 1) / DAY_MS), days: 1 },
  meterEvents: { firstDay: (row: { ts: Date }) => Math.floor(row.ts.getTime() / DAY_MS), days: 1 },
  daily: { firstDay: (row: { day: string }) => Date.parse(row.day) / DAY_MS, days: 2 },
} as const;

type ChangedPart = keyof typeof CHANGED_DAYS;

/**
 * The (meter, day) keys a batch's rows change, each once. Rows come in runs of one meter's days (a
 * push holds a meter's intervals together), so only a change of meter or day reaches the sets.
 */
export function changedKeys(
  batch: {
    [P in ChangedPart]?: readonly (Parameters<(typeof CHANGED_DAYS)[P]['firstDay']>[0] & { meterId: string })[];
  },
): RollupKey[] {
  const seen = new Map<string, Set<number>>();
  for (const part of Object.keys(CHANGED_DAYS) as ChangedPart[]) {
    const firstDay = CHANGED_DAYS[part].firstDay as (row: unknown) => number;
    const span = CHANGED_DAYS[part].days;
    let meterId: string | null = null;
    let days = new Set<number>();
    let lastDay = Number.NaN;
    for (const row of batch[part] ?? []) {
      if (row.meterId !== meterId) {
        meterId = row.meterId;
        days = seen.get(meterId) ?? new Set();
        seen.set(meterId, days);
        lastDay = Number.NaN;
      }
      const day = firstDay(row);
      if (day === lastDay) continue;
      lastDay = day;
      for (let d = 0; d < span; d++) days.add(day + d);
    }
  }
  const keys: RollupKey[] = [];
  for (const [meterId, days] of seen)
    for (const day of days) keys.push({ meterId, day: new Date(day * DAY_MS).toISOString().slice(0, 10) });
  return keys;
}

/**
 * Marks `keys` for the rollup job, in key order (two writers marking the same keys lock them alike);
 * a key already waiting stays one row. Part of the write's transaction: the rows and their marks
 * commit together.
 */
export async function markPending(tx: Executor, keys: readonly RollupKey[]): Promise<void> {
  if (!keys.length) return;
  await tx.execute(
    sql`insert into rollup_pending (meter_id, day)
      select meter_id, day from json_to_recordset(${JSON.stringify(keys.map((k) => ({ meter_id: k.meterId, day: k.day })))}::json)
        as k(meter_id varchar, day date)
      order by 1, 2 on conflict do nothing`,
  );
}

/** Keys folded per transaction: large enough to amortise the statements, small enough to keep locks short. */
export const FOLD_BATCH = 5000;

/** The columns of a meter's day, in rollup_meter_day's order after (meter_id, day, grid_id, dcu_id, consumption). */
const DAY_FIGURES = sql.raw(`p.intervals, p.demand_min, p.demand_max, p.demand_avg, e.regular, e.medium, e.severe`);
/** Whether meter `m` is one a report expects to read (rollup_meter_day.reporting). */
const REPORTING = sql.raw(`(m.status in (${REPORTING_METER_STATUSES.join(', ')}) and not m.virtual)`);
const PROFILE_FIGURES = sql.raw(`count(*)::int as intervals, min(p.active_power) as demand_min,
  max(p.active_power) as demand_max, round(avg(p.active_power))::int as demand_avg`);
const EVENT_FIGURES = sql.raw(`count(*) filter (where e.level = 0)::int as regular,
  count(*) filter (where e.level = 1)::int as medium, count(*) filter (where e.level = 2)::int as severe`);

/**
 * A few keys (the incremental fold): each key's rows read on the (meter_id, time) key, one index
 * range per table.
 */
function keyedDays(keys: readonly RollupKey[]): { old: SQL; computed: SQL } {
  const keyJson = JSON.stringify(keys.map((k) => ({ meter_id: k.meterId, day: k.day })));
  // A UTC day whatever the session's time zone says.
  const start = sql.raw(`(k.day::timestamp at time zone 'UTC')`);
  const end = sql.raw(`((k.day + 1)::timestamp at time zone 'UTC')`);
  return {
    old: sql`keys as (select * from jsonb_to_recordset(${keyJson}::jsonb) as k(meter_id varchar, day date)),
      old as (select r.grid_id, r.dcu_id, r.day from rollup_meter_day r join keys k on r.meter_id = k.meter_id and r.day = k.day)`,
    computed: sql`select k.meter_id, k.day, m.grid_id, m.dcu_id,
        (select d.active_import from reading_daily d where d.meter_id = k.meter_id and d.day = k.day)
          - (select d.active_import from reading_daily d where d.meter_id = k.meter_id and d.day = k.day - 1),
        ${DAY_FIGURES}, ${REPORTING}
      from keys k
      join meter m on m.id = k.meter_id
      cross join lateral (select ${PROFILE_FIGURES} from reading_profile p
        where p.meter_id = k.meter_id and p.ts > ${start} and p.ts <= ${end}) p
      cross join lateral (select ${EVENT_FIGURES} from meter_event e
        where e.meter_id = k.meter_id and e.ts >= ${start} and e.ts < ${end}) e`,
  };
}

/**
 * Every meter of one day (a backfill): the day's rows read once each, grouped by meter, which costs a
 * scan of the day instead of an index probe per meter and table.
 */
function wholeDay(day: string): { old: SQL; computed: SQL } {
  const start = sql`(${day}::date::timestamp at time zone 'UTC')`;
  const end = sql`((${day}::date + 1)::timestamp at time zone 'UTC')`;
  return {
    old: sql`p as (select p.meter_id, ${PROFILE_FIGURES} from reading_profile p
        where p.ts > ${start} and p.ts <= ${end} group by p.meter_id),
      e as (select e.meter_id, ${EVENT_FIGURES} from meter_event e
        where e.ts >= ${start} and e.ts < ${end} group by e.meter_id),
      d as (select meter_id, active_import from reading_daily where day = ${day}::date),
      b as (select meter_id, active_import from reading_daily where day = ${day}::date - 1),
      keys as (select meter_id from p union select meter_id from e union select meter_id from d
        union select meter_id from b),
      old as (select r.grid_id, r.dcu_id, r.day from rollup_meter_day r where r.day = ${day}::date)`,
    computed: sql`select k.meter_id, ${day}::date, m.grid_id, m.dcu_id, d.active_import - b.active_import,
        coalesce(p.intervals, 0), p.demand_min, p.demand_max, p.demand_avg,
        coalesce(e.regular, 0), coalesce(e.medium, 0), coalesce(e.severe, 0), ${REPORTING}
      from keys k
      join meter m on m.id = k.meter_id
      left join p on p.meter_id = k.meter_id
      left join e on e.meter_id = k.meter_id
      left join d on d.meter_id = k.meter_id
      left join b on b.meter_id = k.meter_id`,
  };
}

/**
 * Recomputes the meter rows of some days from the raw rows, and the grid and DCU rows they touch: the
 * same keys folded twice give the same rows. Runs in the caller's transaction; answers the meter rows written.
 */
async function recompute(tx: Executor, { old, computed }: { old: SQL; computed: SQL }): Promise<number> {
  // A meter moved to another node or DCU since its row was computed leaves its old one's row to recompute too.
  const touched = await rowsOf<{ kind: 'grid' | 'dcu'; id: string; day: string; meters: number }>(
    tx,
    sql`with ${old},
      upserted as (
        insert into rollup_meter_day as r (meter_id, day, grid_id, dcu_id, consumption, intervals, demand_min,
          demand_max, demand_avg, events_regular, events_medium, events_severe, reporting)
        ${computed}
        on conflict (meter_id, day) do update set grid_id = excluded.grid_id, dcu_id = excluded.dcu_id,
          consumption = excluded.consumption,
          intervals = excluded.intervals, demand_min = excluded.demand_min, demand_max = excluded.demand_max,
          demand_avg = excluded.demand_avg, events_regular = excluded.events_regular,
          events_medium = excluded.events_medium, events_severe = excluded.events_severe,
          reporting = excluded.reporting, updated_at = now()
        returning r.meter_id, r.grid_id, r.dcu_id, r.day, r.intervals
      ),
      last_read as (
        insert into meter_last_read as l (meter_id, last_day)
        select meter_id, max(day) from upserted where intervals > 0 group by meter_id order by meter_id
        on conflict (meter_id) do update set last_day = greatest(l.last_day, excluded.last_day)
      ),
      changed as (select grid_id, dcu_id, day, 1 as meters from upserted
        union all select grid_id, dcu_id, day, 0 from old)
      select 'grid' as kind, grid_id as id, day::text as day, sum(meters)::int as meters from changed group by grid_id, day
      union all
      select 'dcu', dcu_id, day::text, 0 from changed where dcu_id is not null group by dcu_id, day`,
  );
  const nodes = touched.filter((row) => row.kind === 'grid');
  if (nodes.length === 0) return 0;
  await recomputeGrids(tx, nodes);
  await recomputeDcus(
    tx,
    touched.filter((row) => row.kind === 'dcu'),
  );
  return nodes.reduce((sum, node) => sum + node.meters, 0);
}

/** A grid or DCU row's intervals and complete meters: of its meters expected to report only. */
const REPORTED_FIGURES = sql.raw(`coalesce(sum(r.intervals) filter (where r.reporting), 0),
  (count(*) filter (where r.reporting and r.intervals >= ${INTERVALS_PER_DAY}))::int`);

/**
 * Grid rows from their meters' rows. The CTE above cannot see its own upserts, so this is its own
 * statement; a node left without meter rows loses its row.
 */
async function recomputeGrids(tx: Executor, nodes: readonly { id: string; day: string }[]): Promise<void> {
  if (nodes.length === 0) return;
  const nodeJson = JSON.stringify(nodes.map((n) => ({ grid_id: n.id, day: n.day })));
  await tx.execute(
    sql`with nodes as (select * from jsonb_to_recordset(${nodeJson}::jsonb) as n(grid_id varchar, day date)),
      gone as (delete from rollup_grid_day g using nodes n where g.grid_id = n.grid_id and g.day = n.day)
      insert into rollup_grid_day (grid_id, day, meters, consumption, meters_with_consumption, intervals,
        meters_complete, demand_max, events_regular, events_medium, events_severe, updated_at)
      select r.grid_id, r.day, count(*)::int, coalesce(sum(r.consumption), 0), count(r.consumption)::int,
        ${REPORTED_FIGURES}, max(r.demand_max),
        sum(r.events_regular)::int, sum(r.events_medium)::int, sum(r.events_severe)::int, now()
      from nodes n join rollup_meter_day r on r.grid_id = n.grid_id and r.day = n.day
      group by r.grid_id, r.day
      on conflict (grid_id, day) do update set meters = excluded.meters, consumption = excluded.consumption,
        meters_with_consumption = excluded.meters_with_consumption, intervals = excluded.intervals,
        meters_complete = excluded.meters_complete, demand_max = excluded.demand_max, events_regular = excluded.events_regular,
        events_medium = excluded.events_medium, events_severe = excluded.events_severe, updated_at = now()`,
  );
}

/** DCU rows from their meters' rows, as recomputeGrids does for grid rows. */
async function recomputeDcus(tx: Executor, dcus: readonly { id: string; day: string }[]): Promise<void> {
  if (dcus.length === 0) return;
  const dcuJson = JSON.stringify(dcus.map((d) => ({ dcu_id: d.id, day: d.day })));
  await tx.execute(
    sql`with dcus as (select * from jsonb_to_recordset(${dcuJson}::jsonb) as d(dcu_id varchar, day date)),
      gone as (delete from rollup_dcu_day g using dcus d where g.dcu_id = d.dcu_id and g.day = d.day)
      insert into rollup_dcu_day (dcu_id, day, meters, intervals, meters_complete, updated_at)
      select r.dcu_id, r.day, count(*)::int, ${REPORTED_FIGURES}, now()
      from dcus d join rollup_meter_day r on r.dcu_id = d.dcu_id and r.day = d.day
      group by r.dcu_id, r.day
      on conflict (dcu_id, day) do update set meters = excluded.meters, intervals = excluded.intervals,
        meters_complete = excluded.meters_complete, updated_at = now()`,
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
      await rollupPartitionsFor(
        tx,
        taken.map((k) => k.day),
      );
      await recompute(tx, keyedDays(taken.map((k) => ({ meterId: k.meter_id, day: k.day }))));
      return taken.length;
    });
    folded += n;
    if (n < batch) return folded;
  }
}

/**
 * The grid and DCU rows of `days` for `gridIds` and `dcuIds`, from their meters' rows alone: for a bulk
 * load that wrote rollup_meter_day itself (the scale seed's history), which the fold would otherwise
 * reach only key by key. Runs in the caller's transaction.
 */
export async function rollupNodes(
  tx: Executor,
  { gridIds, dcuIds, days }: { gridIds: readonly string[]; dcuIds: readonly string[]; days: readonly string[] },
): Promise<void> {
  const each = (ids: readonly string[]) => ids.flatMap((id) => days.map((day) => ({ id, day })));
  await recomputeGrids(tx, each(gridIds));
  await recomputeDcus(tx, each(dcuIds));
}

/**
 * Rolls up every meter's day from raw rows at once (a backfill, or a day after a bulk load that
 * bypassed the writer); answers the meters rolled up. Keys of that day still waiting are left: folding
 * them again later recomputes the same rows.
 */
export function rollupDay(db: Db, day: string): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('reading rollups'))`);
    // A whole day groups every meter's rows at once: room to hash them in memory rather than sort on disk.
    await tx.execute(sql`set local work_mem = '64MB'`);
    await rollupPartitionsFor(tx, [day]);
    return recompute(tx, wholeDay(day));
  });
}

/**
 * The months of rollup_meter_day that `days` fall in, made where missing: most are made ahead with
 * the readings', but a daily frozen value also changes the day after it, which may open a month no
 * reading has reached yet.
 */
async function rollupPartitionsFor(tx: Executor, days: readonly string[]): Promise<void> {
  let first = days[0] as string;
  let last = first;
  for (const day of days) {
    if (day < first) first = day;
    if (day > last) last = day;
  }
  await ensurePartitions(tx, new Date(first), new Date(last), ['rollup_meter_day']);
}

export const READING_ROLLUPS_JOB = 'reading-rollups';

/**
 * Every minute (pg-boss's finest schedule); stately, so a fold still running when the next minute fires
 * queues one more, not many. The archive's counts are added up on the same beat.
 */
export const readingRollupsJob = (db: Db) =>
  defineJob({
    name: READING_ROLLUPS_JOB,
    schedule: '* * * * *',
    policy: 'stately',
    expireInSeconds: 30 * 60,
    handler: async () => ({ folded: await foldPending(db), archiveCounts: await compactArchiveCounts(db) }),
  });
