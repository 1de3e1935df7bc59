import { INTERVALS_PER_DAY, REPORTING_METER_STATUSES } from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { compactArchiveCounts } from '../db/archive-counts';
import type { Db, Executor } from '../db/driver';
import { rowsOf } from '../db/rows';
import { defineJob, type JobSystem } from '../jobs/job-system';
import { rollupOnline } from './online-rollups';
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
 * A monthly frozen row (month M) is filed under the day it is captured, the first of M + 1, whose key
 * recomputes the month rows of M and M + 1 (`monthsOf`): both bill the difference of two freezes.
 */
const CHANGED_DAYS = {
  profile: { firstDay: (row: { ts: Date }) => Math.floor((row.ts.getTime() - 1) / DAY_MS), days: 1 },
  meterEvents: { firstDay: (row: { ts: Date }) => Math.floor(row.ts.getTime() / DAY_MS), days: 1 },
  daily: { firstDay: (row: { day: string }) => Date.parse(row.day) / DAY_MS, days: 2 },
  monthly: { firstDay: (row: { month: string }) => Date.parse(addMonth(row.month, 1)) / DAY_MS, days: 1 },
} as const;

/** The first day of the month `months` after the one `day` lies in. */
function addMonth(day: string, months: number): string {
  const at = new Date(`${day.slice(0, 7)}-01T00:00:00Z`);
  at.setUTCMonth(at.getUTCMonth() + months);
  return at.toISOString().slice(0, 10);
}

/**
 * The months (first days) whose rows a day's key changes: its own, and on the first of a month the
 * month before, whose billing freeze is captured that midnight.
 */
export function monthsOf(day: string): string[] {
  const own = `${day.slice(0, 7)}-01`;
  return day === own ? [addMonth(day, -1), own] : [own];
}

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

/**
 * One recomputation of rollup rows at a time, taken for the rest of the transaction: two recomputing
 * the same grid row from different snapshots could leave the older one last.
 */
export async function lockRollups(tx: Executor): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('reading rollups'))`);
}

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
async function recompute(
  tx: Executor,
  { old, computed }: { old: SQL; computed: SQL },
  months: MonthRows,
): Promise<number> {
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
        -- Every meter has its row since its insert: the fold moves its day, the rows locked in key order.
        update meter_last_read l set last_day = greatest(l.last_day, n.last_day)
        from (
          select locked.meter_id, r.last_day
          from (select meter_id, max(day) as last_day from upserted where intervals > 0 group by meter_id) r
          join meter_last_read locked on locked.meter_id = r.meter_id
          order by locked.meter_id for update of locked
        ) n
        where l.meter_id = n.meter_id
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
  await recomputeMonths(tx, months);
  return nodes.reduce((sum, node) => sum + node.meters, 0);
}

/** The month rows to recompute: some meters' months (the fold), or every meter's of whole months (a backfill). */
type MonthRows = { keys: readonly { meterId: string; month: string }[] } | { months: readonly string[] };

/** What a month row holds, from its keys `k` (meter_id, month) and the meter `m`. */
const MONTH_FIGURES = sql.raw(`k.meter_id, k.month, m.grid_id, m.dcu_id, d.consumption, coalesce(d.days_known, 0),
  coalesce(d.intervals, 0), d.demand_max, f.meter_id is not null,
  f.active_import - p.active_import, f.active_import_t1 - p.active_import_t1, f.active_import_t2 - p.active_import_t2,
  f.active_import_t3 - p.active_import_t3, f.active_import_t4 - p.active_import_t4, f.active_export - p.active_export,
  f.reactive_import - p.reactive_import, f.reactive_export - p.reactive_export, f.max_demand`);
const DAYS_SUMMED = sql.raw(`sum(d.consumption) as consumption, count(d.consumption)::int as days_known,
  sum(d.intervals)::int as intervals, max(d.demand_max) as demand_max`);
const MONTH_COLUMNS = sql.raw(`meter_id, month, grid_id, dcu_id, consumption, days_known, intervals, demand_max, frozen,
  energy, energy_t1, energy_t2, energy_t3, energy_t4, energy_export, energy_reactive_import, energy_reactive_export, max_demand`);
const ENERGIES = [
  'energy',
  'energy_t1',
  'energy_t2',
  'energy_t3',
  'energy_t4',
  'energy_export',
  'energy_reactive_import',
  'energy_reactive_export',
];

/**
 * Recomputes meters' month rows from their day rows and billing freezes (the month's and the one
 * before), then the grid month rows they touch, the old node of a moved meter included. A few keys
 * read their days on the (meter_id, day) key; whole months group their partitions once.
 */
async function recomputeMonths(tx: Executor, rows: MonthRows): Promise<void> {
  let computed: SQL;
  let old: SQL;
  if ('keys' in rows) {
    if (rows.keys.length === 0) return;
    const keyJson = JSON.stringify(rows.keys.map((k) => ({ meter_id: k.meterId, month: k.month })));
    const keys = sql`keys as (select distinct * from jsonb_to_recordset(${keyJson}::jsonb) as k(meter_id varchar, month date))`;
    old = sql`${keys}, old as (select r.grid_id, r.month from rollup_meter_month r join keys k on r.meter_id = k.meter_id and r.month = k.month)`;
    computed = sql`select ${MONTH_FIGURES} from keys k join meter m on m.id = k.meter_id
      cross join lateral (select ${DAYS_SUMMED} from rollup_meter_day d
        where d.meter_id = k.meter_id and d.day >= k.month and d.day < (k.month + interval '1 month')::date) d
      left join reading_monthly f on f.meter_id = k.meter_id and f.month = k.month
      left join reading_monthly p on p.meter_id = k.meter_id and p.month = (k.month - interval '1 month')::date`;
  } else {
    if (rows.months.length === 0) return;
    const months = sql`months as (select unnest(${`{${rows.months.join(',')}}`}::date[]) as month)`;
    old = sql`${months},
      d as (select d.meter_id, date_trunc('month', d.day)::date as month, ${DAYS_SUMMED} from rollup_meter_day d
        join months on d.day >= months.month and d.day < (months.month + interval '1 month')::date group by 1, 2),
      keys as (select meter_id, month from d union select f.meter_id, f.month from reading_monthly f join months using (month)),
      old as (select r.grid_id, r.month from rollup_meter_month r join months using (month))`;
    computed = sql`select ${MONTH_FIGURES} from keys k join meter m on m.id = k.meter_id
      left join d on d.meter_id = k.meter_id and d.month = k.month
      left join reading_monthly f on f.meter_id = k.meter_id and f.month = k.month
      left join reading_monthly p on p.meter_id = k.meter_id and p.month = (k.month - interval '1 month')::date`;
  }
  const months = ('keys' in rows ? rows.keys.map((k) => k.month) : rows.months).toSorted();
  await ensurePartitions(tx, new Date(months[0] as string), new Date(months.at(-1) as string), ['rollup_meter_month']);
  const updates = sql.raw(
    ['grid_id', 'dcu_id', 'consumption', 'days_known', 'intervals', 'demand_max', 'frozen', ...ENERGIES, 'max_demand']
      .map((c) => `${c} = excluded.${c}`)
      .join(', '),
  );
  const nodes = await rowsOf<{ grid_id: string; month: string }>(
    tx,
    sql`with ${old},
      upserted as (
        insert into rollup_meter_month as r (${MONTH_COLUMNS}) ${computed}
        on conflict (meter_id, month) do update set ${updates}, updated_at = now()
        returning r.grid_id, r.month
      )
      select grid_id, month::text as month from upserted union select grid_id, month::text from old`,
  );
  if (nodes.length === 0) return;
  const nodeJson = JSON.stringify(nodes);
  const sums = sql.raw(ENERGIES.map((c) => `sum(r.${c})`).join(', '));
  await tx.execute(
    sql`with nodes as (select * from jsonb_to_recordset(${nodeJson}::jsonb) as n(grid_id varchar, month date)),
      gone as (delete from rollup_grid_month g using nodes n where g.grid_id = n.grid_id and g.month = n.month)
      insert into rollup_grid_month (grid_id, month, meters, consumption, meters_with_consumption, frozen,
        ${sql.raw(ENERGIES.join(', '))}, max_demand, updated_at)
      select r.grid_id, r.month, count(*)::int, coalesce(sum(r.consumption), 0), count(r.consumption)::int,
        (count(*) filter (where r.frozen))::int, ${sums}, max(r.max_demand), now()
      from nodes n join rollup_meter_month r on r.grid_id = n.grid_id and r.month = n.month
      group by r.grid_id, r.month
      on conflict (grid_id, month) do update set meters = excluded.meters, consumption = excluded.consumption,
        meters_with_consumption = excluded.meters_with_consumption, frozen = excluded.frozen,
        ${sql.raw(ENERGIES.map((c) => `${c} = excluded.${c}`).join(', '))}, max_demand = excluded.max_demand,
        updated_at = now()`,
  );
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
        meters_complete, meters_read, demand_max, events_regular, events_medium, events_severe, updated_at)
      select r.grid_id, r.day, count(*)::int, coalesce(sum(r.consumption), 0), count(r.consumption)::int,
        ${REPORTED_FIGURES}, (count(*) filter (where r.reporting and r.intervals > 0))::int, max(r.demand_max),
        sum(r.events_regular)::int, sum(r.events_medium)::int, sum(r.events_severe)::int, now()
      from nodes n join rollup_meter_day r on r.grid_id = n.grid_id and r.day = n.day
      group by r.grid_id, r.day
      on conflict (grid_id, day) do update set meters = excluded.meters, consumption = excluded.consumption,
        meters_with_consumption = excluded.meters_with_consumption, intervals = excluded.intervals,
        meters_complete = excluded.meters_complete, meters_read = excluded.meters_read,
        demand_max = excluded.demand_max, events_regular = excluded.events_regular,
        events_medium = excluded.events_medium, events_severe = excluded.events_severe, updated_at = now()`,
  );
  await recomputeGridRegisters(tx, nodeJson);
}

/** The registers a grid register row adds up, as reading_daily names them. */
const REGISTERS = [
  'active_import',
  'active_import_t1',
  'active_import_t2',
  'active_import_t3',
  'active_import_t4',
  'active_export',
  'reactive_import',
  'reactive_export',
] as const;

/**
 * rollup_grid_registers rows of `nodes` (JSON of grid_id, day) from the frozen registers of the meters
 * their rollup_grid_day rows count: one key probe of reading_daily per meter row. A node left without
 * frozen registers that day loses its row.
 */
async function recomputeGridRegisters(tx: Executor, nodeJson: string): Promise<void> {
  const columns = sql.raw(REGISTERS.join(', '));
  const sums = sql.raw(REGISTERS.map((r) => `sum(d.${r})`).join(', '));
  const updates = sql.raw(REGISTERS.map((r) => `${r} = excluded.${r}`).join(', '));
  await tx.execute(
    sql`with nodes as (select * from jsonb_to_recordset(${nodeJson}::jsonb) as n(grid_id varchar, day date)),
      gone as (delete from rollup_grid_registers g using nodes n where g.grid_id = n.grid_id and g.day = n.day)
      insert into rollup_grid_registers (grid_id, day, meters, ${columns})
      select r.grid_id, r.day, count(*)::int, ${sums}
      from nodes n join rollup_meter_day r on r.grid_id = n.grid_id and r.day = n.day
      join reading_daily d on d.meter_id = r.meter_id and d.day = r.day
      group by r.grid_id, r.day
      on conflict (grid_id, day) do update set meters = excluded.meters, ${updates}`,
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

/** A meter's events of one code and level in a day, as rollup_meter_event_day holds them. */
const EVENT_DAY_FIGURES = sql.raw(`e.code, e.level, count(*)::int, count(e.ack_at)::int, min(e.ts), max(e.ts)`);
const EVENT_DAY_COLUMNS = sql.raw(
  `(meter_id, day, grid_id, dcu_id, code, level, events, acknowledged, first_ts, last_ts)`,
);

/**
 * Recomputes the event rows of some meters' days (`keys`) or of a whole day from meter_event, each
 * meter's grid node and DCU as the archive holds them now, then the grid rows of every node and day
 * they touched (the old node of a moved meter too). Runs in the caller's transaction, under
 * `lockRollups`: the fold calls it with the meter rows, an acknowledgement for the days it changed.
 */
export async function recomputeEventDays(tx: Executor, days: readonly RollupKey[] | string): Promise<void> {
  if (typeof days === 'string') {
    const start = sql`(${days}::date::timestamp at time zone 'UTC')`;
    const end = sql`((${days}::date + 1)::timestamp at time zone 'UTC')`;
    await tx.execute(sql`delete from rollup_meter_event_day where day = ${days}::date`);
    await tx.execute(
      sql`insert into rollup_meter_event_day ${EVENT_DAY_COLUMNS}
        select e.meter_id, ${days}::date, m.grid_id, m.dcu_id, ${EVENT_DAY_FIGURES}
        from meter_event e join meter m on m.id = e.meter_id
        where e.ts >= ${start} and e.ts < ${end}
        group by e.meter_id, m.grid_id, m.dcu_id, e.code, e.level`,
    );
    await tx.execute(sql`delete from rollup_grid_event_day where day = ${days}::date`);
    await tx.execute(
      sql`insert into rollup_grid_event_day (grid_id, dcu_id, day, code, level, events, acknowledged, first_ts, last_ts)
        select grid_id, dcu_id, day, code, level, sum(events), sum(acknowledged), min(first_ts), max(last_ts)
        from rollup_meter_event_day where day = ${days}::date group by grid_id, dcu_id, day, code, level`,
    );
    return;
  }
  if (days.length === 0) return;
  const keys = sql`keys as (select * from jsonb_to_recordset(${JSON.stringify(
    days.map((k) => ({ meter_id: k.meterId, day: k.day })),
  )}::jsonb) as k(meter_id varchar, day date))`;
  const removed = await rowsOf<{ grid_id: string; day: string }>(
    tx,
    sql`with ${keys}, gone as (delete from rollup_meter_event_day r using keys k
          where r.meter_id = k.meter_id and r.day = k.day returning r.grid_id, r.day)
        select distinct grid_id, day::text as day from gone`,
  );
  const added = await rowsOf<{ grid_id: string; day: string }>(
    tx,
    sql`with ${keys}, added as (insert into rollup_meter_event_day ${EVENT_DAY_COLUMNS}
          select k.meter_id, k.day, m.grid_id, m.dcu_id, ${EVENT_DAY_FIGURES}
          from keys k join meter m on m.id = k.meter_id
          join meter_event e on e.meter_id = k.meter_id
            and e.ts >= (k.day::timestamp at time zone 'UTC') and e.ts < ((k.day + 1)::timestamp at time zone 'UTC')
          group by k.meter_id, k.day, m.grid_id, m.dcu_id, e.code, e.level
          returning grid_id, day)
        select distinct grid_id, day::text as day from added`,
  );
  const nodes = new Map([...removed, ...added].map((n) => [`${n.grid_id} ${n.day}`, n]));
  if (nodes.size === 0) return;
  const nodeJson = JSON.stringify([...nodes.values()]);
  const touched = sql`nodes as (select * from jsonb_to_recordset(${nodeJson}::jsonb) as n(grid_id varchar, day date))`;
  // Two statements: a delete and an insert of the same keys in one would run in no given order.
  await tx.execute(
    sql`with ${touched} delete from rollup_grid_event_day g using nodes n where g.grid_id = n.grid_id and g.day = n.day`,
  );
  await tx.execute(
    sql`with ${touched}
      insert into rollup_grid_event_day (grid_id, dcu_id, day, code, level, events, acknowledged, first_ts, last_ts)
      select r.grid_id, r.dcu_id, r.day, r.code, r.level, sum(r.events), sum(r.acknowledged), min(r.first_ts), max(r.last_ts)
      from nodes n join rollup_meter_event_day r on r.grid_id = n.grid_id and r.day = n.day
      group by r.grid_id, r.dcu_id, r.day, r.code, r.level`,
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
      await lockRollups(tx);
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
      const keys = taken.map((k) => ({ meterId: k.meter_id, day: k.day }));
      await recompute(tx, keyedDays(keys), {
        keys: keys.flatMap((k) => monthsOf(k.day).map((month) => ({ meterId: k.meterId, month }))),
      });
      await recomputeEventDays(tx, keys);
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
    await lockRollups(tx);
    // A whole day groups every meter's rows at once: room to hash them in memory rather than sort on disk.
    await tx.execute(sql`set local work_mem = '64MB'`);
    await rollupPartitionsFor(tx, [day]);
    const meters = await recompute(tx, wholeDay(day), { months: monthsOf(day) });
    await recomputeEventDays(tx, day);
    return meters;
  });
}

/**
 * Every meter's month rows of `months` (first days) and their grid rows, from the day rows and billing
 * freezes stored: for a bulk load that wrote rollup_meter_day and reading_monthly itself (the scale
 * seed's history), which the fold would otherwise reach only key by key. Runs in the caller's transaction.
 */
export function rollupMonths(tx: Executor, months: readonly string[]): Promise<void> {
  return recomputeMonths(tx, { months });
}

/**
 * The months of the meter rollups that `days` fall in, made where missing: most are made ahead with
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
  await ensurePartitions(tx, new Date(first), new Date(last), ['rollup_meter_day', 'rollup_meter_event_day']);
}

export const READING_ROLLUPS_JOB = 'reading-rollups';

/**
 * Every minute (pg-boss's finest schedule); stately, so a fold still running when the next minute fires
 * queues one more, not many. The archive's counts are added up, and the devices' online time rolled up,
 * on the same beat.
 */
export const readingRollupsJob = (db: Db) =>
  defineJob({
    name: READING_ROLLUPS_JOB,
    schedule: '* * * * *',
    policy: 'stately',
    expireInSeconds: 30 * 60,
    handler: async () => ({
      folded: await foldPending(db),
      archiveCounts: await compactArchiveCounts(db),
      online: await rollupOnline(db),
    }),
  });

/**
 * Asks for a fold `delayMs` after the first ask, once for every ask meanwhile, instead of waiting for
 * the minute: a storm's events reach the alarm card and the storms page, and a finished run's day the
 * collection report, within seconds.
 */
export function foldSoon(jobs: Pick<JobSystem, 'nudge'>, log: FastifyBaseLogger, delayMs = 5_000): () => void {
  let timer: NodeJS.Timeout | null = null;
  return () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      jobs.nudge(READING_ROLLUPS_JOB).catch((err: unknown) => log.warn({ err }, 'fold not queued'));
    }, delayMs);
    timer.unref();
  };
}
