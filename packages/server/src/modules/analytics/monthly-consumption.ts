import {
  addMonths,
  type MonthlyConsumptionMonthRow,
  type MonthlyConsumptionRow,
  monthlyConsumptionAnalytics,
  monthlyConsumptionApi,
  monthlyConsumptionDetailAnalytics,
  monthlyConsumptionDetailApi,
  type Period,
} from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { kilo, metersIn, NEIGHBOURS, wholeNodes } from './consumption';
import { type AnalyticsRequest, inPlace, type PageRequest, registerAnalytics } from './kit';

/**
 * The period's months as first days, in order (`month`), and how many there are. A VALUES list rather
 * than generate_series, whose thousand-row guess made the planner expect 100 M meter-months at 100,000
 * meters (and compile the query: seconds) where there are 300,000.
 */
export function monthsOf({ start, end }: Period): { series: SQL; count: number } {
  const months: string[] = [];
  for (let month = start; month <= end; month = addMonths(month, 1)) months.push(`${month}-01`);
  return {
    series: sql`select month::date from (values ${sql.join(
      months.map((month) => sql`(${month})`),
      sql`, `,
    )}) as months(month)`,
    count: months.length,
  };
}

/** Days of month `mo.month` up to today (UTC): all of a past month, today's day of this one. */
const MONTH_DAYS = sql.raw(`least(
    (mo.month + interval '1 month')::date, (now() at time zone 'UTC')::date + 1) - mo.month`);

/** A month row `r` (rollup_meter_month) of month `mo` as the screens show it. */
const MONTH_FIGURES = sql`to_char(mo.month, 'YYYY-MM') as month, ${kilo(sql`r.consumption`)} as consumption,
  coalesce(r.days_known, 0) as "daysKnown", ${MONTH_DAYS} as "monthDays",
  ${kilo(sql`r.consumption::numeric / nullif(r.days_known, 0)`)} as "dailyAverage", ${kilo(sql`r.demand_max`)} as "demandMax"`;

const SORTS: Record<string, string> = {
  consumption: 'r.consumption',
  dailyAverage: 'r.consumption::numeric / nullif(r.days_known, 0)',
  demandMax: 'r.demand_max',
};

/**
 * A row per meter and month. In serial order a page is a run of meters' months: the meters are paged
 * first (those the page's rows fall on) and only their months read, on the month rollup's key. A sort
 * by a figure ranks every meter's months of the period (one month row each, not their days).
 */
async function monthRows(db: Db, request: AnalyticsRequest, page: PageRequest) {
  const months = monthsOf(request.period);
  const meters = metersIn(request);
  const direction = sql.raw(page.sortOrder === 'descend' ? 'desc nulls last' : 'asc nulls last');
  const offset = (page.curPage - 1) * page.pageSize;
  const figure = SORTS[page.sortField ?? ''];
  const columns = sql`x.id as "meterId", x.dev_addr as "devAddr", x.grid_id as "gridId", x.dcu_id as "dcuId"`;
  let list: MonthlyConsumptionRow[];
  if (!figure) {
    const skip = offset % months.count;
    list = await rowsOf<MonthlyConsumptionRow>(
      db,
      sql`select ${columns}, ${MONTH_FIGURES}, ${NEIGHBOURS}
        from (${meters} order by lower(m.dev_addr) ${direction}, m.id
              limit ${Math.ceil((skip + page.pageSize) / months.count)} offset ${Math.floor(offset / months.count)}) x
        cross join (${months.series}) mo
        left join rollup_meter_month r on r.meter_id = x.id and r.month = mo.month
        order by lower(x.dev_addr) ${direction}, x.id, mo.month offset ${skip} limit ${page.pageSize}`,
    );
  } else {
    list = await rowsOf<MonthlyConsumptionRow>(
      db,
      sql`select ${columns}, ${MONTH_FIGURES}, ${NEIGHBOURS}
        from (select x.*, mo.month as ranked_month from (${meters}) x cross join (${months.series}) mo
              left join rollup_meter_month r on r.meter_id = x.id and r.month = mo.month
              order by ${sql.raw(figure)} ${direction}, x.id, mo.month limit ${page.pageSize} offset ${offset}) x
        cross join lateral (select x.ranked_month as month) mo
        left join rollup_meter_month r on r.meter_id = x.id and r.month = mo.month
        order by ${sql.raw(figure)} ${direction}, x.id, mo.month`,
    );
  }
  const [{ total }] = (await rowsOf<{ total: number }>(db, sql`select count(*)::int as total from (${meters}) m`)) as [
    { total: number },
  ];
  return { list, total: total * months.count, curPage: page.curPage, pageSize: page.pageSize };
}

async function monthSummary(db: Db, request: AnalyticsRequest) {
  const months = monthsOf(request.period);
  const { start, end } = request.period;
  const range = sql`between ${`${start}-01`}::date and ${`${end}-01`}::date`;
  // Whole grid nodes sum their nodes' month rows; a DCU, a meter or a consumer type its meters' rows.
  const perMonth = wholeNodes(request)
    ? sql`select g.month, case when sum(g.meters_with_consumption) > 0 then sum(g.consumption) end as wh
        from rollup_grid_month g where g.month ${range} and ${inPlace(request.place, sql.raw('g.grid_id'))}
        group by g.month`
    : sql`select r.month, sum(r.consumption) as wh from (${metersIn(request)}) m
        join rollup_meter_month r on r.meter_id = m.id and r.month ${range} group by r.month`;
  const points = await rowsOf<{ month: string; consumption: number | null }>(
    db,
    sql`select to_char(mo.month, 'YYYY-MM') as month, ${kilo(sql`p.wh`)} as consumption
      from (${months.series}) mo left join (${perMonth}) p on p.month = mo.month order by mo.month`,
  );
  const [{ meters }] = (await rowsOf<{ meters: number }>(
    db,
    sql`select count(*)::int as meters from (${metersIn(request)}) m`,
  )) as [{ meters: number }];
  const known = points.filter((p) => p.consumption !== null);
  const total = known.reduce((sum, p) => sum + (p.consumption ?? 0), 0);
  const peak = known.reduce<(typeof known)[number] | undefined>(
    (best, p) => (!best || (p.consumption ?? 0) > (best.consumption ?? 0) ? p : best),
    undefined,
  );
  return {
    figures: {
      meters,
      consumption: known.length ? round3(total) : null,
      monthlyAverage: known.length ? round3(total / known.length) : null,
      peakMonth: peak?.month ?? null,
    },
    points,
  };
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

const DETAIL_SORTS: Record<string, string> = {
  month: 'mo.month',
  consumption: 'r.consumption',
  demandMax: 'r.demand_max',
};

/** One meter's months, every month of the period (a month without a known day too), newest first. */
async function meterMonths(db: Db, request: AnalyticsRequest, page: PageRequest) {
  const months = monthsOf(request.period);
  const meterId = request.place.meterId as string;
  const order = DETAIL_SORTS[page.sortField ?? ''] ?? 'mo.month';
  const direction = sql.raw(page.sortOrder === 'ascend' ? 'asc nulls last' : 'desc nulls last');
  const list = await rowsOf<MonthlyConsumptionMonthRow>(
    db,
    sql`select ${meterId}::varchar as "meterId", ${MONTH_FIGURES}, coalesce(r.intervals, 0) as intervals
      from (${months.series}) mo left join rollup_meter_month r on r.meter_id = ${meterId} and r.month = mo.month
      order by ${sql.raw(order)} ${direction}, mo.month desc
      limit ${page.pageSize} offset ${(page.curPage - 1) * page.pageSize}`,
  );
  return { list, total: months.count, curPage: page.curPage, pageSize: page.pageSize };
}

async function meterMonthSummary(db: Db, request: AnalyticsRequest) {
  const months = monthsOf(request.period);
  const meterId = request.place.meterId as string;
  const points = await rowsOf<{ month: string; consumption: number | null; demandMax: number | null }>(
    db,
    sql`select to_char(mo.month, 'YYYY-MM') as month, ${kilo(sql`r.consumption`)} as consumption,
        ${kilo(sql`r.demand_max`)} as "demandMax"
      from (${months.series}) mo left join rollup_meter_month r on r.meter_id = ${meterId} and r.month = mo.month
      order by mo.month`,
  );
  const [{ devAddr }] = (await rowsOf<{ devAddr: string }>(
    db,
    sql`select dev_addr as "devAddr" from meter where id = ${meterId}`,
  )) as [{ devAddr: string }];
  const known = points.filter((p) => p.consumption !== null);
  const total = known.reduce((sum, p) => sum + (p.consumption ?? 0), 0);
  const demands = points.flatMap((p) => (p.demandMax === null ? [] : [p.demandMax]));
  return {
    figures: {
      devAddr,
      consumption: known.length ? round3(total) : null,
      monthlyAverage: known.length ? round3(total / known.length) : null,
      demandMax: demands.length ? Math.max(...demands) : null,
    },
    points,
  };
}

/** /dataAnalytic/monthlyConsumption and its detail, from the month rollups. */
export function registerMonthlyConsumptionAnalytics(app: FastifyInstance, db: Db): void {
  registerAnalytics(app, db, monthlyConsumptionAnalytics, monthlyConsumptionApi, {
    rows: (request, page) => monthRows(db, request, page),
    summary: (request) => monthSummary(db, request),
  });
  registerAnalytics(app, db, monthlyConsumptionDetailAnalytics, monthlyConsumptionDetailApi, {
    rows: (request, page) => meterMonths(db, request, page),
    summary: (request) => meterMonthSummary(db, request),
  });
}
