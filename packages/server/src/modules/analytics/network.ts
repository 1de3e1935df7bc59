import {
  type ConcentratorRow,
  concentratorAnalytics,
  concentratorApi,
  type NetworkDcuHistoryRow,
  type NetworkNodeRow,
  type NetworkNowFigures,
  networkHistoryAnalytics,
  networkHistoryApi,
  networkMonitorAnalytics,
  networkMonitorApi,
  ROOT_PARENT_ID,
  SHARE_BANDS,
  utcToday,
} from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { intervalsDue } from '../collection/collection-report.service';
import { type AnalyticsRequest, inPlace, type PageRequest, type Place, registerAnalytics } from './kit';
import { deviceSeconds, groupSeconds, onlineByDay, percent, percentSql, total } from './online-figures';

const pageOf = <T>(list: T[], page: PageRequest) =>
  list.slice((page.curPage - 1) * page.pageSize, page.curPage * page.pageSize);
const direction = (page: PageRequest) => sql.raw(page.sortOrder === 'descend' ? 'desc nulls last' : 'asc nulls last');

// ---- network monitor

interface Counts {
  metersOnline: number;
  metersOffline: number;
  dcusOnline: number;
  dcusOffline: number;
}

interface TreeNode {
  id: string;
  parentId: string;
  name: string;
  type: number;
  parentName: string | null;
  own: Counts;
  total: Counts;
  children: TreeNode[];
}

const noCounts = (): Counts => ({ metersOnline: 0, metersOffline: 0, dcusOnline: 0, dcusOffline: 0 });
const add = (into: Counts, more: Counts) => {
  into.metersOnline += more.metersOnline;
  into.metersOffline += more.metersOffline;
  into.dcusOnline += more.dcusOnline;
  into.dcusOffline += more.dcusOffline;
};
const byName = (a: TreeNode, b: TreeNode) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id);

/**
 * The place's grid nodes with their own devices counted now (online_count: a few rows per node), and
 * each one's subtree added up here: the tree holds thousands of nodes, not millions of devices.
 * Answers its top nodes (each one's parent lies outside), children in name order.
 */
async function placeTree(db: Db, place: Place): Promise<TreeNode[]> {
  if (place.roots?.length === 0) return [];
  const start =
    place.roots === null
      ? sql`g.parent_id = ${ROOT_PARENT_ID}`
      : sql`g.id in (${sql.join(
          place.roots.map((id) => sql`${id}`),
          sql`, `,
        )})`;
  const rows = await rowsOf<{
    id: string;
    parent_id: string;
    name: string;
    type: number;
    parent_name: string | null;
    meters_online: number;
    meters_offline: number;
    dcus_online: number;
    dcus_offline: number;
  }>(
    db,
    sql`with recursive tree(id) as (
        select g.id from power_grid g where ${start}
        union select g.id from power_grid g join tree t on g.parent_id = t.id),
      counts as (select c.grid_id,
          coalesce(sum(c.n) filter (where c.device_kind = 'meter' and c.online), 0)::int as meters_online,
          coalesce(sum(c.n) filter (where c.device_kind = 'meter' and not c.online), 0)::int as meters_offline,
          coalesce(sum(c.n) filter (where c.device_kind = 'dcu' and c.online), 0)::int as dcus_online,
          coalesce(sum(c.n) filter (where c.device_kind = 'dcu' and not c.online), 0)::int as dcus_offline
        from online_count c where c.grid_id in (select id from tree) group by c.grid_id)
      select g.id, g.parent_id, g.grid_name as name, g.grid_type::int as type, p.grid_name as parent_name,
        coalesce(c.meters_online, 0) as meters_online, coalesce(c.meters_offline, 0) as meters_offline,
        coalesce(c.dcus_online, 0) as dcus_online, coalesce(c.dcus_offline, 0) as dcus_offline
      from tree t join power_grid g on g.id = t.id
      left join power_grid p on p.id = g.parent_id
      left join counts c on c.grid_id = g.id`,
  );
  const nodes = new Map<string, TreeNode>(
    rows.map((r) => {
      const own = {
        metersOnline: r.meters_online,
        metersOffline: r.meters_offline,
        dcusOnline: r.dcus_online,
        dcusOffline: r.dcus_offline,
      };
      return [
        r.id,
        {
          id: r.id,
          parentId: r.parent_id,
          name: r.name,
          type: r.type,
          parentName: r.parent_name,
          own,
          total: noCounts(),
          children: [],
        },
      ];
    }),
  );
  const tops: TreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = nodes.get(node.parentId);
    if (parent) parent.children.push(node);
    else tops.push(node);
  }
  const sum = (node: TreeNode): Counts => {
    node.children.sort(byName);
    node.total = { ...node.own };
    for (const child of node.children) add(node.total, sum(child));
    return node.total;
  };
  for (const top of tops) sum(top);
  return tops.sort(byName);
}

const rateOf = (online: number, offline: number) => percent(online, online + offline);

const NODE_SORTS: Record<string, (row: NetworkNodeRow) => number | string | null> = {
  gridName: (row) => row.gridName,
  metersOnline: (row) => row.metersOnline,
  metersOffline: (row) => row.metersOffline,
  meterOnlineRate: (row) => row.meterOnlineRate,
  dcusOffline: (row) => row.dcusOffline,
};

/** Every node of the place, each with its subtree's devices, in tree order unless sorted. */
async function monitorRows(db: Db, request: AnalyticsRequest, page: PageRequest) {
  const rows: NetworkNodeRow[] = [];
  const walk = (node: TreeNode, depth: number) => {
    rows.push({
      gridId: node.id,
      gridName: node.name,
      gridType: node.type as NetworkNodeRow['gridType'],
      parentName: node.parentName,
      depth,
      ...node.total,
      meterOnlineRate: rateOf(node.total.metersOnline, node.total.metersOffline),
    });
    for (const child of node.children) walk(child, depth + 1);
  };
  for (const top of await placeTree(db, request.place)) walk(top, 0);
  const key = page.sortField ? NODE_SORTS[page.sortField] : undefined;
  if (key) {
    const sign = page.sortOrder === 'descend' ? -1 : 1;
    const position = new Map(rows.map((row, i) => [row, i]));
    // Nulls last either way; equal values keep the tree order.
    rows.sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      const order = typeof x === 'string' ? x.localeCompare(y as string) : x - (y as number);
      return order * sign || (position.get(a) as number) - (position.get(b) as number);
    });
  }
  return { list: pageOf(rows, page), total: rows.length, curPage: page.curPage, pageSize: page.pageSize };
}

async function monitorSummary(db: Db, request: AnalyticsRequest) {
  const tops = await placeTree(db, request.place);
  const all = noCounts();
  for (const top of tops) add(all, top.total);
  const figures: NetworkNowFigures = {
    ...all,
    meterOnlineRate: rateOf(all.metersOnline, all.metersOffline),
    dcuOnlineRate: rateOf(all.dcusOnline, all.dcusOffline),
  };
  // One level below the place: a single top node's children (itself when it has none), else the tops.
  const [only] = tops;
  const level = tops.length === 1 && only ? (only.children.length ? only.children : [only]) : tops;
  const points = level.map((node) => ({
    gridName: node.name,
    metersOnline: node.total.metersOnline,
    metersOffline: node.total.metersOffline,
  }));
  return { figures, points };
}

// ---- network historical monitor

/** The DCUs a request reaches: its subtree, or the one DCU chosen. */
function dcusIn({ place }: AnalyticsRequest, where: SQL = sql`true`): SQL {
  return sql`select d.id, d.dcu_no, d.grid_id from dcu d
    where ${inPlace(place, sql.raw('d.grid_id'))} ${place.dcuId ? sql`and d.id = ${place.dcuId}` : sql``} and ${where}`;
}

const HISTORY_SORTS: Record<string, string> = {
  dcuNo: 'lower("dcuNo")',
  dcuOnlineRate: '"dcuOnlineRate"',
  meterOnlineRate: '"meterOnlineRate"',
  changes: 'changes',
};

async function historyRows(db: Db, request: AnalyticsRequest, page: PageRequest, now: Date) {
  const { start, end } = request.period;
  const own = deviceSeconds('r', now);
  const meters = groupSeconds('g', now);
  const order = HISTORY_SORTS[page.sortField ?? ''] ?? 'lower("dcuNo")';
  const offset = (page.curPage - 1) * page.pageSize;
  // In number order a page needs its own DCUs' figures only; a sort by a figure needs every DCU's.
  const source =
    order === 'lower("dcuNo")'
      ? sql`(${dcusIn(request)} order by lower(d.dcu_no) ${direction(page)}, d.id limit ${page.pageSize} offset ${offset})`
      : sql`(${dcusIn(request)})`;
  const rows = await rowsOf<NetworkDcuHistoryRow>(
    db,
    sql`select * from (
        select x.id as "dcuId", x.dcu_no as "dcuNo", x.grid_id as "gridId",
          (select grid_name from power_grid p where p.id = x.grid_id) as "gridName",
          ${percentSql(sql`o.online`, sql`o.possible`)} as "dcuOnlineRate", coalesce(o.changes, 0)::int as changes,
          coalesce(m.meters, 0)::int as meters, ${percentSql(sql`m.online`, sql`m.possible`)} as "meterOnlineRate"
        from ${source} x
        cross join lateral (select sum(${own.online}) as online, sum(${own.possible}) as possible, sum(r.changes) as changes
          from rollup_online_day r where r.device_id = x.id and r.day between ${start} and ${end}) o
        cross join lateral (select sum(${meters.online}) as online, sum(${meters.possible}) as possible,
            (array_agg(g.devices order by g.day desc))[1] as meters
          from rollup_online_dcu_day g where g.dcu_id = x.id and g.day between ${start} and ${end}) m
      ) t order by ${sql.raw(order)} ${direction(page)}, "dcuId"
      ${order === 'lower("dcuNo")' ? sql`` : sql`limit ${page.pageSize} offset ${offset}`}`,
  );
  const [{ total: count }] = (await rowsOf<{ total: number }>(
    db,
    sql`select count(*)::int as total from (${dcusIn(request)}) d`,
  )) as [{ total: number }];
  return {
    list: rows,
    total: count,
    curPage: page.curPage,
    pageSize: page.pageSize,
  };
}

async function historySummary(db: Db, request: AnalyticsRequest, now: Date) {
  const days = await onlineByDay(db, request, now);
  const points = days.map((d) => ({
    day: d.day,
    meterOnlineRate: percent(d.meters.online, d.meters.possible),
    dcuOnlineRate: percent(d.dcus.online, d.dcus.possible),
  }));
  const meters = total(days.map((d) => d.meters));
  const dcus = total(days.map((d) => d.dcus));
  const lowest = points.reduce<(typeof points)[number] | undefined>(
    (low, p) => (p.meterOnlineRate !== null && (!low || (low.meterOnlineRate ?? 101) > p.meterOnlineRate) ? p : low),
    undefined,
  );
  return {
    figures: {
      meterOnlineRate: percent(meters.online, meters.possible),
      dcuOnlineRate: percent(dcus.online, dcus.possible),
      lowestDay: lowest?.day ?? null,
      lowestDayRate: lowest?.meterOnlineRate ?? null,
    },
    points,
  };
}

// ---- concentrator monitoring

/** Each DCU's figures now: its link, its counted meters and those online, today's intervals. */
function concentratorFigures(now: Date, source: SQL): SQL {
  const today = utcToday(now);
  const due = intervalsDue(today, now);
  return sql`select x.id as "dcuId", x.dcu_no as "dcuNo", x.grid_id as "gridId",
      (select grid_name from power_grid p where p.id = x.grid_id) as "gridName",
      case when o.link_online then 'online' else 'offline' end as state, o.link_changed_at as since,
      (select max(l.heartbeat_at) from device_link l
        where l.device_kind = 'dcu' and lower(l.device_key) = lower(x.dcu_no)) as "lastHeartbeat",
      c.meters, c.online as "metersOnline", ${percentSql(sql`c.online`, sql`c.meters`)} as "meterOnlineShare",
      ${percentSql(sql`coalesce(r.intervals, 0)`, sql`c.meters * ${due}`)} as "readSuccessToday",
      coalesce(r.intervals, 0)::float8 as intervals, ${due}::int as due
    from ${source} x
    left join device_online o on o.device_id = x.id
    cross join lateral (select coalesce(sum(n), 0)::int as meters, coalesce(sum(n) filter (where online), 0)::int as online
      from online_count c where c.dcu_id = x.id and c.device_kind = 'meter') c
    left join rollup_dcu_day r on r.dcu_id = x.id and r.day = ${today}`;
}

/** The DCUs of the request in the state it asks for. */
function concentratorsIn(request: AnalyticsRequest): SQL {
  const state = request.body.state as 'online' | 'offline' | undefined;
  return dcusIn(
    request,
    state
      ? sql`exists (select 1 from device_online o where o.device_id = d.id and o.link_online = ${state === 'online'})`
      : sql`true`,
  );
}

const CONCENTRATOR_SORTS: Record<string, string> = {
  dcuNo: 'lower("dcuNo")',
  lastHeartbeat: '"lastHeartbeat"',
  meterOnlineShare: '"meterOnlineShare"',
  readSuccessToday: '"readSuccessToday"',
};

async function concentratorRows(db: Db, request: AnalyticsRequest, page: PageRequest, now: Date) {
  const order = CONCENTRATOR_SORTS[page.sortField ?? ''] ?? 'lower("dcuNo")';
  const offset = (page.curPage - 1) * page.pageSize;
  const source =
    order === 'lower("dcuNo")'
      ? sql`(${concentratorsIn(request)} order by lower(d.dcu_no) ${direction(page)}, d.id limit ${page.pageSize} offset ${offset})`
      : sql`(${concentratorsIn(request)})`;
  const rows = await rowsOf<ConcentratorRow & { intervals: number; due: number }>(
    db,
    sql`select * from (${concentratorFigures(now, source)}) t
      order by ${sql.raw(order)} ${direction(page)}, "dcuId"
      ${order === 'lower("dcuNo")' ? sql`` : sql`limit ${page.pageSize} offset ${offset}`}`,
  );
  const [{ total: count }] = (await rowsOf<{ total: number }>(
    db,
    sql`select count(*)::int as total from (${concentratorsIn(request)}) d`,
  )) as [{ total: number }];
  return {
    list: rows.map(({ intervals: _i, due: _d, ...row }) => row),
    total: count,
    curPage: page.curPage,
    pageSize: page.pageSize,
  };
}

const bandOf = (share: number | null) => {
  if (share === null) return -1;
  let band = 0;
  SHARE_BANDS.forEach((from, i) => {
    if (share >= from) band = i;
  });
  return band;
};
const bandName = (i: number) => {
  const from = SHARE_BANDS[i] as number;
  const to = SHARE_BANDS[i + 1];
  return to === undefined ? `≥ ${from}` : `${from}–${to}`;
};

/** The DCUs' totals now, and how many fall in each band; the DCUs are thousands at most, their meters counted per DCU. */
async function concentratorSummary(db: Db, request: AnalyticsRequest, now: Date) {
  const rows = await rowsOf<ConcentratorRow & { intervals: number; due: number }>(
    db,
    concentratorFigures(now, sql`(${concentratorsIn(request)})`),
  );
  const sums = { meters: 0, online: 0, intervals: 0, expected: 0 };
  const bands = SHARE_BANDS.map((_, i) => ({ band: bandName(i), byOnlineShare: 0, byReadSuccess: 0 }));
  for (const row of rows) {
    sums.meters += row.meters;
    sums.online += row.metersOnline;
    sums.intervals += row.intervals;
    sums.expected += row.meters * row.due;
    const share = bands[bandOf(row.meterOnlineShare)];
    if (share) share.byOnlineShare++;
    const read = bands[bandOf(row.readSuccessToday)];
    if (read) read.byReadSuccess++;
  }
  const online = rows.filter((row) => row.state === 'online').length;
  return {
    figures: {
      dcus: rows.length,
      dcusOnline: online,
      dcusOffline: rows.length - online,
      meterOnlineShare: percent(sums.online, sums.meters),
      readSuccessToday: percent(sums.intervals, sums.expected),
    },
    points: bands,
  };
}

/** /dataAnalytic/networkMonitor, networkHistoricalMonitor and concentratorMonitoring. */
export function registerNetworkAnalytics(app: FastifyInstance, db: Db): void {
  registerAnalytics(app, db, networkMonitorAnalytics, networkMonitorApi, {
    rows: (request, page) => monitorRows(db, request, page),
    summary: (request) => monitorSummary(db, request),
  });
  registerAnalytics(app, db, networkHistoryAnalytics, networkHistoryApi, {
    rows: (request, page) => historyRows(db, request, page, new Date()),
    summary: (request) => historySummary(db, request, new Date()),
  });
  registerAnalytics(app, db, concentratorAnalytics, concentratorApi, {
    rows: (request, page) => concentratorRows(db, request, page, new Date()),
    summary: (request) => concentratorSummary(db, request, new Date()),
  });
}
