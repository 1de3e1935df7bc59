import {
  addUtcDays,
  type DeviceOnlineDayRow,
  type DeviceOnlineRow,
  deviceOnlineAnalytics,
  deviceOnlineApi,
  deviceOnlineChangesApi,
  deviceOnlineDetailAnalytics,
  deviceOnlineDetailApi,
  type OnlineChangeRow,
  RESULT,
  resolvePeriod,
} from '@meterdesk/contracts';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { dcu, deviceOnline, meter } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { registerOperation } from '../../http/operation';
import { gridScope, type Scope, scopeOf } from '../../rbac/scope';
import { type AnalyticsRequest, inPlace, type PageRequest, registerAnalytics } from './kit';
import { deviceSeconds, onlineByDay, percent, percentSql, total } from './online-figures';

type Kind = 'meter' | 'dcu';

/** The kinds of device a request lists: one meter, or those of its kind filter. */
function kindsOf({ body, place }: AnalyticsRequest): Kind[] {
  if (place.meterId) return ['meter'];
  const kind = body.deviceKind as Kind | undefined;
  return kind ? [kind] : ['dcu', 'meter'];
}

/**
 * The devices of one kind a request lists, each with its number: those expected to communicate, in
 * its subtree, narrowed to one DCU (itself and its meters) or one meter.
 */
function devicesOf(kind: Kind, { place }: AnalyticsRequest): SQL {
  const counted = (id: SQL) => sql`exists (select 1 from device_online o where o.device_id = ${id} and o.counted)`;
  if (kind === 'dcu')
    return sql`select d.id, 'dcu'::text as kind, d.dcu_no as no, d.grid_id, null::varchar as dcu_id from dcu d
      where ${inPlace(place, sql.raw('d.grid_id'))} and ${counted(sql.raw('d.id'))}
      ${place.dcuId ? sql`and d.id = ${place.dcuId}` : sql``}`;
  return sql`select m.id, 'meter'::text as kind, m.dev_addr as no, m.grid_id, m.dcu_id from meter m
    where ${inPlace(place, sql.raw('m.grid_id'))} and ${counted(sql.raw('m.id'))}
    ${place.dcuId ? sql`and m.dcu_id = ${place.dcuId}` : sql``}
    ${place.meterId ? sql`and m.id = ${place.meterId}` : sql``}`;
}

/**
 * How many devices of each kind a request lists, and how many of them are offline now. Without one
 * meter named, the counts now answer (online_count: a few rows per node and DCU), not the archive.
 */
async function countDevices(
  db: Db,
  request: AnalyticsRequest,
): Promise<Record<Kind, { devices: number; offline: number }>> {
  const { place } = request;
  const one = (id: string, kind: Kind) =>
    sql`select ${kind}::text as kind, 1 as devices, (not o.online)::int as offline from device_online o
      where o.device_id = ${id} and o.counted and ${inPlace(place, sql.raw('o.grid_id'))}`;
  const counted = (kind: Kind, where: SQL) =>
    sql`select ${kind}::text as kind, coalesce(sum(c.n), 0)::int as devices,
        coalesce(sum(c.n) filter (where not c.online), 0)::int as offline
      from online_count c where c.device_kind = ${kind} and ${inPlace(place, sql.raw('c.grid_id'))} and ${where}`;
  const parts = kindsOf(request).map((kind) => {
    if (kind === 'meter')
      return place.meterId
        ? one(place.meterId, 'meter')
        : counted('meter', place.dcuId ? sql`c.dcu_id = ${place.dcuId}` : sql`true`);
    return place.dcuId ? one(place.dcuId, 'dcu') : counted('dcu', sql`true`);
  });
  const out = { meter: { devices: 0, offline: 0 }, dcu: { devices: 0, offline: 0 } };
  const rows = await rowsOf<{ kind: Kind; devices: number; offline: number }>(db, sql.join(parts, sql` union all `));
  for (const row of rows) out[row.kind] = { devices: row.devices, offline: row.offline };
  return out;
}

/** What a row shows of a device besides its figures. */
const DEVICE_COLUMNS = sql`x.id as "deviceId", x.kind as "deviceKind", x.no as "deviceNo", x.grid_id as "gridId",
  (select grid_name from power_grid p where p.id = x.grid_id) as "gridName",
  coalesce(x.dcu_id, case when x.kind = 'dcu' then x.id end) as "dcuId",
  (select dcu_no from dcu d where d.id = coalesce(x.dcu_id, case when x.kind = 'dcu' then x.id end)) as "dcuNo",
  case when x.kind = 'meter' then x.no end as "devAddr",
  case when (select o.online from device_online o where o.device_id = x.id) then 'online' else 'offline' end as state`;

/** A device's figures over the period from its day rows. */
function periodFigures(start: string, end: string, now: Date): SQL {
  const s = deviceSeconds('r', now);
  return sql`select ${percentSql(sql`sum(${s.online})`, sql`sum(${s.possible})`)} as "onlineRate",
      round(sum(${s.online}) / 360.0)::float8 / 10 as "onlineHours",
      coalesce(sum(r.changes), 0)::int as changes, count(*)::int as "daysKnown"
    from rollup_online_day r where r.device_id = x.id and r.day between ${start} and ${end}`;
}

const REPORT_SORTS: Record<string, string> = { onlineRate: '"onlineRate"', changes: 'changes' };

/**
 * Devices in number order, DCUs before meters (reversed when descending): each kind's page is read
 * from its archive index, its figures for its rows only. A sort by a figure reads every device's.
 */
async function reportRows(db: Db, request: AnalyticsRequest, page: PageRequest, now: Date) {
  const { start, end } = request.period;
  const counts = await countDevices(db, request);
  const kinds = kindsOf(request);
  const totalDevices = kinds.reduce((sum, kind) => sum + counts[kind].devices, 0);
  const descend = page.sortOrder === 'descend';
  const dir = sql.raw(descend ? 'desc nulls last' : 'asc nulls last');
  const offset = (page.curPage - 1) * page.pageSize;
  const sort = REPORT_SORTS[page.sortField ?? ''];
  const figures = periodFigures(start, end, now);
  if (sort) {
    const all = sql.join(
      kinds.map((kind) => devicesOf(kind, request)),
      sql` union all `,
    );
    const list = await rowsOf<DeviceOnlineRow>(
      db,
      sql`select * from (select ${DEVICE_COLUMNS}, f.* from (${all}) x cross join lateral (${figures}) f) t
        order by ${sql.raw(sort)} ${dir}, lower("deviceNo"), "deviceId" limit ${page.pageSize} offset ${offset}`,
    );
    return { list, total: totalDevices, curPage: page.curPage, pageSize: page.pageSize };
  }
  const list: DeviceOnlineRow[] = [];
  let skip = offset;
  for (const kind of descend ? [...kinds].reverse() : kinds) {
    const want = page.pageSize - list.length;
    if (want <= 0) break;
    if (skip >= counts[kind].devices) {
      skip -= counts[kind].devices;
      continue;
    }
    const key = kind === 'dcu' ? 'd.dcu_no' : 'm.dev_addr';
    const id = kind === 'dcu' ? 'd.id' : 'm.id';
    list.push(
      ...(await rowsOf<DeviceOnlineRow>(
        db,
        sql`select ${DEVICE_COLUMNS}, f.* from (${devicesOf(kind, request)}
            order by lower(${sql.raw(key)}) ${dir}, ${sql.raw(id)} limit ${want} offset ${skip}) x
          cross join lateral (${figures}) f
          order by lower(x.no) ${dir}, x.id`,
      )),
    );
    skip = 0;
  }
  return { list, total: totalDevices, curPage: page.curPage, pageSize: page.pageSize };
}

async function reportSummary(db: Db, request: AnalyticsRequest, now: Date) {
  const kinds = kindsOf(request);
  const [counts, days] = await Promise.all([countDevices(db, request), onlineByDay(db, request, now)]);
  const shown = (kind: Kind, seconds: { online: number; possible: number; changes: number }) =>
    kinds.includes(kind) ? seconds : { online: 0, possible: 0, changes: 0 };
  const all = total(days.flatMap((d) => [shown('meter', d.meters), shown('dcu', d.dcus)]));
  return {
    figures: {
      devices: kinds.reduce((sum, kind) => sum + counts[kind].devices, 0),
      onlineRate: percent(all.online, all.possible),
      offlineNow: kinds.reduce((sum, kind) => sum + counts[kind].offline, 0),
      changes: all.changes,
    },
    points: days.map((d) => ({
      day: d.day,
      meterOnlineRate: kinds.includes('meter') ? percent(d.meters.online, d.meters.possible) : null,
      dcuOnlineRate: kinds.includes('dcu') ? percent(d.dcus.online, d.dcus.possible) : null,
    })),
  };
}

// ---- one device's days

interface Device {
  id: string;
  kind: Kind;
  no: string;
  dcuId: string | null;
  dcuNo: string | null;
  online: boolean;
  since: Date | null;
}

/** The device a detail call names, within the caller's grid scope (404 naming `deviceId` outside it). */
async function deviceOf(db: Db, scope: Scope, deviceId: string): Promise<Device> {
  const [found] = await db
    .select({
      id: deviceOnline.deviceId,
      kind: deviceOnline.deviceKind,
      no: sql<string>`coalesce(${meter.devAddr}, ${dcu.dcuNo})`,
      dcuId: deviceOnline.dcuId,
      dcuNo: sql<string | null>`(select d.dcu_no from dcu d where d.id = ${deviceOnline.dcuId})`,
      online: deviceOnline.online,
      since: deviceOnline.linkChangedAt,
    })
    .from(deviceOnline)
    .leftJoin(meter, eq(meter.id, deviceOnline.deviceId))
    .leftJoin(dcu, eq(dcu.id, deviceOnline.deviceId))
    .where(and(eq(deviceOnline.deviceId, deviceId), gridScope(scope, deviceOnline.gridId)));
  if (!found) throw fieldError(RESULT.notFound, 'deviceId', 'notFound');
  return found as Device;
}

const DAY_SORTS: Record<string, string> = { day: 'day', onlineRate: '"onlineRate"', changes: 'changes' };

async function deviceDays(db: Db, request: AnalyticsRequest, page: PageRequest, now: Date) {
  const device = await deviceOf(db, request.scope, request.body.deviceId as string);
  const { start, end } = request.period;
  const s = deviceSeconds('r', now);
  const order = DAY_SORTS[page.sortField ?? ''] ?? 'day';
  // Newest first unless asked otherwise.
  const dir = sql.raw(page.sortOrder === 'ascend' ? 'asc nulls last' : 'desc nulls last');
  const where = sql`r.device_id = ${device.id} and r.day between ${start} and ${end}`;
  const list = await rowsOf<DeviceOnlineDayRow>(
    db,
    sql`select * from (select to_char(r.day, 'YYYY-MM-DD') as day, ${percentSql(s.online, s.possible)} as "onlineRate",
        round((${s.online}) / 360.0)::float8 / 10 as "onlineHours", r.changes,
        case when r.online_at_end then 'online' else 'offline' end as "stateAtEnd"
      from rollup_online_day r where ${where}) t
      order by ${sql.raw(order)} ${dir}, day desc limit ${page.pageSize} offset ${(page.curPage - 1) * page.pageSize}`,
  );
  const [{ total: count }] = (await rowsOf<{ total: number }>(
    db,
    sql`select count(*)::int as total from rollup_online_day r where ${where}`,
  )) as [{ total: number }];
  return { list, total: count, curPage: page.curPage, pageSize: page.pageSize };
}

async function deviceSummary(db: Db, request: AnalyticsRequest, now: Date) {
  const device = await deviceOf(db, request.scope, request.body.deviceId as string);
  const { start, end } = request.period;
  const s = deviceSeconds('r', now);
  const days = await rowsOf<{ day: string; online: number | null; possible: number | null; changes: number | null }>(
    db,
    sql`select to_char(d.day, 'YYYY-MM-DD') as day, (${s.online})::float8 as online, (${s.possible})::float8 as possible, r.changes
      from generate_series(${start}::date, ${end}::date, interval '1 day') d(day)
      left join rollup_online_day r on r.device_id = ${device.id} and r.day = d.day::date order by d.day`,
  );
  const sums = total(
    days.map((d) => ({
      online: d.online ?? 0,
      possible: d.online === null ? 0 : (d.possible ?? 0),
      changes: d.changes ?? 0,
    })),
  );
  return {
    figures: {
      deviceNo: device.no,
      deviceKind: device.kind,
      onlineRate: percent(sums.online, sums.possible),
      changes: sums.changes,
      state: device.online ? ('online' as const) : ('offline' as const),
      since: device.since?.toISOString() ?? null,
    },
    points: days.map((d) => ({
      day: d.day,
      onlineRate: d.online === null ? null : percent(d.online, d.possible ?? 0),
    })),
  };
}

/** The device's own link changes in the period and, for a meter behind a DCU, the DCU's: newest first. */
async function deviceChanges(db: Db, device: Device, period: { start: string; end: string }, page: PageRequest) {
  const ids = [device.id, ...(device.dcuId ? [device.dcuId] : [])];
  const where = sql`l.device_id in (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )}) and l.ts >= (${period.start}::date::timestamp at time zone 'UTC')
    and l.ts < (${addUtcDays(period.end, 1)}::date::timestamp at time zone 'UTC')`;
  const rows = await rowsOf<{ at: Date | string; online: boolean; device_id: string }>(
    db,
    sql`select l.ts as at, l.online, l.device_id from link_change l where ${where}
      order by l.ts desc limit ${page.pageSize} offset ${(page.curPage - 1) * page.pageSize}`,
  );
  const [{ total: count }] = (await rowsOf<{ total: number }>(
    db,
    sql`select count(*)::int as total from link_change l where ${where}`,
  )) as [{ total: number }];
  const list: OnlineChangeRow[] = rows.map((r) => {
    const own = r.device_id === device.id;
    return {
      at: new Date(r.at).toISOString(),
      state: r.online ? 'online' : 'offline',
      source: own ? device.kind : 'dcu',
      deviceNo: own ? device.no : (device.dcuNo ?? ''),
    };
  });
  return { list, total: count, curPage: page.curPage, pageSize: page.pageSize };
}

/** /dataAnalytic/deviceOnlineReport and its deviceOnlineDetail. */
export function registerDeviceOnlineAnalytics(app: FastifyInstance, db: Db): void {
  registerAnalytics(app, db, deviceOnlineAnalytics, deviceOnlineApi, {
    rows: (request, page) => reportRows(db, request, page, new Date()),
    summary: (request) => reportSummary(db, request, new Date()),
  });
  registerAnalytics(app, db, deviceOnlineDetailAnalytics, deviceOnlineDetailApi, {
    rows: (request, page) => deviceDays(db, request, page, new Date()),
    summary: (request) => deviceSummary(db, request, new Date()),
  });
  registerOperation(app, deviceOnlineChangesApi, async ({ body, session }) => {
    const request = body as typeof body & { deviceId: string; curPage: number; pageSize: number };
    const device = await deviceOf(db, await scopeOf(db, session), request.deviceId);
    return deviceChanges(db, device, resolvePeriod(deviceOnlineDetailAnalytics.period, request), request);
  });
}
