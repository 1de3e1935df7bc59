/**
 * What the analytics benchmark's cases share (bench/analytics-cases*.ts): the shape of a case, what
 * they know of the seeded archive, the bodies the web sends for a page's first page, and the SQL of
 * raw rows several cases compute a figure from.
 */
import { PERIOD_KEYS, type PeriodSpec, resolvePeriod } from '../../packages/contracts/src/analytics/kit';
import { REPORTING_METER_STATUSES } from '../../packages/contracts/src/report/collection-report.api';

/** What the cases need to know of the seeded archive (bench/analytics.ts reads it for each case). */
export interface BenchContext {
  /** UTC days: today, and the first day whose load profile rows are written for every meter. */
  today: string;
  profileFrom: string;
  /** The first moment of today and of the task-analysis period (30 days back), ISO. */
  todayStart: string;
  monthAgo: string;
  /** The moment of the last instant of today, ISO. */
  todayEnd: string;
  /** The seeded run's region (its grid node) and collection task. */
  regionId: string;
  planId: string;
  /** A meter whose load profile rows are kept for the whole history (`--profile-every`), or any meter. */
  meterId: string;
  /** The meter of the newest event: a meter whose event timeline holds something. */
  eventMeterId: string;
}

export interface RawQuery {
  text: string;
  values?: unknown[];
}

export type Row = Record<string, unknown>;

export interface AnalyticsCase {
  /** What the dashboard or page shows. */
  name: string;
  /** The API call: its path (under /apis) and the body of its first page. */
  path: string;
  body: (c: BenchContext) => Record<string, unknown>;
  /** The same figure from raw rows. */
  raw: (c: BenchContext) => RawQuery;
  /** Whether the API's answer (`data`) and the raw rows agree, where both hold the same figure. */
  same?: (data: never, rows: Row[], c: BenchContext) => boolean;
  /** Why the figures cannot be compared, or what the comparison allows, printed with the results. */
  note?: string;
}

/** The rows a page asks for at a time (the crud list's default page size). */
export const PAGE_SIZE = 10;

/** The period keys a page sends for its default period, as the web's filter bar settles them (none for a page about now). */
export function periodOf(page: { period: PeriodSpec }): Record<string, string> {
  if (page.period.unit === 'none') return {};
  const keys = PERIOD_KEYS[page.period.unit];
  const { start, end } = resolvePeriod(page.period, {});
  return { [keys.start]: start, [keys.end]: end };
}

/** The default period's ends: days `YYYY-MM-DD` or months `YYYY-MM`. */
export const periodEnds = (page: { period: PeriodSpec }) => {
  const { start, end } = resolvePeriod(page.period, {});
  return [start, end] as const;
};

/** A page's list call as the web sends its first page: the filters (the default period), page 1 of 10. */
export const firstPage = (page: { period: PeriodSpec }, extra: Record<string, unknown> = {}) => ({
  ...periodOf(page),
  ...extra,
  curPage: 1,
  pageSize: PAGE_SIZE,
});

/** A page's summary call as the web sends it: the filters alone. */
export const summaryOf = (page: { period: PeriodSpec }, extra: Record<string, unknown> = {}) => ({
  ...periodOf(page),
  ...extra,
});

export const num = (value: unknown) => Number(value ?? 0);
/** A figure both sides may leave unknown (null). */
export const numOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));
/** Two figures equal to within `tolerance` (both unknown counts as equal). */
export const near = (a: unknown, b: unknown, tolerance: number) => {
  const [x, y] = [numOrNull(a), numOrNull(b)];
  return x === null || y === null ? x === y : Math.abs(x - y) <= tolerance + 1e-9;
};
/** Two moments equal, whatever their text (ISO from the API, a Date from pg); both unknown counts as equal. */
export const sameMoment = (a: unknown, b: unknown) =>
  a === null || a === undefined || b === null || b === undefined
    ? (a ?? null) === (b ?? null)
    : new Date(a as string).getTime() === new Date(b as string).getTime();
/** A percentage with one decimal as the pages give it, or null when nothing was possible. */
export const percent = (part: unknown, whole: unknown) =>
  num(whole) > 0 ? Math.round((num(part) * 1000) / num(whole)) / 10 : null;

export const DAY_MS = 86_400_000;
export const addDays = (day: string, n: number) => new Date(Date.parse(day) + n * DAY_MS).toISOString().slice(0, 10);
/** The first moment of the day `n` days before today, ISO. */
export const daysAgoStart = (c: BenchContext, n: number) => `${addDays(c.today, -n)}T00:00:00Z`;

/** The first page of meters in serial order, as the pages listing meters page them (id, dev_addr). */
export const METER_PAGE = `select m.id, m.dev_addr from meter m order by lower(m.dev_addr), m.id limit ${PAGE_SIZE}`;

/** Meters a report expects to read (REPORTING_METER_STATUSES, not virtual), of meter `m`. */
export const REPORTING = `m.status in (${REPORTING_METER_STATUSES.join(', ')}) and not m.virtual`;
/** Wh as the pages show it: kWh with three decimals. */
export const KWH = (expression: string) => `round((${expression})::numeric / 1000, 3)::float8`;
/** A UTC day's first moment, and the next day's (its end), of an SQL date. */
export const dayStart = (day: string) => `((${day})::date::timestamp at time zone 'UTC')`;
export const dayEnd = (day: string) => `(((${day})::date + 1)::timestamp at time zone 'UTC')`;
/** A meter's consumption of each day: its daily frozen register less the day before's. */
export const DAILY_CONSUMPTION = `reading_daily d join reading_daily b on b.meter_id = d.meter_id and b.day = d.day - 1`;
/** A load profile row's UTC day: its interval's end, so 24:00 closes the day before. */
export const PROFILE_DAY = `((p.ts at time zone 'UTC') - interval '1 minute')::date`;
/** Load profile rows `p` of the days from `from` to `to` (SQL dates): intervals ending in (00:00 first, 24:00 last]. */
export const profileBetween = (from: string, to: string) => `p.ts > ${dayStart(from)} and p.ts <= ${dayEnd(to)}`;
/** Per meter and day of the period: the intervals stored. */
export const meterDays = (from: string, to: string, where = 'true') =>
  `select p.meter_id, ${PROFILE_DAY} as day, count(*) as n from reading_profile p
   where ${profileBetween(from, to)} and ${where} group by 1, 2`;

/**
 * Devices counted as communicating, as device_online counts them: a meter a report expects to read,
 * every DCU. Columns device_id, kind, grid_id and dcu_id (a meter's DCU).
 */
export const COUNTED_DEVICES = `select m.id as device_id, 'meter' as kind, m.grid_id, m.dcu_id from meter m where ${REPORTING}
  union all select d.id, 'dcu', d.grid_id, null from dcu d`;

/**
 * Each device's latest link change (`link_change` alone): whether its link is up now, and since when;
 * of the devices `ids` (an SQL list) when given.
 */
export const latestLinks = (ids?: string) => `select distinct on (l.device_id) l.device_id, l.online, l.ts
  from link_change l ${ids ? `where l.device_id in (${ids})` : ''} order by l.device_id, l.ts desc`;

/**
 * From link_change alone, CTEs over `dev` (a query of at least device_id and dcu_id, a meter's DCU or
 * null): `reachable`, the spans each device was reachable (its link up and, behind a DCU, the DCU's
 * too), and `online_days`, per device and UTC day from `from` to `to` (SQL dates; none before the first
 * day link_change records anything, which has no online time to know), the seconds it was
 * and the seconds it could have been (a day in progress up to now), whether it was at the day's end
 * (now, for today), and the columns of `dev` named in `keep`, so a caller groups by them without
 * joining the devices again.
 */
export const onlineDays = (dev: string, from: string, to: string, keep: readonly string[] = []) => `dev as (${dev}),
  spans as (select l.device_id, l.online, l.ts as t0,
      coalesce(lead(l.ts) over (partition by l.device_id order by l.ts), 'infinity') as t1
    from link_change l
    where l.device_id in (select device_id from dev union select dcu_id from dev where dcu_id is not null)
      and l.ts < ${dayEnd(to)}),
  reachable as (select d.device_id, greatest(o.t0, u.t0) as t0, least(o.t1, u.t1) as t1
    from dev d join spans o on o.device_id = d.device_id and o.online
    left join spans u on u.device_id = d.dcu_id and u.online and u.t0 < o.t1 and u.t1 > o.t0
    where d.dcu_id is null or u.device_id is not null),
  days as (select g::date as day, g at time zone 'UTC' as d0, least((g + interval '1 day') at time zone 'UTC', now()) as d1
    from generate_series(greatest((${from})::date, (select (min(l.ts) at time zone 'UTC')::date from link_change l))::timestamp,
      (${to})::date::timestamp, interval '1 day') g),
  online_days as (select d.device_id, ${keep.map((column) => `d.${column}, `).join('')}days.day,
      extract(epoch from days.d1 - days.d0)::float8 as possible,
      coalesce(sum(extract(epoch from least(r.t1, days.d1) - greatest(r.t0, days.d0))) filter (where r.device_id is not null),
        0)::float8 as online,
      coalesce(bool_or(r.t1 >= days.d1), false) as at_end
    from dev d cross join days
    left join reachable r on r.device_id = d.device_id and r.t0 < days.d1 and r.t1 > days.d0
    group by d.device_id, ${keep.map((column) => `d.${column}, `).join('')}days.day, days.d0, days.d1)`;

/** The own link changes of devices `ids` (an SQL list) within the days from `from` to `to`, per device. */
export const linkChanges = (ids: string, from: string, to: string) =>
  `select l.device_id, count(*)::int as changes from link_change l
    where l.device_id in (${ids}) and l.ts >= ${dayStart(from)} and l.ts < ${dayEnd(to)} group by l.device_id`;
