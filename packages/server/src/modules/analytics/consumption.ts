import {
  type ConsumptionDayRow,
  type ConsumptionRow,
  consumptionAnalytics,
  consumptionApi,
  consumptionDetailAnalytics,
  consumptionDetailApi,
} from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { archiveCount } from '../../db/schema';
import { meterDaySource } from '../payment/virtual-meter';
import { type AnalyticsRequest, inPlace, type PageRequest, registerAnalytics } from './kit';

/** Wh (or W) as the screens show them: kWh (kW) with three decimals. */
export const kilo = (expression: SQL) => sql`round((${expression})::numeric / 1000, 3)::float8`;

/** The meters a request reaches: its subtree, narrowed to a DCU, a meter or a consumer type. */
export function metersIn({ place }: AnalyticsRequest): SQL {
  return sql`select m.id, m.dev_addr, m.grid_id, m.dcu_id, m.virtual from meter m
    ${place.consumerType ? sql`join poc p on p.meter_id = m.id join consumer c on c.id = p.consumer_id and c.consumer_type = ${place.consumerType}` : sql``}
    where ${inPlace(place, sql.raw('m.grid_id'))}
    ${place.dcuId ? sql`and m.dcu_id = ${place.dcuId}` : sql``}
    ${place.meterId ? sql`and m.id = ${place.meterId}` : sql``}`;
}

/** Whether the request reaches whole grid nodes, so the grid rollups answer its totals. */
export const wholeNodes = ({ place }: AnalyticsRequest) => !place.dcuId && !place.meterId && !place.consumerType;

/**
 * How many meters a request reaches, of `statuses` only (real meters) when given; `meters`, when a page
 * narrows them further, are counted as they are. Whole grid nodes add up their archive counts (a few
 * rows per node, kept by the meter table's triggers) instead of counting every meter on each call.
 */
export async function countMeters(
  db: Db,
  request: AnalyticsRequest,
  { statuses, meters }: { statuses?: readonly number[]; meters?: SQL } = {},
): Promise<number> {
  const [row] = await rowsOf<{ n: number }>(
    db,
    wholeNodes(request) && !meters
      ? sql`select coalesce(sum(c.n), 0)::int as n from ${archiveCount} c
          where ${statuses ? sql`c.facet = 'meter' and c.value in (${sql.join(statuses.map(String), sql`, `)})` : sql`c.facet in ('meter', 'virtualMeter')`}
            and ${inPlace(request.place, sql.raw('c.grid_id'))}`
      : sql`select count(*)::int as n from (${meters ?? metersIn(request)}
          ${statuses && !meters ? sql`and m.status in (${sql.join([...statuses], sql`, `)}) and not m.virtual` : sql``}) m`,
  );
  return Number(row?.n ?? 0);
}

const SORTS: Record<string, string> = {
  devAddr: 'lower(dev_addr)',
  consumption: 'consumption',
  dailyAverage: 'daily_average',
  demandMax: 'demand_max',
};

/** What a row shows of its meter's neighbours. */
export const NEIGHBOURS = sql`(select grid_name from power_grid g where g.id = x.grid_id) as "gridName",
  (select dcu_no from dcu d where d.id = x.dcu_id) as "dcuNo",
  (select c.consumer_type from poc p join consumer c on c.id = p.consumer_id where p.meter_id = x.id) as "consumerType"`;

/** A meter's figures over the period, from its daily rollups (one index range per meter). */
const FIGURES = (start: string, end: string) => sql`
  select ${kilo(sql`sum(r.consumption)`)} as consumption, count(r.consumption)::int as days_known,
    ${kilo(sql`avg(r.consumption)`)} as daily_average, ${kilo(sql`max(r.demand_max)`)} as demand_max
  from ${meterDaySource(sql.raw('x.id'), start, end, sql.raw('x.virtual'))}`;

async function consumptionRows(db: Db, request: AnalyticsRequest, page: PageRequest) {
  const { start, end } = request.period;
  const order = SORTS[page.sortField ?? ''] ?? 'lower(dev_addr)';
  const direction = page.sortOrder === 'descend' ? sql.raw('desc nulls last') : sql.raw('asc nulls last');
  const offset = (page.curPage - 1) * page.pageSize;
  const meters = metersIn(request);
  // In serial order a page needs its own meters' figures only; a sort by a figure needs every meter's.
  const rows = await rowsOf<Record<string, unknown>>(
    db,
    order === 'lower(dev_addr)'
      ? sql`select x.id as "meterId", x.dev_addr as "devAddr", x.grid_id as "gridId", x.dcu_id as "dcuId",
            f.consumption, f.days_known as "daysKnown", f.daily_average as "dailyAverage", f.demand_max as "demandMax",
            ${NEIGHBOURS}
          from (${meters} order by lower(m.dev_addr) ${direction}, m.id limit ${page.pageSize} offset ${offset}) x
          cross join lateral (${FIGURES(start, end)}) f
          order by lower(x.dev_addr) ${direction}, x.id`
      : sql`select x.id as "meterId", x.dev_addr as "devAddr", x.grid_id as "gridId", x.dcu_id as "dcuId",
            x.consumption, x.days_known as "daysKnown", x.daily_average as "dailyAverage", x.demand_max as "demandMax",
            ${NEIGHBOURS}
          from (select x.*, f.* from (${meters}) x cross join lateral (${FIGURES(start, end)}) f
                order by ${sql.raw(order)} ${direction}, x.id limit ${page.pageSize} offset ${offset}) x
          order by ${sql.raw(order)} ${direction}, x.id`,
  );
  return {
    list: rows as ConsumptionRow[],
    total: await countMeters(db, request),
    curPage: page.curPage,
    pageSize: page.pageSize,
  };
}

async function consumptionSummary(db: Db, request: AnalyticsRequest) {
  const { start, end } = request.period;
  const days = sql`select generate_series(${start}::date, ${end}::date, interval '1 day')::date as day`;
  const perDay = wholeNodes(request)
    ? // A node's day with no meter's consumption yet (today's, before its register is frozen) is unknown, not 0.
      sql`select g.day, case when sum(g.meters_with_consumption) > 0 then sum(g.consumption) end as wh from rollup_grid_day g
        where g.day between ${start} and ${end} and ${inPlace(request.place, sql.raw('g.grid_id'))} group by g.day`
    : sql`select r.day, sum(r.consumption) as wh from (${metersIn(request)}) m
        join rollup_meter_day r on r.meter_id = m.id and r.day between ${start} and ${end} group by r.day`;
  const points = await rowsOf<{ day: string; consumption: number | null }>(
    db,
    sql`select to_char(d.day, 'YYYY-MM-DD') as day, ${kilo(sql`p.wh`)} as consumption
      from (${days}) d left join (${perDay}) p on p.day = d.day order by d.day`,
  );
  const meters = await countMeters(db, request);
  const known = points.filter((p) => p.consumption !== null);
  const total = known.reduce((sum, p) => sum + (p.consumption ?? 0), 0);
  const peak = known.reduce<(typeof known)[number] | undefined>(
    (best, p) => (!best || (p.consumption ?? 0) > (best.consumption ?? 0) ? p : best),
    undefined,
  );
  return {
    figures: {
      meters,
      consumption: known.length ? Math.round(total * 1000) / 1000 : null,
      dailyAverage: known.length ? Math.round((total / known.length) * 1000) / 1000 : null,
      peakDay: peak?.day ?? null,
    },
    points,
  };
}

const DAY_SORTS: Record<string, string> = { day: 'r.day', consumption: 'r.consumption', demandMax: 'r.demand_max' };

async function meterDays(db: Db, request: AnalyticsRequest, page: PageRequest) {
  const { start, end } = request.period;
  const meterId = request.place.meterId as string;
  const order = DAY_SORTS[page.sortField ?? ''] ?? 'r.day';
  const direction = sql.raw(page.sortOrder === 'ascend' ? 'asc nulls last' : 'desc nulls last');
  const days = meterDaySource(sql`${meterId}`, start, end);
  const list = await rowsOf<ConsumptionDayRow>(
    db,
    sql`select to_char(r.day, 'YYYY-MM-DD') as day, r.meter_id as "meterId", ${kilo(sql`r.consumption`)} as consumption,
        ${kilo(sql`r.demand_min`)} as "demandMin", ${kilo(sql`r.demand_avg`)} as "demandAvg",
        ${kilo(sql`r.demand_max`)} as "demandMax", r.intervals
      from ${days}
      order by ${sql.raw(order)} ${direction}, r.day desc limit ${page.pageSize} offset ${(page.curPage - 1) * page.pageSize}`,
  );
  const [{ total }] = (await rowsOf<{ total: number }>(db, sql`select count(*)::int as total from ${days}`)) as [
    { total: number },
  ];
  return { list, total, curPage: page.curPage, pageSize: page.pageSize };
}

async function meterDaySummary(db: Db, request: AnalyticsRequest) {
  const { start, end } = request.period;
  const meterId = request.place.meterId as string;
  const points = await rowsOf<{ day: string; consumption: number | null; demandMax: number | null }>(
    db,
    sql`select to_char(d.day, 'YYYY-MM-DD') as day, ${kilo(sql`r.consumption`)} as consumption, ${kilo(sql`r.demand_max`)} as "demandMax"
      from generate_series(${start}::date, ${end}::date, interval '1 day') d(day)
      left join ${meterDaySource(sql`${meterId}`, start, end)} on r.day = d.day::date order by d.day`,
  );
  const [figures] = (await rowsOf<{
    devAddr: string;
    consumption: number | null;
    dailyAverage: number | null;
    demandMax: number | null;
  }>(
    db,
    sql`select m.dev_addr as "devAddr", ${kilo(sql`sum(r.consumption)`)} as consumption,
        ${kilo(sql`avg(r.consumption)`)} as "dailyAverage", ${kilo(sql`max(r.demand_max)`)} as "demandMax"
      from meter m left join ${meterDaySource(sql`${meterId}`, start, end)} on true
      where m.id = ${meterId} group by m.dev_addr`,
  )) as [{ devAddr: string; consumption: number | null; dailyAverage: number | null; demandMax: number | null }];
  return { figures, points };
}

/** /dataAnalytic/consumptionData and its detail. */
export function registerConsumptionAnalytics(app: FastifyInstance, db: Db): void {
  registerAnalytics(app, db, consumptionAnalytics, consumptionApi, {
    rows: (request, page) => consumptionRows(db, request, page),
    summary: (request) => consumptionSummary(db, request),
  });
  registerAnalytics(app, db, consumptionDetailAnalytics, consumptionDetailApi, {
    rows: (request, page) => meterDays(db, request, page),
    summary: (request) => meterDaySummary(db, request),
  });
}
