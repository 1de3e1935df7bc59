/**
 * The analytics benchmark's cases of the month and profile pages (monthly consumption, monthly billing,
 * load profile, each with its detail): the API reads the month and day rollups; raw rows are
 * reading_daily (a day's consumption is its frozen register less the day before's), reading_monthly
 * (the billing freezes) and reading_profile.
 */

import { addMonths } from '../packages/contracts/src/analytics/kit';
import { loadProfileAnalytics } from '../packages/contracts/src/analytics/load-profile';
import { monthlyBillingAnalytics } from '../packages/contracts/src/analytics/monthly-billing';
import { monthlyConsumptionAnalytics } from '../packages/contracts/src/analytics/monthly-consumption';
import { INTERVALS_PER_DAY } from '../packages/contracts/src/collection/readings.api';
import {
  type AnalyticsCase,
  DAILY_CONSUMPTION,
  firstPage,
  KWH,
  METER_PAGE,
  num,
  PAGE_SIZE,
  PROFILE_DAY,
  percent,
  periodEnds,
  profileBetween,
  REPORTING,
  type Row,
  sameMoment,
  summaryOf,
} from './lib/analytics-case';

/** The months of a month page's default period, as first days, and how many. */
const monthsOf = (page: typeof monthlyConsumptionAnalytics | typeof monthlyBillingAnalytics) => {
  const [start, end] = periodEnds(page);
  let count = 0;
  for (let month = start; month <= end; month = addMonths(month, 1)) count++;
  return { first: `${start}-01`, last: `${end}-01`, count };
};
/** The months from `$1` to `$2` (first days). */
const MONTHS = `months as (select g::date as month from generate_series($1::date, $2::date, interval '1 month') g)`;
/** Month `mo.month` as the pages name it. */
const MONTH = `to_char(mo.month, 'YYYY-MM')`;
/** The day of a pair `d`/`b` lies in month `mo.month`. */
const IN_MONTH = `d.day >= mo.month and d.day < (mo.month + interval '1 month')::date`;
/** The month before `month` (an SQL date, a first day). */
const monthBefore = (month: string) => `((${month})::date - interval '1 month')::date`;

/** A month's consumption figures as the pages give them, from raw rows `r` (consumption in kWh, days known). */
const sameMonth = (api: { consumption: number | null; daysKnown: number }, r: Row | undefined) =>
  api.consumption === (r?.consumption ?? null) && api.daysKnown === num(r?.days_known);

/** Figures a month page adds up from its points, as it adds them: kWh with three decimals. */
const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** The detail of the case's meter, opened from its row with the list's period. */
const consumptionDetail = (c: { meterId: string }) => ({
  meterId: c.meterId,
  ...summaryOf(monthlyConsumptionAnalytics),
});

/**
 * The case's meter (`$3`) per month from `$1` to `$2`: its consumption and the days known from its
 * daily frozen rows, its intervals and highest demand from its load profile (kept whole for this meter).
 */
const meterMonths = (order: 'asc' | 'desc', limit: string) => `with ${MONTHS},
    days as (select d.day, d.active_import - b.active_import as wh from ${DAILY_CONSUMPTION}
      where d.meter_id = $3 and d.day >= $1::date and d.day < ($2::date + interval '1 month')::date),
    profile as (select ${PROFILE_DAY} as day, p.active_power from reading_profile p
      where p.meter_id = $3 and ${profileBetween('$1', `(($2::date + interval '1 month')::date - 1)`)})
  select ${MONTH} as month,
    (select ${KWH('sum(wh)')} from days d where ${IN_MONTH}) as consumption,
    (select count(*)::int from days d where ${IN_MONTH}) as days_known,
    (select count(*)::int from profile d where ${IN_MONTH}) as intervals,
    (select ${KWH('max(active_power)')} from profile d where ${IN_MONTH}) as demand_max
  from months mo order by mo.month ${order} ${limit}`;

/** The billing month (the page's one month, last month by default) and the case's meter's detail: the 12 months up to it. */
const billingMonth = () => `${periodEnds(monthlyBillingAnalytics)[1]}-01`;
const billingDetail = (c: { meterId: string }) => {
  const month = periodEnds(monthlyBillingAnalytics)[1];
  return { meterId: c.meterId, startMonth: addMonths(month, -11), endMonth: month };
};
/** The billing freezes of meter `meter` for month `month` (`f`) and the month before (`p`). */
const freezes = (
  meter: string,
  month: string,
) => `left join reading_monthly f on f.meter_id = ${meter} and f.month = ${month}
  left join reading_monthly p on p.meter_id = ${meter} and p.month = ${monthBefore(month)}`;
const RATES = ['t1', 't2', 't3', 't4'] as const;

/** The load profile page's day (yesterday by default) and the curves its row opens: the meter's day. */
const profileDay = () => periodEnds(loadProfileAnalytics)[1];
const curvesBody = (c: { meterId: string }) => ({
  meterIds: [c.meterId],
  startDay: profileDay(),
  endDay: profileDay(),
});

const BILLING_NOTE = "the freezes are a probe of reading_monthly's key per meter and month: both sides read raw rows";
const CURVE_NOTE = "a meter's intervals are a range of reading_profile's key: both sides read raw rows";

export const MONTHLY_CASES: AnalyticsCase[] = [
  {
    name: 'monthly consumption: meters by serial (3 months)',
    path: '/analytics/monthlyConsumption/list',
    body: () => firstPage(monthlyConsumptionAnalytics),
    raw: () => {
      const months = monthsOf(monthlyConsumptionAnalytics);
      return {
        text: `with ${MONTHS}, page as (select m.id, m.dev_addr from meter m order by lower(m.dev_addr), m.id limit $3)
          select page.id, ${MONTH} as month, ${KWH('sum(d.active_import - b.active_import)')} as consumption,
            count(d.meter_id)::int as days_known
          from page cross join months mo
          left join (${DAILY_CONSUMPTION}) on d.meter_id = page.id and ${IN_MONTH}
          group by page.id, page.dev_addr, mo.month order by lower(page.dev_addr), page.id, mo.month limit ${PAGE_SIZE}`,
        values: [months.first, months.last, Math.ceil(PAGE_SIZE / months.count)],
      };
    },
    same: (data: { list: { meterId: string; month: string; consumption: number | null; daysKnown: number }[] }, rows) =>
      data.list.length === rows.length &&
      data.list.every((m, i) => m.meterId === rows[i]?.id && m.month === rows[i]?.month && sameMonth(m, rows[i])),
  },
  {
    name: 'monthly consumption: summary and chart (3 months)',
    path: '/analytics/monthlyConsumption/summary',
    body: () => summaryOf(monthlyConsumptionAnalytics),
    raw: () => {
      const months = monthsOf(monthlyConsumptionAnalytics);
      return {
        // One pass over the period's frozen rows in each meter's day order: a day's consumption is its
        // register less the row before, when that row is the day before's.
        text: `with ${MONTHS},
            days as (select date_trunc('month', d.day)::date as month,
                d.active_import - lag(d.active_import) over w as wh, d.day - lag(d.day) over w as after
              from reading_daily d where d.day >= $1::date - 1 and d.day < ($2::date + interval '1 month')::date
              window w as (partition by d.meter_id order by d.day))
          select ${MONTH} as month, ${KWH('sum(x.wh) filter (where x.after = 1)')} as consumption,
            (select count(*) from meter)::int as meters
          from months mo left join days x on x.month = mo.month
          group by mo.month order by mo.month`,
        values: [months.first, months.last],
      };
    },
    same: (
      data: {
        figures: { meters: number; consumption: number | null; peakMonth: string | null };
        points: { month: string; consumption: number | null }[];
      },
      rows,
    ) => {
      const known = rows.filter((r) => r.consumption !== null);
      const total = known.reduce((sum, r) => sum + num(r.consumption), 0);
      return (
        data.figures.meters === num(rows[0]?.meters) &&
        data.figures.consumption === (known.length ? round3(total) : null) &&
        data.points.every((p) => p.consumption === (rows.find((r) => r.month === p.month)?.consumption ?? null))
      );
    },
  },
  {
    name: "monthly consumption detail: a meter's months",
    path: '/analytics/monthlyConsumptionDetail/list',
    body: (c) => ({ ...consumptionDetail(c), curPage: 1, pageSize: PAGE_SIZE }),
    raw: (c) => {
      const months = monthsOf(monthlyConsumptionAnalytics);
      return { text: meterMonths('desc', `limit ${PAGE_SIZE}`), values: [months.first, months.last, c.meterId] };
    },
    same: (
      data: {
        list: {
          month: string;
          consumption: number | null;
          daysKnown: number;
          intervals: number;
          demandMax: number | null;
        }[];
      },
      rows,
    ) =>
      data.list.length === rows.length &&
      data.list.every(
        (m, i) =>
          m.month === rows[i]?.month &&
          sameMonth(m, rows[i]) &&
          m.intervals === rows[i]?.intervals &&
          m.demandMax === (rows[i]?.demand_max ?? null),
      ),
  },
  {
    name: 'monthly consumption detail: summary and chart',
    path: '/analytics/monthlyConsumptionDetail/summary',
    body: consumptionDetail,
    raw: (c) => {
      const months = monthsOf(monthlyConsumptionAnalytics);
      return { text: meterMonths('asc', ''), values: [months.first, months.last, c.meterId] };
    },
    same: (data: { points: { month: string; consumption: number | null; demandMax: number | null }[] }, rows) =>
      data.points.length === rows.length &&
      data.points.every(
        (p, i) =>
          p.month === rows[i]?.month &&
          p.consumption === (rows[i]?.consumption ?? null) &&
          p.demandMax === (rows[i]?.demand_max ?? null),
      ),
  },
  {
    name: 'monthly billing: meters by serial (last month)',
    path: '/analytics/monthlyBilling/list',
    body: () => firstPage(monthlyBillingAnalytics),
    raw: () => ({
      text: `select x.id, f.meter_id is not null as frozen, ${KWH('f.active_import - p.active_import')} as energy
        from (${METER_PAGE}) x ${freezes('x.id', '$1::date')} order by lower(x.dev_addr), x.id`,
      values: [billingMonth()],
    }),
    same: (data: { list: { meterId: string; frozen: boolean; energy: number | null }[] }, rows) =>
      data.list.length === rows.length &&
      data.list.every(
        (m, i) => m.meterId === rows[i]?.id && m.frozen === rows[i]?.frozen && m.energy === (rows[i]?.energy ?? null),
      ),
    note: BILLING_NOTE,
  },
  {
    name: 'monthly billing: summary and chart (last month)',
    path: '/analytics/monthlyBilling/summary',
    body: () => summaryOf(monthlyBillingAnalytics),
    raw: () => ({
      text: `select (select count(*) from meter)::int as meters, count(f.meter_id)::int as frozen,
          ${KWH('sum(f.active_import - p.active_import)')} as energy,
          ${RATES.map((r) => `${KWH(`sum(f.active_import_${r} - p.active_import_${r})`)} as energy_${r}`).join(', ')},
          ${KWH('max(f.max_demand)')} as max_demand
        from meter m join reading_monthly f on f.meter_id = m.id and f.month = $1::date
        left join reading_monthly p on p.meter_id = m.id and p.month = ${monthBefore('$1')}`,
      values: [billingMonth()],
    }),
    same: (
      data: {
        figures: {
          meters: number;
          metersFrozen: number;
          metersNotFrozen: number;
          energy: number | null;
          maxDemand: number | null;
        };
        points: { rate: string; energy: number | null }[];
      },
      [r],
    ) =>
      data.figures.meters === r?.meters &&
      data.figures.metersFrozen === r.frozen &&
      data.figures.metersNotFrozen === num(r.meters) - num(r.frozen) &&
      data.figures.energy === (r.energy ?? null) &&
      data.figures.maxDemand === (r.max_demand ?? null) &&
      data.points.every((p) => p.energy === (r[`energy_${p.rate.toLowerCase()}`] ?? null)),
  },
  {
    name: "monthly billing detail: a meter's months",
    path: '/analytics/monthlyBillingDetail/list',
    body: (c) => ({ ...billingDetail(c), curPage: 1, pageSize: PAGE_SIZE }),
    raw: (c) => {
      const { meterId, startMonth, endMonth } = billingDetail(c);
      return {
        text: `with ${MONTHS} select ${MONTH} as month, f.meter_id is not null as frozen,
            ${KWH('f.active_import - p.active_import')} as energy
          from months mo ${freezes('$3', 'mo.month')} order by mo.month desc limit ${PAGE_SIZE}`,
        values: [`${startMonth}-01`, `${endMonth}-01`, meterId],
      };
    },
    same: (data: { list: { month: string; frozen: boolean; energy: number | null }[] }, rows) =>
      data.list.length === rows.length &&
      data.list.every(
        (m, i) => m.month === rows[i]?.month && m.frozen === rows[i]?.frozen && m.energy === (rows[i]?.energy ?? null),
      ),
    note: BILLING_NOTE,
  },
  {
    name: 'monthly billing detail: summary and chart',
    path: '/analytics/monthlyBillingDetail/summary',
    body: billingDetail,
    raw: (c) => {
      const { meterId, startMonth, endMonth } = billingDetail(c);
      return {
        text: `with ${MONTHS} select count(f.meter_id)::int as frozen,
            round(sum(${KWH('f.active_import - p.active_import')})::numeric, 3)::float8 as energy,
            ${KWH('max(f.max_demand)')} as max_demand
          from months mo ${freezes('$3', 'mo.month')}`,
        values: [`${startMonth}-01`, `${endMonth}-01`, meterId],
      };
    },
    same: (data: { figures: { monthsFrozen: number; energy: number | null; maxDemand: number | null } }, [r]) =>
      data.figures.monthsFrozen === r?.frozen &&
      data.figures.energy === (r.energy ?? null) &&
      data.figures.maxDemand === (r.max_demand ?? null),
    note: BILLING_NOTE,
  },
  {
    name: 'load profile: meters by serial (yesterday)',
    path: '/analytics/loadProfile/list',
    body: () => firstPage(loadProfileAnalytics),
    raw: () => ({
      text: `select x.id, p.n::int as intervals, ${KWH('p.peak')} as demand_max, ${KWH('p.average')} as demand_avg,
          (select ${KWH('d.active_import - b.active_import')} from ${DAILY_CONSUMPTION}
            where d.meter_id = x.id and d.day = $1) as consumption
        from (${METER_PAGE}) x cross join lateral (select count(*) as n, max(p.active_power) as peak,
            round(avg(p.active_power)) as average
          from reading_profile p where p.meter_id = x.id and ${profileBetween('$1', '$1')}) p
        order by lower(x.dev_addr), x.id`,
      values: [profileDay()],
    }),
    same: (
      data: {
        list: {
          meterId: string;
          intervals: number;
          demandMax: number | null;
          demandAvg: number | null;
          consumption: number | null;
        }[];
      },
      rows,
    ) =>
      data.list.length === rows.length &&
      data.list.every((m, i) => {
        const r = rows[i];
        return (
          m.meterId === r?.id &&
          m.intervals === r.intervals &&
          m.demandMax === (r.demand_max ?? null) &&
          m.demandAvg === (r.demand_avg ?? null) &&
          m.consumption === (r.consumption ?? null)
        );
      }),
  },
  {
    name: 'load profile: summary and chart (yesterday)',
    path: '/analytics/loadProfile/summary',
    body: () => summaryOf(loadProfileAnalytics),
    raw: () => ({
      text: `with per as (select p.meter_id, count(*) as n, max(p.active_power) as peak from reading_profile p
          where ${profileBetween('$1', '$1')} group by p.meter_id)
        select (select count(*) from meter m where ${REPORTING})::int as meters,
          (count(*) filter (where ${REPORTING} and per.n >= ${INTERVALS_PER_DAY}))::int as complete,
          (count(*) filter (where ${REPORTING} and per.n > 0))::int as read,
          coalesce(sum(per.n) filter (where ${REPORTING}), 0)::float8 as intervals, ${KWH('max(per.peak)')} as demand_max
        from per join meter m on m.id = per.meter_id`,
      values: [profileDay()],
    }),
    same: (
      data: {
        figures: {
          meters: number;
          metersComplete: number;
          metersPartial: number;
          metersNone: number;
          completeness: number | null;
          demandMax: number | null;
        };
      },
      [r],
    ) =>
      data.figures.meters === r?.meters &&
      data.figures.metersComplete === r.complete &&
      data.figures.metersPartial === num(r.read) - num(r.complete) &&
      data.figures.metersNone === num(r.meters) - num(r.read) &&
      data.figures.completeness === percent(r.intervals, num(r.meters) * INTERVALS_PER_DAY) &&
      data.figures.demandMax === (r.demand_max ?? null),
  },
  {
    name: 'load profile detail: intervals (yesterday)',
    path: '/analytics/loadProfileDetail/list',
    body: (c) => ({ ...curvesBody(c), curPage: 1, pageSize: PAGE_SIZE }),
    raw: (c) => ({
      text: `select count(*) over ()::int as total, p.ts, ${KWH('p.active_power')} as active_power
        from reading_profile p where p.meter_id = $2 and ${profileBetween('$1', '$1')} order by p.ts limit ${PAGE_SIZE}`,
      values: [profileDay(), c.meterId],
    }),
    same: (data: { list: { ts: string; activePower: number | null }[]; total: number }, rows) =>
      data.list.length === rows.length &&
      (rows.length === 0 || data.total === num(rows[0]?.total)) &&
      data.list.every((p, i) => sameMoment(p.ts, rows[i]?.ts) && p.activePower === (rows[i]?.active_power ?? null)),
    note: CURVE_NOTE,
  },
  {
    name: 'load profile detail: curve and summary (yesterday)',
    path: '/analytics/loadProfileDetail/summary',
    body: curvesBody,
    raw: (c) => ({
      text: `select count(*)::int as intervals, ${KWH('max(p.active_power)')} as demand_max,
          (array_agg(p.ts order by p.active_power desc, p.ts))[1] as peak_at
        from reading_profile p where p.meter_id = $2 and ${profileBetween('$1', '$1')}`,
      values: [profileDay(), c.meterId],
    }),
    same: (
      data: { figures: { intervals: number; demandMax: number | null; peakAt: string | null }; points: unknown[] },
      [r],
    ) =>
      data.figures.intervals === r?.intervals &&
      data.points.length === r.intervals &&
      data.figures.demandMax === (r.demand_max ?? null) &&
      sameMoment(data.figures.peakAt, r.peak_at),
    note: CURVE_NOTE,
  },
];
