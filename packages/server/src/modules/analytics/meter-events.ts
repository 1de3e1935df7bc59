import {
  type AcknowledgeRequest,
  type AcknowledgeResult,
  EVENT_LEVELS,
  type EventCodeOption,
  MAX_TIMELINE_EVENTS,
  meterEventsAnalytics,
  meterEventsApi,
  meterEventsDetailAnalytics,
  meterEventsDetailApi,
  RESULT,
  resolvePeriod,
  type StormGroup,
  type StormQuery,
} from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db, Executor } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { fieldError } from '../../errors/api-error';
import { registerOperation } from '../../http/operation';
import { gridScope, type Scope, scopeOf } from '../../rbac/scope';
import { ensurePartitions } from '../../readings/partitions';
import { lockRollups, type RollupKey, recomputeEventDays } from '../../readings/rollups';
import { type AnalyticsRequest, inPlace, type PageRequest, type Place, registerAnalytics, resolvePlace } from './kit';

/*
 * The meter events page and a meter's timeline. Counts (totals, the summary, the chart, storms) read
 * the event rollups; the events themselves are read from meter_event on its time index within the
 * period, in the caller's grid scope.
 */

/** A moment as the API writes it (ISO 8601, UTC, milliseconds): the key an acknowledgement names an event by. */
const isoText = (expression: SQL) => sql`to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const dayStart = (day: string) => sql`(${day}::date::timestamp at time zone 'UTC')`;
const dayEnd = (day: string) => sql`((${day}::date + 1)::timestamp at time zone 'UTC')`;
const levelIndex = (level: unknown) => EVENT_LEVELS.indexOf(level as (typeof EVENT_LEVELS)[number]);
const levelName = (index: number) => EVENT_LEVELS[index] ?? 'regular';
const and = (parts: (SQL | false | undefined)[]) =>
  sql.join(
    parts.filter((p): p is SQL => !!p),
    sql` and `,
  );

/** The event filters of a request (level, code, acknowledged) as conditions on the columns of `alias`. */
function eventConditions(body: Record<string, unknown>, alias: string, acknowledged: string): SQL[] {
  const column = (name: string) => sql.raw(`${alias}.${name}`);
  const conditions: SQL[] = [];
  if (body.level !== undefined) conditions.push(sql`${column('level')} = ${levelIndex(body.level)}`);
  if (body.code !== undefined) conditions.push(sql`${column('code')} = ${body.code as number}`);
  if (body.acknowledged === true) conditions.push(sql.raw(acknowledged));
  return conditions;
}

/**
 * The rollup rows a request counts (alias `r`): one meter's, or the grid nodes' per DCU, narrowed to
 * the place, the period and the event filters; `counted` is what a row counts (the acknowledged flag
 * narrows it to one part of its events).
 */
function eventRollup({ place, period, body }: AnalyticsRequest): { source: SQL; counted: SQL } {
  const table = place.meterId ? sql.raw('rollup_meter_event_day') : sql.raw('rollup_grid_event_day');
  const where = and([
    place.meterId ? sql`r.meter_id = ${place.meterId}` : undefined,
    inPlace(place, sql.raw('r.grid_id')),
    place.dcuId ? sql`r.dcu_id = ${place.dcuId}` : undefined,
    sql`r.day between ${period.start} and ${period.end}`,
    ...eventConditions(body, 'r', 'r.acknowledged > 0'),
    body.acknowledged === false ? sql`r.events > r.acknowledged` : undefined,
  ]);
  const counted =
    body.acknowledged === true
      ? sql.raw('r.acknowledged')
      : body.acknowledged === false
        ? sql.raw('(r.events - r.acknowledged)')
        : sql.raw('r.events');
  return { source: sql`select r.* from ${table} r where ${where}`, counted };
}

/** The events of a request as rows of meter_event (alias `e`) joined with their meter (`m`), in the scope. */
function eventRows({ place, period, body }: AnalyticsRequest): SQL {
  return sql`from meter_event e join meter m on m.id = e.meter_id
    where ${and([
      sql`e.ts >= ${dayStart(period.start)} and e.ts < ${dayEnd(period.end)}`,
      place.meterId ? sql`e.meter_id = ${place.meterId}` : inPlace(place, sql.raw('m.grid_id')),
      place.dcuId ? sql`m.dcu_id = ${place.dcuId}` : undefined,
      ...eventConditions(body, 'e', 'e.ack_at is not null'),
      body.acknowledged === false ? sql`e.ack_at is null` : undefined,
    ])}`;
}

/** What a row shows of an event, from meter_event `e` (and its meter's columns in `x`). */
const EVENT_COLUMNS = sql`${isoText(sql.raw('x.ts'))} as time, x.code, x.level,
  coalesce((select d.name from event_definition d where d.code = x.code), '') as name,
  x.ack_at is not null as acknowledged, (select u.username from sys_user u where u.id = x.ack_by) as "ackByName",
  ${isoText(sql.raw('x.ack_at'))} as "ackAt", x.ack_remark as "ackRemark"`;

type RawEvent = { time: string; code: number; level: number; meterId: string } & Record<string, unknown>;
const withKey = <R extends RawEvent>(row: R) => ({
  ...row,
  level: levelName(row.level),
  key: `${row.meterId}/${row.time}/${row.code}`,
});

async function total(db: Executor, request: AnalyticsRequest): Promise<number> {
  const { source, counted } = eventRollup(request);
  const [row] = await rowsOf<{ total: number }>(
    db,
    sql`select coalesce(sum(${counted}), 0)::int as total from (${source}) r`,
  );
  return row?.total ?? 0;
}

async function eventPage(db: Db, request: AnalyticsRequest, page: PageRequest, meterColumns: boolean) {
  const direction = sql.raw(page.sortOrder === 'ascend' ? 'asc' : 'desc');
  const neighbours = meterColumns
    ? sql`, x.dev_addr as "devAddr", x.grid_id as "gridId", x.dcu_id as "dcuId",
        (select g.grid_name from power_grid g where g.id = x.grid_id) as "gridName",
        (select d.dcu_no from dcu d where d.id = x.dcu_id) as "dcuNo"`
    : sql``;
  // The page first, in the time index's order; its names are looked up for its rows only.
  const rows = await rowsOf<RawEvent>(
    db,
    sql`select x.meter_id as "meterId", ${EVENT_COLUMNS} ${neighbours}
      from (select e.*, m.dev_addr, m.grid_id, m.dcu_id ${eventRows(request)}
            order by e.ts ${direction}, e.meter_id, e.code
            limit ${page.pageSize} offset ${(page.curPage - 1) * page.pageSize}) x
      order by x.ts ${direction}, x.meter_id, x.code`,
  );
  return {
    list: rows.map(withKey),
    total: await total(db, request),
    curPage: page.curPage,
    pageSize: page.pageSize,
  };
}

/** Events per day and level over the period (every day present), and the unacknowledged ones, from the rollups. */
async function perDay(db: Executor, request: AnalyticsRequest) {
  const { start, end } = request.period;
  const { source, counted } = eventRollup(request);
  const points = await rowsOf<{ day: string; regular: number; medium: number; severe: number; open: number }>(
    db,
    sql`select to_char(d.day, 'YYYY-MM-DD') as day,
        coalesce(sum(x.n) filter (where x.level = 0), 0)::int as regular,
        coalesce(sum(x.n) filter (where x.level = 1), 0)::int as medium,
        coalesce(sum(x.n) filter (where x.level = 2), 0)::int as severe,
        coalesce(sum(x.open), 0)::int as open
      from generate_series(${start}::date, ${end}::date, interval '1 day') d(day)
      left join (select r.day, r.level, sum(${counted}) as n,
          sum(${request.body.acknowledged === true ? sql`0` : sql`r.events - r.acknowledged`}) as open
        from (${source}) r group by r.day, r.level) x on x.day = d.day::date
      group by d.day order by d.day`,
  );
  const sum = (key: 'regular' | 'medium' | 'severe' | 'open') => points.reduce((n, p) => n + p[key], 0);
  return {
    figures: {
      events: sum('regular') + sum('medium') + sum('severe'),
      regular: sum('regular'),
      medium: sum('medium'),
      severe: sum('severe'),
      unacknowledged: sum('open'),
    },
    points: points.map(({ open: _open, ...point }) => point),
  };
}

/** A meter's timeline: its newest events of the period (at most MAX_TIMELINE_EVENTS), oldest first, each in its level's series. */
async function timeline(db: Db, request: AnalyticsRequest) {
  const events = await rowsOf<{ time: string; code: number; level: number }>(
    db,
    sql`select ${isoText(sql.raw('x.ts'))} as time, x.code, x.level
      from (select e.ts, e.code, e.level ${eventRows(request)}
            order by e.ts desc, e.code limit ${MAX_TIMELINE_EVENTS}) x
      order by x.ts, x.code`,
  );
  return events.map((e) => ({
    time: e.time,
    regular: e.level === 0 ? e.code : null,
    medium: e.level === 1 ? e.code : null,
    severe: e.level === 2 ? e.code : null,
  }));
}

async function meterSummary(db: Db, request: AnalyticsRequest) {
  const { figures } = await perDay(db, request);
  const [meter] = await rowsOf<{ devAddr: string }>(
    db,
    sql`select dev_addr as "devAddr" from meter where id = ${request.place.meterId as string}`,
  );
  return {
    figures: {
      devAddr: meter?.devAddr ?? '',
      events: figures.events,
      severe: figures.severe,
      unacknowledged: figures.unacknowledged,
    },
    points: await timeline(db, request),
  };
}

const STORM_ORDER: Record<string, string> = {
  lastTime: 'last_ts',
  events: 'events',
  unacknowledged: 'unacknowledged',
};

/**
 * The period's events grouped by DCU and code, from the grid rollups (one meter's, when the request
 * names a meter), a page of groups at a time; each group's meters are counted for the page's groups only.
 */
async function storms(db: Db, request: AnalyticsRequest, page: PageRequest) {
  const { start, end } = request.period;
  const { source } = eventRollup({ ...request, body: { ...request.body, acknowledged: undefined } });
  const ack = request.body.acknowledged;
  const groups = sql`select r.dcu_id, r.code, max(r.level)::int as level, sum(r.events)::int as events,
      sum(r.acknowledged)::int as acknowledged, (sum(r.events) - sum(r.acknowledged))::int as unacknowledged,
      min(r.first_ts) as first_ts, max(r.last_ts) as last_ts
    from (${source}) r where r.dcu_id is not null group by r.dcu_id, r.code
    ${ack === false ? sql`having sum(r.events) > sum(r.acknowledged)` : ack === true ? sql`having sum(r.events) = sum(r.acknowledged)` : sql``}`;
  const order = sql.raw(STORM_ORDER[page.sortField ?? ''] ?? 'last_ts');
  const direction = sql.raw(page.sortOrder === 'ascend' ? 'asc' : 'desc');
  const meterRows = and([
    sql`c.dcu_id = x.dcu_id and c.code = x.code and c.day between ${start} and ${end}`,
    request.place.meterId ? sql`c.meter_id = ${request.place.meterId}` : undefined,
    inPlace(request.place, sql.raw('c.grid_id')),
    request.body.level !== undefined ? sql`c.level = ${levelIndex(request.body.level)}` : undefined,
  ]);
  const rows = await rowsOf<Omit<StormGroup, 'key' | 'level'> & { level: number; total: number }>(
    db,
    sql`select x.dcu_id as "dcuId", x.code, x.level, x.events, x.acknowledged, x.unacknowledged,
        ${isoText(sql.raw('x.first_ts'))} as "firstTime", ${isoText(sql.raw('x.last_ts'))} as "lastTime",
        coalesce((select d.dcu_no from dcu d where d.id = x.dcu_id), '') as "dcuNo",
        (select g.grid_name from dcu d join power_grid g on g.id = d.grid_id where d.id = x.dcu_id) as "gridName",
        coalesce((select d.name from event_definition d where d.code = x.code), '') as name,
        (select count(distinct c.meter_id)::int from rollup_meter_event_day c where ${meterRows}) as meters, x.total
      from (select *, count(*) over ()::int as total from (${groups}) g order by ${order} ${direction}, dcu_id, code
        limit ${page.pageSize} offset ${(page.curPage - 1) * page.pageSize}) x
      order by x.${order} ${direction}, x.dcu_id, x.code`,
  );
  // The groups are counted with the page's rows; a page past the last group has none to carry the count.
  const total = rows[0]
    ? Number(rows[0].total)
    : Number((await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from (${groups}) g`))[0]?.n ?? 0);
  return {
    list: rows.map(({ level, total: _, ...row }) => ({
      ...row,
      key: `${row.dcuId}/${row.code}`,
      level: levelName(level),
    })),
    total,
    curPage: page.curPage,
    pageSize: page.pageSize,
  };
}

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Acknowledges, with the caller and a remark, the named events or a storm's, those of the caller's grid
 * scope only; an event acknowledged already keeps its first acknowledgement. A named event outside the
 * scope (or none) is not found, and then nothing is acknowledged; so is a storm holding none of the
 * caller's events. The event rollups of the days changed are recomputed in the same transaction.
 */
export async function acknowledgeEvents(
  db: Db,
  scope: Scope,
  userId: string,
  request: AcknowledgeRequest,
): Promise<AcknowledgeResult> {
  const remark = request.remark.trim();
  const inScope = gridScope(scope, sql.raw('m.grid_id')) ?? sql`true`;
  const storm = request.storm;
  const place: Place | null = storm?.gridId
    ? await resolvePlace(db, scope, { gridId: storm.gridId }).catch(() => {
        throw fieldError(RESULT.notFound, 'storm.gridId', 'notFound');
      })
    : null;
  return db.transaction(async (tx) => {
    // The rollup fold's lock first, as the fold takes it: the rows recomputed below are then never
    // overwritten by a fold that read the events before this acknowledgement.
    await lockRollups(tx);
    let matched: SQL;
    let span: [number, number];
    if (storm) {
      span = [Date.parse(storm.from), Date.parse(storm.to)];
      matched = sql`e.code = ${storm.code} and e.ts >= ${storm.from}::timestamptz and e.ts <= ${storm.to}::timestamptz
        and e.meter_id in (select distinct r.meter_id from rollup_meter_event_day r join meter m on m.id = r.meter_id
          where r.dcu_id = ${storm.dcuId} and r.code = ${storm.code}
            and r.day between ${utcDay(span[0])} and ${utcDay(span[1])}
            and ${place ? inPlace(place, sql.raw('r.grid_id')) : sql`true`} and ${inScope})`;
    } else {
      const events = request.events ?? [];
      const times = events.map((e) => Date.parse(e.time));
      span = [Math.min(...times), Math.max(...times)];
      const keys = sql`(select * from jsonb_to_recordset(${JSON.stringify(
        events.map((e, i) => ({ i, meter_id: e.meterId, ts: e.time, code: e.code })),
      )}::jsonb) as k(i int, meter_id varchar, ts timestamptz, code int))`;
      // The time span bounds the partitions read; every key is looked up on the table's key.
      const within = sql`e.ts >= ${new Date(span[0]).toISOString()}::timestamptz and e.ts <= ${new Date(span[1]).toISOString()}::timestamptz`;
      const [missing] = await rowsOf<{ i: number }>(
        tx,
        sql`select k.i from ${keys} k where not exists (select 1 from meter_event e join meter m on m.id = e.meter_id
            where e.meter_id = k.meter_id and e.ts = k.ts and e.code = k.code and ${within} and ${inScope})
          order by k.i limit 1`,
      );
      if (missing) throw fieldError(RESULT.notFound, `events.${missing.i}`, 'notFound');
      matched = sql`${within} and (e.meter_id, e.ts, e.code) in (select k.meter_id, k.ts, k.code from ${keys} k)`;
    }
    const changed = await rowsOf<{ meter_id: string; day: string; n: number }>(
      tx,
      sql`with changed as (update meter_event e set ack_by = ${userId}, ack_at = now(), ack_remark = ${remark}
          where ${matched} and e.ack_at is null returning e.meter_id, (e.ts at time zone 'UTC')::date as day)
        select meter_id, day::text as day, count(*)::int as n from changed group by meter_id, day`,
    );
    const acknowledged = changed.reduce((n, k) => n + k.n, 0);
    const [{ events }] = (await rowsOf<{ events: number }>(
      tx,
      sql`select count(*)::int as events from meter_event e where ${matched}`,
    )) as [{ events: number }];
    if (storm && events === 0) throw fieldError(RESULT.notFound, 'storm.dcuId', 'notFound');
    const keys: RollupKey[] = changed.map((k) => ({ meterId: k.meter_id, day: k.day }));
    if (keys.length) {
      await ensurePartitions(tx, new Date(Math.floor(span[0] / DAY_MS) * DAY_MS), new Date(span[1]), [
        'rollup_meter_event_day',
      ]);
      await recomputeEventDays(tx, keys);
    }
    return { acknowledged, already: events - acknowledged };
  });
}

/** The event definitions a filter picks a code from. */
async function eventCodes(db: Db): Promise<EventCodeOption[]> {
  return rowsOf<EventCodeOption>(db, sql`select code, name, level from event_definition order by code`);
}

/** /dataAnalytic/meterEvents, its storms and acknowledgements, and a meter's timeline (meterEventsDetail). */
export function registerMeterEventsAnalytics(app: FastifyInstance, db: Db): void {
  registerAnalytics(app, db, meterEventsAnalytics, meterEventsApi, {
    rows: (request, page) => eventPage(db, request, page, true),
    summary: (request) => perDay(db, request),
  });
  registerAnalytics(app, db, meterEventsDetailAnalytics, meterEventsDetailApi, {
    rows: (request, page) => eventPage(db, request, page, false),
    summary: (request) => meterSummary(db, request),
  });
  registerOperation(app, meterEventsApi.storms, async ({ body, session }) => {
    const scope = await scopeOf(db, session);
    const input: StormQuery = body;
    const request: AnalyticsRequest = {
      body: { ...input },
      scope,
      period: resolvePeriod(meterEventsAnalytics.period, { ...input }),
      place: await resolvePlace(db, scope, { ...input }),
    };
    return storms(db, request, input);
  });
  registerOperation(app, meterEventsApi.acknowledge, async ({ body, session, req }) => {
    const result = await acknowledgeEvents(db, await scopeOf(db, session), session.userId, body);
    req.auditNote = { acknowledged: String(result.acknowledged), already: String(result.already) };
    return result;
  });
  registerOperation(app, meterEventsApi.codes, () => eventCodes(db));
}
