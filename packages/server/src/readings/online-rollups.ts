import { addUtcDays, utcToday } from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { AtomicWriter } from '../db/bulk-insert';
import type { Db, Executor } from '../db/driver';
import { rowsOf } from '../db/rows';
import { rollupOnlineDay, rollupOnlineFilled } from '../db/schema';
import { ensurePartitions } from './partitions';
import type { LinkChangeRow } from './rows';

/*
 * Devices' online time per UTC day (rollup_online_day) and its sums per grid node and per DCU, folded
 * from `link_change` like the readings' rollups: a link change marks its device's day (and, for a DCU,
 * its meters' day, as a meter is reachable only while its DCU is); the fold recomputes those days and
 * every later one up to today from the raw changes, so a change delivered late or twice leaves the
 * same rows. The days a device did not change are written when each day begins (`fillOnlineDays`),
 * carrying the state it ended the day before with.
 */

export const DAY_SECONDS = 86_400;
/** Device keys folded per transaction (each spreads over the days from its own to today). */
export const ONLINE_FOLD_BATCH = 2000;
/** A fill catches up at most this many missed days (a server stopped that long): the longest period a page shows. */
export const ONLINE_FILL_DAYS = 92;

const dayStart = (day: SQL) => sql`(${day}::timestamp at time zone 'UTC')`;
const dayEnd = (day: SQL) => sql`((${day} + 1)::timestamp at time zone 'UTC')`;

/**
 * Marks the days the stored link changes touch, in the write's transaction: each device's own, and for
 * a DCU each of its meters'.
 */
export async function markOnlinePending(tx: Executor, changes: readonly LinkChangeRow[] | undefined): Promise<void> {
  if (!changes?.length) return;
  const keys = [
    ...new Map(
      changes.map((c) => {
        const day = c.ts.toISOString().slice(0, 10);
        return [`${c.deviceId}|${day}`, { device_id: c.deviceId, kind: c.deviceKind, day }];
      }),
    ).values(),
  ];
  await tx.execute(
    sql`with k as (select * from json_to_recordset(${JSON.stringify(keys)}::json) as k(device_id varchar, kind varchar, day date))
      insert into rollup_online_pending (device_id, day)
      select device_id, day from k
      union select m.id, k.day from k join meter m on m.dcu_id = k.device_id where k.kind = 'dcu'
      order by 1, 2 on conflict do nothing`,
  );
}

/** A device's own link, or its DCU's, over one day: its state when the day began and its changes in it. */
interface DayLink {
  /** Null when the device had never been heard from (offline). */
  start: boolean | null;
  /** [epoch seconds, online], in time order. */
  changes: [number, boolean][];
}

/**
 * Seconds online in the day that begins at `from` (epoch seconds) supposing its last state lasts to the
 * day's end, and that state: online while its own link is and (behind a DCU) the DCU's is too.
 */
export function onlineOfDay(from: number, own: DayLink, dcu: DayLink | null): { seconds: number; atEnd: boolean } {
  const events = [
    ...own.changes.map(([at, online]) => ({ at, own: true, online })),
    ...(dcu?.changes ?? []).map(([at, online]) => ({ at, own: false, online })),
  ].sort((a, b) => a.at - b.at);
  let ownOnline = own.start ?? false;
  let dcuOnline = dcu ? (dcu.start ?? false) : true;
  let seconds = 0;
  let since = from;
  for (const event of events) {
    const at = Math.min(Math.max(event.at, from), from + DAY_SECONDS);
    if (ownOnline && dcuOnline) seconds += at - since;
    since = at;
    if (event.own) ownOnline = event.online;
    else dcuOnline = event.online;
  }
  if (ownOnline && dcuOnline) seconds += from + DAY_SECONDS - since;
  return { seconds: Math.round(seconds), atEnd: ownOnline && dcuOnline };
}

interface Placed {
  device_id: string;
  device_kind: string;
  grid_id: string;
  dcu_id: string | null;
  counted: boolean;
}

/** Recomputes the (device, day) rows named from the raw changes, and the node and DCU rows they touch. */
async function recomputeDays(tx: Executor, keys: readonly { deviceId: string; day: string }[]): Promise<void> {
  const ids = [...new Set(keys.map((k) => k.deviceId))];
  const devices = await rowsOf<Placed>(
    tx,
    sql`select device_id, device_kind, grid_id, dcu_id, counted from device_online
      where device_id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`,
  );
  const placed = new Map(devices.map((d) => [d.device_id, d]));
  // A device the archive no longer holds keeps the rows it has.
  const wanted = keys.filter((k) => placed.has(k.deviceId));
  if (!wanted.length) return;
  const links = new Map<string, DayLink>();
  const linkKeys = new Map<string, { device_id: string; day: string }>();
  for (const k of wanted) {
    linkKeys.set(`${k.deviceId}|${k.day}`, { device_id: k.deviceId, day: k.day });
    const dcuId = placed.get(k.deviceId)?.dcu_id;
    if (dcuId) linkKeys.set(`${dcuId}|${k.day}`, { device_id: dcuId, day: k.day });
  }
  const day = sql.raw('k.day');
  const read = await rowsOf<{ device_id: string; day: string; start: boolean | null; changes: [string, boolean][] }>(
    tx,
    sql`with k as (select * from jsonb_to_recordset(${JSON.stringify([...linkKeys.values()])}::jsonb) as k(device_id varchar, day date))
      select k.device_id, k.day::text as day,
        (select l.online from link_change l where l.device_id = k.device_id and l.ts < ${dayStart(day)}
          order by l.ts desc limit 1) as start,
        (select coalesce(json_agg(json_build_array(extract(epoch from l.ts), l.online) order by l.ts), '[]'::json)
          from link_change l where l.device_id = k.device_id and l.ts >= ${dayStart(day)} and l.ts < ${dayEnd(day)}) as changes
      from k`,
  );
  for (const r of read)
    links.set(`${r.device_id}|${r.day}`, { start: r.start, changes: r.changes.map(([at, on]) => [Number(at), on]) });
  const none: DayLink = { start: null, changes: [] };
  const rows = wanted.map((k) => {
    const device = placed.get(k.deviceId) as Placed;
    const own = links.get(`${k.deviceId}|${k.day}`) ?? none;
    const dcu = device.dcu_id ? (links.get(`${device.dcu_id}|${k.day}`) ?? none) : null;
    const { seconds, atEnd } = onlineOfDay(Date.parse(`${k.day}T00:00:00Z`) / 1000, own, dcu);
    return {
      ...device,
      day: k.day,
      online_seconds: seconds,
      online_at_end: atEnd,
      changes: own.changes.length,
    };
  });
  await ensurePartitions(
    tx,
    new Date(wanted.reduce((a, k) => (k.day < a ? k.day : a), wanted[0]?.day as string)),
    new Date(wanted.reduce((a, k) => (k.day > a ? k.day : a), wanted[0]?.day as string)),
    ['rollup_online_day'],
  );
  // A device moved since its row was computed leaves its old node's and DCU's rows to recompute too.
  const touched = await rowsOf<{ grid_id: string; dcu_id: string | null; day: string }>(
    tx,
    sql`with r as (select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(device_id varchar, day date,
          device_kind varchar, grid_id varchar, dcu_id varchar, counted boolean, online_seconds int, online_at_end boolean, changes int)),
      old as (select o.grid_id, o.dcu_id, o.day from rollup_online_day o join r on o.device_id = r.device_id and o.day = r.day),
      up as (
        insert into rollup_online_day as o (device_id, day, device_kind, grid_id, dcu_id, counted, online_seconds, online_at_end, changes)
        select device_id, day, device_kind, grid_id, dcu_id, counted, online_seconds, online_at_end, changes from r
        order by device_id, day
        on conflict (device_id, day) do update set device_kind = excluded.device_kind, grid_id = excluded.grid_id,
          dcu_id = excluded.dcu_id, counted = excluded.counted, online_seconds = excluded.online_seconds,
          online_at_end = excluded.online_at_end, changes = excluded.changes
        returning o.grid_id, o.dcu_id, o.day)
      select distinct grid_id, dcu_id, day::text as day from (select * from up union all select * from old) t`,
  );
  await recomputeNodes(tx, touched);
}

/**
 * A device's link over consecutive `days` from its changes in time order ([epoch seconds, online]), as
 * the fold reads each day: its state before the day began and its changes within it.
 */
function dayLinks(changes: readonly [number, boolean][], days: readonly string[]): DayLink[] {
  const first = Date.parse(`${days[0]}T00:00:00Z`) / 1000;
  const within: [number, boolean][][] = days.map(() => []);
  let state: boolean | null = null;
  for (const change of changes) {
    const k = Math.floor((change[0] - first) / DAY_SECONDS);
    if (k < 0) state = change[1];
    else within[k]?.push(change);
  }
  return within.map((changes) => {
    const link = { start: state, changes };
    state = changes.at(-1)?.[1] ?? state;
    return link;
  });
}

/** Devices whose days are computed and written at a time: a few hundred thousand rows. */
const HISTORY_BATCH = 2000;

/**
 * The rows of consecutive `days` (in order) of every device placed in `gridIds`, computed from
 * `link_change` as the fold computes a day, with their node and DCU rows, and the days on which every
 * device now has its row marked filled (the fill's work done):
 * for a bulk load that wrote `link_change` itself (the scale seed's history), which the fold would
 * otherwise recompute key by key with a probe of the changes per device and day. COPY in the writer's
 * transaction; a device's rows of those days already there are replaced. Answers the device rows written.
 */
export async function rollupOnlineHistory(
  { tx, bulk }: AtomicWriter,
  gridIds: readonly string[],
  days: readonly string[],
): Promise<number> {
  const [first, last] = [days[0], days.at(-1)];
  if (!gridIds.length || !first || !last) return 0;
  const devices = await rowsOf<Placed>(
    tx,
    sql`select device_id, device_kind, grid_id, dcu_id, counted from device_online
      where grid_id in (select jsonb_array_elements_text(${JSON.stringify(gridIds)}::jsonb)) order by device_id`,
  );
  const changesOf = async (ids: readonly string[]) => {
    const rows = await rowsOf<{ device_id: string; at: number; online: boolean }>(
      tx,
      sql`select device_id, extract(epoch from ts)::float8 as at, online from link_change
        where device_id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
          and ts < ${dayEnd(sql`${last}::date`)} order by device_id, ts`,
    );
    const byDevice = new Map<string, [number, boolean][]>();
    for (const r of rows) {
      const list = byDevice.get(r.device_id) ?? [];
      list.push([r.at, r.online]);
      byDevice.set(r.device_id, list);
    }
    return byDevice;
  };
  const dcus = await changesOf([...new Set(devices.flatMap((d) => (d.dcu_id ? [d.dcu_id] : [])))]);
  const dcuDays = new Map([...dcus].map(([id, changes]) => [id, dayLinks(changes, days)]));
  const never = dayLinks([], days);
  await ensurePartitions(tx, new Date(first), new Date(last), ['rollup_online_day']);
  let written = 0;
  for (let i = 0; i < devices.length; i += HISTORY_BATCH) {
    const batch = devices.slice(i, i + HISTORY_BATCH);
    const ids = batch.map((d) => d.device_id);
    const own = await changesOf(ids);
    const rows = batch.flatMap((device) => {
      const links = dayLinks(own.get(device.device_id) ?? [], days);
      const dcu = device.dcu_id ? (dcuDays.get(device.dcu_id) ?? never) : null;
      return days.map((day, k) => {
        const link = links[k] as DayLink;
        const { seconds, atEnd } = onlineOfDay(Date.parse(`${day}T00:00:00Z`) / 1000, link, dcu?.[k] ?? null);
        return {
          deviceId: device.device_id,
          day,
          deviceKind: device.device_kind,
          gridId: device.grid_id,
          dcuId: device.dcu_id,
          counted: device.counted,
          onlineSeconds: seconds,
          onlineAtEnd: atEnd,
          changes: link.changes.length,
        };
      });
    });
    await tx.execute(
      sql`delete from rollup_online_day where device_id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
        and day between ${first}::date and ${last}::date`,
    );
    written += await bulk(rollupOnlineDay, rows);
  }
  const places = new Map(devices.map((d) => [`${d.grid_id}|${d.dcu_id}`, { grid_id: d.grid_id, dcu_id: d.dcu_id }]));
  await recomputeNodes(
    tx,
    days.flatMap((day) => [...places.values()].map((p) => ({ ...p, day }))),
  );
  // A day is filled once every device of the archive has its row, others' as well as these.
  await tx.execute(
    sql`insert into ${rollupOnlineFilled} (day)
      select r.day from rollup_online_day r join device_online o on o.device_id = r.device_id
      where r.day between ${first}::date and ${last}::date
      group by r.day having count(*) = (select count(*) from device_online)
      on conflict do nothing`,
  );
  return written;
}

/** A node's or DCU's figures of a day from its counted devices' rows `r`. */
const FIGURES = sql.raw(`count(*), sum(r.online_seconds), count(*) filter (where r.online_at_end), sum(r.changes)`);

/** The node and DCU rows of the (node, DCU, day) triples named, from their devices' rows. */
async function recomputeNodes(
  tx: Executor,
  touched: readonly { grid_id: string; dcu_id: string | null; day: string }[],
): Promise<void> {
  if (!touched.length) return;
  const grids = [...new Map(touched.map((t) => [`${t.grid_id}|${t.day}`, { id: t.grid_id, day: t.day }])).values()];
  const dcus = [
    ...new Map(
      touched.filter((t) => t.dcu_id).map((t) => [`${t.dcu_id}|${t.day}`, { id: t.dcu_id, day: t.day }]),
    ).values(),
  ];
  await tx.execute(
    sql`with n as (select * from jsonb_to_recordset(${JSON.stringify(grids)}::jsonb) as n(id varchar, day date)),
      gone as (delete from rollup_online_grid_day g using n where g.grid_id = n.id and g.day = n.day)
      insert into rollup_online_grid_day (grid_id, day, device_kind, devices, online_seconds, online_at_end, changes)
      select r.grid_id, r.day, r.device_kind, ${FIGURES}
      from n join rollup_online_day r on r.grid_id = n.id and r.day = n.day and r.counted
      group by r.grid_id, r.day, r.device_kind
      on conflict (grid_id, day, device_kind) do update set devices = excluded.devices,
        online_seconds = excluded.online_seconds, online_at_end = excluded.online_at_end, changes = excluded.changes`,
  );
  if (!dcus.length) return;
  await tx.execute(
    sql`with n as (select * from jsonb_to_recordset(${JSON.stringify(dcus)}::jsonb) as n(id varchar, day date)),
      gone as (delete from rollup_online_dcu_day g using n where g.dcu_id = n.id and g.day = n.day)
      insert into rollup_online_dcu_day (dcu_id, day, devices, online_seconds, online_at_end, changes)
      select r.dcu_id, r.day, ${FIGURES}
      from n join rollup_online_day r on r.dcu_id = n.id and r.day = n.day and r.counted
      group by r.dcu_id, r.day
      on conflict (dcu_id, day) do update set devices = excluded.devices,
        online_seconds = excluded.online_seconds, online_at_end = excluded.online_at_end, changes = excluded.changes`,
  );
}

const lock = (tx: Executor) => tx.execute(sql`select pg_advisory_xact_lock(hashtext('online rollups'))`);

/**
 * Folds the waiting keys, a batch per transaction, until none wait; answers how many it took. A key
 * recomputes its device's days from its own to today (`now`'s), since each later day began with the
 * state the change left. Taking a key deletes it in the transaction that writes its rows.
 */
export async function foldOnlinePending(db: Db, now = new Date(), batch = ONLINE_FOLD_BATCH): Promise<number> {
  const today = utcToday(now);
  let folded = 0;
  for (;;) {
    const n = await db.transaction(async (tx) => {
      await lock(tx);
      const taken = await rowsOf<{ device_id: string; day: string }>(
        tx,
        sql`delete from rollup_online_pending where (device_id, day) in (
              select device_id, day from rollup_online_pending order by marked_at limit ${batch})
            returning device_id, day::text as day`,
      );
      if (!taken.length) return 0;
      const first = new Map<string, string>();
      for (const k of taken) {
        const seen = first.get(k.device_id);
        if (!seen || k.day < seen) first.set(k.device_id, k.day);
      }
      const keys: { deviceId: string; day: string }[] = [];
      for (const [deviceId, from] of first)
        for (let day = from; day <= today || day === from; day = addUtcDays(day, 1)) keys.push({ deviceId, day });
      await recomputeDays(tx, keys);
      return taken.length;
    });
    folded += n;
    if (n < batch) return folded;
  }
}

/**
 * Writes the rows of the days from the last filled one to today (at most ONLINE_FILL_DAYS) for every
 * device without one yet: its state at the day's start, carried from its
 * row of the day before, or read from `link_change` when it has none. Answers the days filled.
 */
export async function fillOnlineDays(db: Db, now = new Date()): Promise<number> {
  const today = utcToday(now);
  const [last] = await rowsOf<{ day: string | null }>(db, sql`select max(day)::text as day from rollup_online_filled`);
  if (last?.day && last.day >= today) return 0;
  const earliest = addUtcDays(today, 1 - ONLINE_FILL_DAYS);
  let day = last?.day ? addUtcDays(last.day, 1) : await firstDay(db, today);
  if (day < earliest) day = earliest;
  let filled = 0;
  for (; day <= today; day = addUtcDays(day, 1)) {
    await fillDay(db, day);
    filled++;
  }
  return filled;
}

/**
 * The first fill starts at the earliest day a change was marked or rolled up for (the changes stored
 * before the rollup existed), so every device has the days those have.
 */
async function firstDay(db: Db, today: string): Promise<string> {
  const [first] = await rowsOf<{ day: string | null }>(
    db,
    sql`select least((select min(day) from rollup_online_pending), (select min(day) from rollup_online_day))::text as day`,
  );
  return first?.day && first.day < today ? first.day : today;
}

async function fillDay(db: Db, day: string): Promise<void> {
  await db.transaction(async (tx) => {
    await lock(tx);
    await tx.execute(sql`set local work_mem = '64MB'`);
    await ensurePartitions(tx, new Date(day), new Date(day), ['rollup_online_day']);
    const d = sql`${day}::date`;
    const start = dayStart(d);
    const stateAt = (id: SQL) =>
      sql`coalesce((select l.online from link_change l where l.device_id = ${id} and l.ts < ${start} order by l.ts desc limit 1), false)`;
    await tx.execute(
      sql`insert into rollup_online_day (device_id, day, device_kind, grid_id, dcu_id, counted, online_seconds, online_at_end, changes)
        select o.device_id, ${d}, o.device_kind, o.grid_id, o.dcu_id, o.counted,
          case when s.online then ${DAY_SECONDS} else 0 end, s.online, 0
        from device_online o
        left join rollup_online_day p on p.device_id = o.device_id and p.day = ${d} - 1
        cross join lateral (select coalesce(p.online_at_end,
          ${stateAt(sql`o.device_id`)} and (o.dcu_id is null or ${stateAt(sql`o.dcu_id`)})) as online) s
        where not exists (select 1 from rollup_online_day r where r.device_id = o.device_id and r.day = ${d})
        order by o.device_id
        on conflict do nothing`,
    );
    await tx.execute(sql`delete from rollup_online_grid_day where day = ${d}`);
    await tx.execute(
      sql`insert into rollup_online_grid_day (grid_id, day, device_kind, devices, online_seconds, online_at_end, changes)
        select r.grid_id, r.day, r.device_kind, ${FIGURES}
        from rollup_online_day r where r.day = ${d} and r.counted group by r.grid_id, r.day, r.device_kind`,
    );
    await tx.execute(sql`delete from rollup_online_dcu_day where day = ${d}`);
    await tx.execute(
      sql`insert into rollup_online_dcu_day (dcu_id, day, devices, online_seconds, online_at_end, changes)
        select r.dcu_id, r.day, ${FIGURES}
        from rollup_online_day r where r.day = ${d} and r.counted and r.dcu_id is not null group by r.dcu_id, r.day`,
    );
    await tx.execute(sql`insert into rollup_online_filled (day) values (${d}) on conflict do nothing`);
  });
}

/**
 * Adds each key's rows of `online_count` into one (dropping those that sum to nothing); answers the
 * rows removed. Rows appended meanwhile by other transactions are left for the next round.
 */
export async function compactOnlineCounts(db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('online counts'))`);
    const [result] = await rowsOf<{ removed: number }>(
      tx,
      sql`with k as (select grid_id, dcu_id, device_kind, online from online_count
          group by 1, 2, 3, 4 having count(*) > 1 or sum(n) = 0),
        gone as (delete from online_count c using k
          where c.grid_id = k.grid_id and c.dcu_id is not distinct from k.dcu_id and c.device_kind = k.device_kind
            and c.online = k.online returning c.*),
        kept as (insert into online_count (grid_id, dcu_id, device_kind, online, n)
          select grid_id, dcu_id, device_kind, online, sum(n) from gone group by 1, 2, 3, 4 having sum(n) <> 0 returning 1)
        select ((select count(*) from gone) - (select count(*) from kept))::int as removed`,
    );
    return result?.removed ?? 0;
  });
}

/** The online rollups' share of the minute's rollup job: the new day's rows, the changes since, the counts. */
export async function rollupOnline(db: Db, now = new Date()) {
  const filled = await fillOnlineDays(db, now);
  const folded = await foldOnlinePending(db, now);
  const compacted = await compactOnlineCounts(db);
  return { filled, folded, compacted };
}
