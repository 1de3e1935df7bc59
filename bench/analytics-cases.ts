/**
 * The analytics benchmark's cases (bench/analytics.ts): one entry per dashboard card or analytics page,
 * each its first page as the page asks for it, and the same figure computed from raw rows as one
 * statement written as well as raw rows allow (the tables' own keys and indexes, no rollup). A case
 * whose figures both sides can compare says how (`same`); the bench prints whether they agree.
 */

import { consumptionAnalytics, consumptionDetailAnalytics } from '../packages/contracts/src/analytics/consumption';
import { ALARM_DAYS } from '../packages/contracts/src/dashboard/dashboard.api';
import { ENERGY_CASES } from './analytics-cases-energy';
import { EVENT_CASES } from './analytics-cases-events';
import { MONTHLY_CASES } from './analytics-cases-monthly';
import { NETWORK_CASES } from './analytics-cases-network';
import {
  type AnalyticsCase,
  addDays,
  type BenchContext,
  DAILY_CONSUMPTION,
  daysAgoStart,
  firstPage,
  KWH,
  meterDays,
  num,
  periodEnds,
  profileBetween,
  REPORTING,
  summaryOf,
} from './lib/analytics-case';

export type { AnalyticsCase, BenchContext } from './lib/analytics-case';

const period = (c: BenchContext) => ({ startDay: c.profileFrom, endDay: c.today });
const taskPeriod = (c: BenchContext) => ({ startTime: c.monthAgo, endTime: c.todayEnd });
/** The occurrences task analysis counts in its period, and their device rows' figures per occurrence. */
const occurrences = (where = 'true') => `occ as (
    select r.id, r.plan_id, r.due_at from collection_run r
    where r.kind in ('scheduled', 'manual', 'history') and r.status <> 'cancelled'
      and r.due_at >= $1 and r.due_at <= $2 and ${where}),
  per as (
    select o.plan_id, o.id, o.due_at, d.dcu_no, count(*) as devices, sum(d.expected) as expected,
      sum(d.received) as received,
      count(*) filter (where d.received < d.expected or coalesce(d.result_code, '00') <> '00') as failed
    from occ o join collection_run_device d on d.run_id = o.id group by 1, 2, 3, 4)`;

export const CASES: AnalyticsCase[] = [
  {
    name: 'collection report: read success per day',
    path: '/collectionreport/daily',
    body: period,
    raw: (c) => ({
      text: `select x.day::text as day, sum(x.n)::int as stored, (count(*) filter (where x.n >= 96))::int as complete
        from (${meterDays('$1', '$2')}) x join meter m on m.id = x.meter_id and ${REPORTING}
        group by x.day order by x.day`,
      values: [c.profileFrom, c.today],
    }),
    same: (data: { days: { day: string; stored: number; metersComplete: number }[] }, rows) =>
      data.days.every((d) => {
        const r = rows.find((row) => row.day === d.day);
        return num(r?.stored) === d.stored && num(r?.complete) === d.metersComplete;
      }),
  },
  {
    name: 'collection report: per grid node (region)',
    path: '/collectionreport/bygrid',
    body: (c) => ({ ...period(c), gridId: c.regionId, curPage: 1, pageSize: 10 }),
    raw: (c) => ({
      text: `with recursive unit(id, top) as (
          select id, id from power_grid where parent_id = $3
          union all select g.id, unit.top from power_grid g join unit on g.parent_id = unit.id)
        select unit.top as id, x.day::text as day, sum(x.n)::int as stored,
          (count(*) filter (where x.n >= 96))::int as complete
        from (${meterDays('$1', '$2')}) x
        join meter m on m.id = x.meter_id and ${REPORTING} join unit on unit.id = m.grid_id
        group by unit.top, x.day`,
      values: [c.profileFrom, c.today, c.regionId],
    }),
    same: (data: { list: { gridId: string; day: string; stored: number }[] }, rows) =>
      data.list.every((cell) => {
        const r = rows.find((row) => row.id === cell.gridId && row.day === cell.day);
        return num(r?.stored) === cell.stored;
      }),
  },
  {
    name: 'collection report: per DCU',
    path: '/collectionreport/bydcu',
    body: (c) => ({ ...period(c), gridId: c.regionId, curPage: 1, pageSize: 10 }),
    // The page's cells: the first ten DCUs by number, on the newest day.
    raw: (c) => ({
      text: `with page as (select id, dcu_no from dcu order by dcu_no, id limit 10)
        select page.dcu_no, sum(x.n)::int as stored, (count(*) filter (where x.n >= 96))::int as complete
        from page join meter m on m.dcu_id = page.id and ${REPORTING}
        cross join lateral (${meterDays('$1', '$1', 'p.meter_id = m.id')}) x
        group by page.dcu_no`,
      values: [c.today],
    }),
    same: (data: { list: { dcuNo: string; day: string; stored: number }[] }, rows, c) =>
      data.list
        .filter((cell) => cell.day === c.today)
        .every((cell) => num(rows.find((row) => row.dcu_no === cell.dcuNo)?.stored) === cell.stored),
  },
  {
    name: 'collection report: never read',
    path: '/collectionreport/neverread',
    body: () => ({ curPage: 1, pageSize: 10 }),
    raw: () => ({
      text: `select count(*) over () as total, m.dev_addr from meter m
        where ${REPORTING} and not exists (select 1 from reading_profile p where p.meter_id = m.id)
        order by m.dev_addr limit 10`,
    }),
    note: 'raw rows differ: a meter whose intervals lie before the raw profile kept counts as never read',
  },
  {
    name: 'collection report: stopped 3 days',
    path: '/collectionreport/stopped',
    body: () => ({ curPage: 1, pageSize: 10, days: 3 }),
    raw: (c) => ({
      text: `select count(*) over () as total, m.dev_addr from meter m
        where ${REPORTING} and exists (select 1 from reading_profile p where p.meter_id = m.id)
          and not exists (select 1 from reading_profile p where p.meter_id = m.id
            and p.ts > ($1::date - 3)::timestamp at time zone 'UTC')
        order by m.dev_addr limit 10`,
      values: [c.today],
    }),
    note: 'raw rows differ: a meter stopped before the raw profile kept has none to find',
  },
  {
    name: 'task analysis: tasks (30 days)',
    path: '/taskanalysis/list',
    body: (c) => ({ ...taskPeriod(c), curPage: 1, pageSize: 10 }),
    raw: (c) => ({
      text: `with ${occurrences()}
        select plan_id, count(distinct id)::int as runs, sum(expected)::bigint as expected,
          sum(received)::bigint as received, sum(failed)::int as failed
        from per group by plan_id`,
      values: [c.monthAgo, c.todayEnd],
    }),
    same: (data: { list: { id: string; expected: number; received: number }[] }, rows, c) => {
      const api = data.list.find((t) => t.id === c.planId);
      const raw = rows.find((r) => r.plan_id === c.planId);
      return !!api && num(raw?.expected) === api.expected && num(raw?.received) === api.received;
    },
  },
  {
    name: 'task analysis: one task',
    path: '/taskanalysis/detail',
    body: (c) => ({ ...taskPeriod(c), planid: c.planId }),
    raw: (c) => ({
      text: `with ${occurrences('r.plan_id = $3')}
        select sum(expected)::bigint as expected, sum(received)::bigint as received, sum(failed)::int as failed
        from per`,
      values: [c.monthAgo, c.todayEnd, c.planId],
    }),
    same: (data: { task: { expected: number; received: number } }, rows) =>
      num(rows[0]?.expected) === data.task.expected && num(rows[0]?.received) === data.task.received,
  },
  {
    name: "task analysis: a task's runs",
    path: '/taskanalysis/runs',
    body: (c) => ({ ...taskPeriod(c), planid: c.planId, curPage: 1, pageSize: 10 }),
    raw: (c) => ({
      text: `with ${occurrences('r.plan_id = $3')}
        select id, sum(expected)::bigint as expected, sum(received)::bigint as received from per
        group by id, due_at order by due_at desc limit 10`,
      values: [c.monthAgo, c.todayEnd, c.planId],
    }),
    same: (data: { list: { runId: string; received: number }[] }, rows) =>
      data.list.every((run) => num(rows.find((r) => r.id === run.runId)?.received) === run.received),
  },
  {
    name: "task analysis: a task's DCUs",
    path: '/taskanalysis/dcus',
    body: (c) => ({ ...taskPeriod(c), planid: c.planId, curPage: 1, pageSize: 10 }),
    raw: (c) => ({
      text: `with ${occurrences('r.plan_id = $3')}
        select dcu_no, sum(expected)::bigint as expected, sum(received)::bigint as received from per
        group by dcu_no`,
      values: [c.monthAgo, c.todayEnd, c.planId],
    }),
    same: (data: { list: { dcuNo: string | null; received: number }[] }, rows) =>
      data.list.every((d) => num(rows.find((r) => r.dcu_no === d.dcuNo)?.received) === d.received),
  },
  {
    name: 'consumption: first page (meters by serial)',
    path: '/analytics/consumption/list',
    body: () => firstPage(consumptionAnalytics),
    raw: () => ({
      text: `with page as (select id, dev_addr from meter order by lower(dev_addr), id limit 10)
        select page.id, (select count(*) from meter) as total,
          (select ${KWH('sum(d.active_import - b.active_import)')} from ${DAILY_CONSUMPTION}
            where d.meter_id = page.id and d.day between $1 and $2) as consumption,
          (select ${KWH('max(p.active_power)')} from reading_profile p where p.meter_id = page.id
            and ${profileBetween('$1', '$2')}) as demand_max
        from page`,
      values: [...periodEnds(consumptionAnalytics)],
    }),
    same: (data: { list: { meterId: string; consumption: number | null }[] }, rows) =>
      data.list.every((m) => (rows.find((r) => r.id === m.meterId)?.consumption ?? null) === m.consumption),
  },
  {
    name: 'consumption: summary and chart (all meters)',
    path: '/analytics/consumption/summary',
    body: () => summaryOf(consumptionAnalytics),
    raw: () => ({
      text: `select d.day::text as day, ${KWH('sum(d.active_import - b.active_import)')} as consumption
        from ${DAILY_CONSUMPTION} where d.day between $1 and $2 group by d.day`,
      values: [...periodEnds(consumptionAnalytics)],
    }),
    // Days whose consumption raw rows know (the page shows 0 for a day none is known, where rows are null).
    same: (data: { points: { day: string; consumption: number | null }[] }, rows) =>
      rows.every((r) => data.points.find((p) => p.day === r.day)?.consumption === r.consumption),
  },
  {
    name: "consumption detail: a meter's days",
    path: '/analytics/consumptionDetail/list',
    body: (c) => firstPage(consumptionDetailAnalytics, { meterId: c.meterId }),
    raw: (c) => ({
      text: `select d.day::text as day, ${KWH('d.active_import - b.active_import')} as consumption, p.*
        from ${DAILY_CONSUMPTION}
        cross join lateral (select ${KWH('max(p.active_power)')} as demand_max, count(*) as intervals
          from reading_profile p where p.meter_id = d.meter_id
            and p.ts > d.day::timestamp at time zone 'UTC' and p.ts <= (d.day + 1)::timestamp at time zone 'UTC') p
        where d.meter_id = $3 and d.day between $1 and $2 order by d.day desc limit 10`,
      values: [...periodEnds(consumptionDetailAnalytics), c.meterId],
    }),
    same: (data: { list: { day: string; consumption: number | null }[] }, rows) =>
      data.list
        .filter((d) => d.consumption !== null)
        .every((d) => rows.find((r) => r.day === d.day)?.consumption === d.consumption),
  },
  {
    name: "consumption detail: a meter's summary and chart",
    path: '/analytics/consumptionDetail/summary',
    body: (c) => summaryOf(consumptionDetailAnalytics, { meterId: c.meterId }),
    raw: (c) => ({
      text: `select ${KWH('sum(d.active_import - b.active_import)')} as consumption,
          (select ${KWH('max(p.active_power)')} from reading_profile p where p.meter_id = $3
            and ${profileBetween('$1', '$2')}) as demand_max
        from ${DAILY_CONSUMPTION} where d.meter_id = $3 and d.day between $1 and $2`,
      values: [...periodEnds(consumptionDetailAnalytics), c.meterId],
    }),
    same: (data: { figures: { consumption: number | null } }, rows) =>
      (rows[0]?.consumption ?? null) === data.figures.consumption,
  },
  // The other analytics pages, by area.
  ...NETWORK_CASES,
  ...EVENT_CASES,
  ...ENERGY_CASES,
  ...MONTHLY_CASES,
  // The dashboard's cards, each its own call.
  {
    name: 'dashboard: alarm log (first page)',
    path: '/dashboard/alarms',
    body: () => ({}),
    raw: (c) => ({
      // The card's alarms: severe events nobody has acknowledged.
      text: `select (select count(*) from meter_event e where e.level = 2 and e.ack_at is null and e.ts >= $1)::int as total,
          e.meter_id, e.ts, e.code
        from meter_event e where e.level = 2 and e.ack_at is null and e.ts >= $1 order by e.ts desc, e.meter_id, e.code limit 5`,
      values: [daysAgoStart(c, ALARM_DAYS - 1)],
    }),
    same: (data: { total: number }, rows) => num(rows[0]?.total) === data.total,
  },
  {
    name: 'dashboard: archive (grid, DCUs, meters by status)',
    path: '/dashboard/archive',
    body: () => ({}),
    raw: () => ({
      text: `select m.status, count(*)::int as n, (select count(*) from dcu)::int as dcus,
          (select count(*) from power_grid)::int as nodes
        from meter m group by m.status`,
    }),
    same: (data: { dcus: number; byStatus: { status: number; count: number }[] }, rows) =>
      num(rows[0]?.dcus) === data.dcus &&
      data.byStatus.every((s) => num(rows.find((r) => r.status === s.status)?.n) === s.count),
  },
  {
    name: 'dashboard: consumers',
    path: '/dashboard/consumers',
    body: () => ({}),
    raw: () => ({
      text: `select consumer_type, payment_mode, count(*)::int as n, (count(*) filter (where special))::int as special
        from consumer group by 1, 2`,
    }),
    same: (data: { consumers: number }, rows) => rows.reduce((sum, r) => sum + num(r.n), 0) === data.consumers,
  },
  {
    name: 'dashboard: modules',
    path: '/dashboard/modules',
    body: () => ({}),
    raw: () => ({ text: `select device_type, working_mode, count(*)::int as n from comm_module group by 1, 2` }),
    same: (data: { modules: number }, rows) => rows.reduce((sum, r) => sum + num(r.n), 0) === data.modules,
  },
  {
    name: 'dashboard: energy (yesterday, this month)',
    path: '/dashboard/energy',
    body: () => ({}),
    raw: (c) => ({
      text: `select d.day::text as day, ${KWH('sum(d.active_import - b.active_import)')} as value, count(*)::int as meters
        from ${DAILY_CONSUMPTION} where d.day between least($1::date, date_trunc('month', $2::date)::date) and $2 group by d.day`,
      values: [addDays(c.today, -2), c.today],
    }),
    same: (data: { yesterday: { day: string; value: number | null; meters: number } }, rows) => {
      const r = rows.find((row) => row.day === data.yesterday.day);
      return (r?.value ?? null) === data.yesterday.value && num(r?.meters) === data.yesterday.meters;
    },
  },
  {
    name: 'dashboard: collection (today, yesterday)',
    path: '/dashboard/collection',
    body: () => ({}),
    raw: (c) => ({
      text: `select x.day::text as day, sum(x.n)::int as stored
        from (${meterDays('$1', '$2')}) x join meter m on m.id = x.meter_id and ${REPORTING} group by x.day`,
      values: [addDays(c.today, -1), c.today],
    }),
    same: (data: { yesterday: { day: string; stored: number }; today: { day: string; stored: number } }, rows) =>
      [data.yesterday, data.today].every((d) => num(rows.find((r) => r.day === d.day)?.stored) === d.stored),
  },
  {
    name: 'dashboard: alarm trend (30 days)',
    path: '/dashboard/alarmtrend',
    body: () => ({}),
    raw: (c) => ({
      text: `select (e.ts at time zone 'UTC')::date::text as day, (count(*) filter (where e.level = 0))::int as regular,
          (count(*) filter (where e.level = 1))::int as medium, (count(*) filter (where e.level = 2))::int as severe
        from meter_event e where e.ts >= $1 group by 1`,
      values: [daysAgoStart(c, ALARM_DAYS - 1)],
    }),
    same: (data: { days: { day: string; regular: number; medium: number; severe: number }[] }, rows) =>
      data.days.every((d) => {
        const r = rows.find((row) => row.day === d.day);
        return num(r?.regular) === d.regular && num(r?.medium) === d.medium && num(r?.severe) === d.severe;
      }),
  },
  {
    name: 'dashboard: latest operations',
    path: '/dashboard/operations',
    body: () => ({}),
    raw: () => ({ text: `select * from sys_log where log_type = 'operation' order by time desc, id desc limit 8` }),
    note: 'the log is its own raw rows: both sides read the same table',
  },
];
