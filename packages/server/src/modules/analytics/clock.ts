import {
  addUtcDays,
  CLOCK_BANDS,
  type ClockRow,
  clockMonitoringAnalytics,
  clockMonitoringApi,
  DEFAULT_CLOCK_THRESHOLD_SECONDS,
  type Page,
} from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { countMeters, metersIn, NEIGHBOURS, wholeNodes } from './consumption';
import { type AnalyticsRequest, type PageRequest, registerAnalytics } from './kit';

/*
 * Clock monitoring reads each meter's latest clock check from meter_clock (kept by the readings writer
 * as checks arrive, readings/meter-clock.ts), never the raw checks.
 */

const thresholdOf = (request: AnalyticsRequest) =>
  (request.body.deviationSeconds as number | undefined) ?? DEFAULT_CLOCK_THRESHOLD_SECONDS;

const inPeriod = ({ period }: AnalyticsRequest) =>
  sql`c.checked_at >= ${`${period.start}T00:00:00Z`}::timestamptz and c.checked_at < ${`${addUtcDays(period.end, 1)}T00:00:00Z`}::timestamptz`;

/** The meters of the request with their latest check, when it falls in the period. */
function checkedMeters(request: AnalyticsRequest): SQL {
  return sql`select m.*, c.deviation_seconds, c.checked_at from (${metersIn(request)}) m
    join meter_clock c on c.meter_id = m.id where ${inPeriod(request)}`;
}

/**
 * The checks alone, for what counts them: a request reaching every meter (a caller holding everything,
 * nothing chosen) reads meter_clock without its meters (its rows leave with their meter), a few thousand
 * rows instead of as many meters read by key.
 */
function checks(request: AnalyticsRequest): SQL {
  return wholeNodes(request) && request.place.roots === null
    ? sql`select c.deviation_seconds from meter_clock c where ${inPeriod(request)}`
    : checkedMeters(request);
}

/** Reachable now, as the head-end sends only then: the meter online, and its DCU too when it has one. */
const ONLINE = sql`coalesce((select l.online from device_link l where l.device_kind = 'meter' and l.device_key = x.dev_addr), false)
  and (x.dcu_id is null or coalesce((select l.online from dcu d join device_link l on l.device_kind = 'dcu'
    and l.device_key = d.dcu_no where d.id = x.dcu_id), false))`;

const SORTS: Record<string, string> = {
  devAddr: 'lower(x.dev_addr)',
  deviationSeconds: 'abs(x.deviation_seconds)',
  checkedAt: 'x.checked_at',
};

async function clockRows(db: Db, request: AnalyticsRequest, page: PageRequest): Promise<Page<ClockRow>> {
  const order = sql.raw(SORTS[page.sortField ?? 'deviationSeconds'] ?? (SORTS.deviationSeconds as string));
  const byDefault = page.sortField === 'devAddr' ? 'asc' : 'desc';
  const dir = sql.raw(page.sortOrder === 'ascend' ? 'asc' : page.sortOrder === 'descend' ? 'desc' : byDefault);
  const beyond = sql`select * from (${checkedMeters(request)}) x where abs(x.deviation_seconds) >= ${thresholdOf(request)}`;
  const list = await rowsOf<ClockRow>(
    db,
    sql`select x.id as "meterId", x.dev_addr as "devAddr", x.grid_id as "gridId", x.dcu_id as "dcuId",
        x.deviation_seconds as "deviationSeconds",
        to_char(x.checked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "checkedAt",
        ${ONLINE} as online, ${NEIGHBOURS}
      from (${beyond} order by ${order} ${dir}, x.id ${dir}
            limit ${page.pageSize} offset ${(page.curPage - 1) * page.pageSize}) x
      order by ${order} ${dir}, x.id ${dir}`,
  );
  const [count] = await rowsOf<{ n: number }>(
    db,
    sql`select count(*)::int as n from (${checks(request)}) x where abs(x.deviation_seconds) >= ${thresholdOf(request)}`,
  );
  return { list, total: count?.n ?? 0, curPage: page.curPage, pageSize: page.pageSize };
}

async function clockSummary(db: Db, request: AnalyticsRequest) {
  const bands = sql.join(
    CLOCK_BANDS.map((band, i) => {
      const next = CLOCK_BANDS[i + 1];
      const upper = next ? sql` and abs(x.deviation_seconds) < ${next.from}` : sql``;
      return sql`count(*) filter (where abs(x.deviation_seconds) >= ${band.from}${upper})::int as ${sql.identifier(`b${i}`)}`;
    }),
    sql`, `,
  );
  const [row] = await rowsOf<Record<string, number | null>>(
    db,
    sql`select count(*)::int as checked,
        count(*) filter (where abs(x.deviation_seconds) >= ${thresholdOf(request)})::int as beyond,
        min(x.deviation_seconds) as lowest, max(x.deviation_seconds) as highest, ${bands}
      from (${checks(request)}) x`,
  );
  const figures = row as Record<string, number | null>;
  const meters = await countMeters(db, request);
  const { lowest, highest } = figures;
  return {
    figures: {
      meters,
      checked: figures.checked ?? 0,
      threshold: thresholdOf(request),
      beyond: figures.beyond ?? 0,
      largest:
        lowest === null || highest === null || lowest === undefined || highest === undefined
          ? null
          : Math.abs(lowest) > Math.abs(highest)
            ? lowest
            : highest,
    },
    points: CLOCK_BANDS.map((band, i) => ({ band: band.name, meters: figures[`b${i}`] ?? 0 })),
  };
}

/** /dataAnalytic/clockMonitoring; its clock sync is the batch operation's (/plan/createplan). */
export function registerClockAnalytics(app: FastifyInstance, db: Db): void {
  registerAnalytics(app, db, clockMonitoringAnalytics, clockMonitoringApi, {
    rows: (request, page) => clockRows(db, request, page),
    summary: (request) => clockSummary(db, request),
  });
}
