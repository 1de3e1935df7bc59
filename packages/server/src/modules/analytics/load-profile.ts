import {
  INTERVALS_PER_DAY,
  intervalSlot,
  type LoadProfileIntervalRow,
  type LoadProfileRow,
  loadProfileAnalytics,
  loadProfileApi,
  loadProfileDetailAnalytics,
  loadProfileDetailApi,
  PROFILE_STATES,
  type ProfileState,
  profileStateOf,
  REPORTING_METER_STATUSES,
  RESULT,
} from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { fieldError } from '../../errors/api-error';
import { gridScope } from '../../rbac/scope';
import { profileSource } from '../payment/virtual-meter';
import { countMeters, kilo, metersIn, NEIGHBOURS, wholeNodes } from './consumption';
import { type AnalyticsRequest, inPlace, type PageRequest, registerAnalytics } from './kit';

const DAY_MS = 86_400_000;

/** Intervals of the day's 96 a meter's day row `r` (rollup_meter_day) holds; none without a row. */
const INTERVALS = sql.raw('coalesce(r.intervals, 0)');

/** The request's meters, narrowed to a profile state of the day when the filter asks (a probe of its day row each). */
function profileMeters(request: AnalyticsRequest): SQL {
  const state = request.body.state as ProfileState | undefined;
  if (!state) return metersIn(request);
  const intervals = sql`coalesce((select r.intervals from rollup_meter_day r
    where r.meter_id = m.id and r.day = ${request.period.start}::date), 0)`;
  const condition: Record<ProfileState, SQL> = {
    complete: sql`${intervals} >= ${INTERVALS_PER_DAY}`,
    partial: sql`${intervals} between 1 and ${INTERVALS_PER_DAY - 1}`,
    none: sql`${intervals} = 0`,
  };
  return sql`${metersIn(request)} and ${condition[state]}`;
}

const SORTS: Record<string, string> = {
  intervals: 'coalesce(r.intervals, 0)',
  demandMax: 'r.demand_max',
  consumption: 'r.consumption',
};

/** The scope's meters with their day's profile from the day rollup; the raw intervals are never read here. */
async function profileRows(db: Db, request: AnalyticsRequest, page: PageRequest) {
  const day = sql`${request.period.start}::date`;
  const meters = profileMeters(request);
  const direction = sql.raw(page.sortOrder === 'descend' ? 'desc nulls last' : 'asc nulls last');
  const offset = (page.curPage - 1) * page.pageSize;
  const figure = SORTS[page.sortField ?? ''];
  const paged = figure
    ? sql`select x.* from (${meters}) x left join rollup_meter_day r on r.meter_id = x.id and r.day = ${day}
        order by ${sql.raw(figure)} ${direction}, x.id limit ${page.pageSize} offset ${offset}`
    : sql`${meters} order by lower(m.dev_addr) ${direction}, m.id limit ${page.pageSize} offset ${offset}`;
  const order = figure
    ? sql`order by ${sql.raw(figure)} ${direction}, x.id`
    : sql`order by lower(x.dev_addr) ${direction}, x.id`;
  const rows = await rowsOf<Omit<LoadProfileRow, 'state'>>(
    db,
    sql`select x.id as "meterId", x.dev_addr as "devAddr", x.grid_id as "gridId", x.dcu_id as "dcuId",
        ${INTERVALS} as intervals,
        round(${INTERVALS}::numeric * 100 / ${INTERVALS_PER_DAY}, 1)::float8 as completeness,
        ${kilo(sql`r.demand_max`)} as "demandMax", ${kilo(sql`r.demand_avg`)} as "demandAvg",
        ${kilo(sql`r.consumption`)} as consumption, ${NEIGHBOURS}
      from (${paged}) x left join rollup_meter_day r on r.meter_id = x.id and r.day = ${day}
      ${order}`,
  );
  const total = await countMeters(db, request, { meters: request.body.state ? meters : undefined });
  const list = rows.map((row) => ({ ...row, state: profileStateOf(row.intervals) }));
  return { list, total, curPage: page.curPage, pageSize: page.pageSize };
}

/** A meter the collection report expects to read (rollup_meter_day.reporting says the same of its rows). */
const EXPECTED = sql.raw(`m.status in (${REPORTING_METER_STATUSES.join(', ')}) and not m.virtual`);

/**
 * The day's profile over the scope's meters expected to report: how many are complete, partial or
 * without a profile, the share of their intervals stored and the highest demand. Whole grid nodes read
 * their grid day rows; anything narrower its meters' day rows.
 */
async function profileSummary(db: Db, request: AnalyticsRequest) {
  const day = sql`${request.period.start}::date`;
  const expected = sql`${profileMeters(request)} and ${EXPECTED}`;
  const meters = await countMeters(db, request, {
    statuses: REPORTING_METER_STATUSES,
    meters: request.body.state ? expected : undefined,
  });
  const [stored] = (await rowsOf<{ complete: number; read: number; intervals: number; demandMax: number | null }>(
    db,
    wholeNodes(request) && !request.body.state
      ? sql`select coalesce(sum(g.meters_complete), 0)::int as complete, coalesce(sum(g.meters_read), 0)::int as read,
            coalesce(sum(g.intervals), 0)::float8 as intervals, ${kilo(sql`max(g.demand_max)`)} as "demandMax"
          from rollup_grid_day g where g.day = ${day} and ${inPlace(request.place, sql.raw('g.grid_id'))}`
      : sql`select (count(*) filter (where r.intervals >= ${INTERVALS_PER_DAY}))::int as complete,
            (count(*) filter (where r.intervals > 0))::int as read, coalesce(sum(r.intervals), 0)::float8 as intervals,
            ${kilo(sql`max(r.demand_max)`)} as "demandMax"
          from (${expected}) m join rollup_meter_day r on r.meter_id = m.id and r.day = ${day}`,
  )) as [{ complete: number; read: number; intervals: number; demandMax: number | null }];
  const counts: Record<ProfileState, number> = {
    complete: stored.complete,
    partial: Math.max(0, stored.read - stored.complete),
    none: Math.max(0, meters - stored.read),
  };
  return {
    figures: {
      meters,
      metersComplete: counts.complete,
      metersPartial: counts.partial,
      metersNone: counts.none,
      completeness: meters ? Math.round((stored.intervals * 1000) / (meters * INTERVALS_PER_DAY)) / 10 : null,
      demandMax: stored.demandMax,
    },
    points: PROFILE_STATES.map((state) => ({ state, meters: counts[state] })),
  };
}

/**
 * The detail's meters, each within the caller's grid scope; one outside it (or unknown) is refused as
 * not found, naming the field, before any reading is read. Answers serials by id, in the order asked.
 */
async function overlayMeters(db: Db, request: AnalyticsRequest): Promise<Map<string, string>> {
  const ids = [...new Set(request.body.meterIds as string[])];
  const found = await rowsOf<{ id: string; devAddr: string }>(
    db,
    sql`select m.id, m.dev_addr as "devAddr" from meter m
      where m.id in (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )}) and ${gridScope(request.scope, sql.raw('m.grid_id')) ?? sql`true`}`,
  );
  if (found.length < ids.length) throw fieldError(RESULT.notFound, 'meterIds', 'notFound');
  const serials = new Map(found.map((m) => [m.id, m.devAddr]));
  return new Map(ids.map((id) => [id, serials.get(id) as string]));
}

/** The period's (00:00 first day, 24:00 last day] window: a day's intervals end in (00:00, 24:00]. */
const windowOf = (request: AnalyticsRequest) => ({
  from: new Date(`${request.period.start}T00:00:00.000Z`),
  to: new Date(Date.parse(`${request.period.end}T00:00:00.000Z`) + DAY_MS),
});

/** The channels scaled as the page shows them: the stored raw units are W, Wh, varh, dV and mA. */
const CHANNELS = sql`${kilo(sql`p.active_power`)} as "activePower", ${kilo(sql`p.active_import`)} as "activeImport",
  ${kilo(sql`p.active_export`)} as "activeExport", ${kilo(sql`p.reactive_import`)} as "reactiveImport",
  ${kilo(sql`p.reactive_export`)} as "reactiveExport", round(p.voltage_l1::numeric / 10, 1)::float8 as "voltageL1",
  ${kilo(sql`p.current_l1`)} as "currentL1"`;

/** An interval's end as the API writes moments (ISO 8601, UTC). */
const TS = sql.raw(`to_char(p.ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

const DETAIL_SORTS: Record<string, string> = {
  ts: 'p.ts',
  devAddr: 'm.dev_addr',
  activePower: 'p.active_power',
};

async function curveRows(db: Db, request: AnalyticsRequest, page: PageRequest) {
  const meters = await overlayMeters(db, request);
  const ids = [...meters.keys()];
  const window = windowOf(request);
  const order = DETAIL_SORTS[page.sortField ?? ''] ?? 'p.ts';
  const direction = sql.raw(page.sortOrder === 'descend' ? 'desc nulls last' : 'asc nulls last');
  const list = await rowsOf<LoadProfileIntervalRow>(
    db,
    sql`select p.meter_id as "meterId", m.dev_addr as "devAddr", ${TS} as ts, ${CHANNELS}
      from ${profileSource(ids, window.from, window.to)} join meter m on m.id = p.meter_id
      order by ${sql.raw(order)} ${direction}, p.ts, m.dev_addr
      limit ${page.pageSize} offset ${(page.curPage - 1) * page.pageSize}`,
  );
  const [{ total }] = (await rowsOf<{ total: number }>(
    db,
    sql`select count(*)::int as total from ${profileSource(ids, window.from, window.to)}`,
  )) as [{ total: number }];
  return { list, total, curPage: page.curPage, pageSize: page.pageSize };
}

type CurvePoint = Omit<LoadProfileIntervalRow, 'meterId' | 'devAddr' | 'ts'> & { slot: string; curve: string };

/**
 * The curves overlaid: each meter's day (several meters on one day are named by serial, one meter's
 * days by day), every point at its time of day so the days share the axis.
 */
async function curveSummary(db: Db, request: AnalyticsRequest) {
  const meters = await overlayMeters(db, request);
  const ids = [...meters.keys()];
  const window = windowOf(request);
  const rows = await rowsOf<LoadProfileIntervalRow>(
    db,
    sql`select p.meter_id as "meterId", ${TS} as ts, ${CHANNELS}
      from ${profileSource(ids, window.from, window.to)} order by p.meter_id, p.ts`,
  );
  const days = (Date.parse(request.period.end) - Date.parse(request.period.start)) / DAY_MS + 1;
  const byDay = meters.size === 1 && days > 1;
  let peak: { at: string; kw: number } | undefined;
  const points: CurvePoint[] = rows.map(({ meterId, ts, ...values }) => {
    const { day, slot } = intervalSlot(ts);
    if (values.activePower !== null && (!peak || values.activePower > peak.kw))
      peak = { at: ts, kw: values.activePower };
    return { slot, curve: byDay ? day : (meters.get(meterId) as string), ...values };
  });
  points.sort((a, b) => a.curve.localeCompare(b.curve) || a.slot.localeCompare(b.slot));
  return {
    figures: {
      curves: meters.size * days,
      intervals: rows.length,
      expected: meters.size * days * INTERVALS_PER_DAY,
      demandMax: peak?.kw ?? null,
      peakAt: peak?.at ?? null,
    },
    points,
  };
}

/** /dataAnalytic/loadProfile and its detail (15-minute curves overlaid). */
export function registerLoadProfileAnalytics(app: FastifyInstance, db: Db): void {
  registerAnalytics(app, db, loadProfileAnalytics, loadProfileApi, {
    rows: (request, page) => profileRows(db, request, page),
    summary: (request) => profileSummary(db, request),
  });
  registerAnalytics(app, db, loadProfileDetailAnalytics, loadProfileDetailApi, {
    rows: (request, page) => curveRows(db, request, page),
    summary: (request) => curveSummary(db, request),
  });
}
