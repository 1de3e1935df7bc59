/**
 * The analytics benchmark's cases of the network pages (network monitor, network history, concentrator
 * monitoring, the device online report and its detail): the API reads the online rollups and counts,
 * raw rows are `link_change` (each device's spans online, a meter's intersected with its DCU's), the
 * archive and today's load profile.
 */
import {
  deviceOnlineAnalytics,
  networkHistoryAnalytics,
  SHARE_BANDS,
} from '../packages/contracts/src/analytics/network';
import {
  type AnalyticsCase,
  COUNTED_DEVICES,
  dayStart,
  firstPage,
  latestLinks,
  linkChanges,
  near,
  num,
  onlineDays,
  PAGE_SIZE,
  percent,
  periodEnds,
  profileBetween,
  REPORTING,
  type Row,
  sameMoment,
  summaryOf,
} from './lib/analytics-case';

/** Rates (percent, one decimal) are compared to within this: the API and raw rows are read moments apart, and today's rate is today's so far. */
const RATE_TOLERANCE = 0.1;
/** Online hours (one decimal) likewise: an online device gains the seconds between the two readings. */
const HOURS_TOLERANCE = 0.1;

/** A device's online rate, hours and link changes from raw link spans (`online`, `possible` seconds) as the API's. */
const onlineFiguresMatch = (
  r: Record<string, unknown>,
  d: { onlineRate: number | null; onlineHours: number | null; changes: number },
) =>
  near(percent(r.online, r.possible), d.onlineRate, RATE_TOLERANCE) &&
  near(Math.round(num(r.online) / 360) / 10, d.onlineHours, HOURS_TOLERANCE) &&
  num(r.changes) === d.changes;
const RATE_NOTE =
  'online rates and hours to within 0.1: the API and raw rows read today so far moments apart, and the rollups round each day to the second';

/**
 * Every grid node with its subtree's counted devices reachable now or not, in the page's tree order
 * (children by name): the nodes from a recursive walk, each device's link from its latest link_change.
 */
const nodeFigures = (limit: string) => `with recursive tree(id, name, parent_id, path, depth) as (
    select g.id, g.grid_name, g.parent_id, array[g.grid_name || chr(1) || g.id]::text[], 0 from power_grid g
    where g.parent_id = '0'
    union all select g.id, g.grid_name, g.parent_id, t.path || (g.grid_name || chr(1) || g.id)::text, t.depth + 1
    from power_grid g join tree t on g.parent_id = t.id),
  latest as (${latestLinks()}),
  devices as (select c.grid_id, c.kind,
      coalesce(o.online, false) and (c.dcu_id is null or coalesce(u.online, false)) as online
    from (${COUNTED_DEVICES}) c left join latest o on o.device_id = c.device_id left join latest u on u.device_id = c.dcu_id),
  own as (select grid_id, count(*) filter (where kind = 'meter' and online) as mo,
      count(*) filter (where kind = 'meter' and not online) as mf, count(*) filter (where kind = 'dcu' and online) as d_on,
      count(*) filter (where kind = 'dcu' and not online) as d_off
    from devices group by grid_id)
  select t.id, t.name, t.depth, count(*) over ()::int as total,
    coalesce(sum(o.mo), 0)::int as meters_online, coalesce(sum(o.mf), 0)::int as meters_offline,
    coalesce(sum(o.d_on), 0)::int as dcus_online, coalesce(sum(o.d_off), 0)::int as dcus_offline
  from tree t join tree s on s.path[1:array_length(t.path, 1)] = t.path left join own o on o.grid_id = s.id
  group by t.id, t.name, t.depth, t.path order by t.path ${limit}`;

const COUNTS = ['metersOnline', 'metersOffline', 'dcusOnline', 'dcusOffline'] as const;
const countsOf = (r: Row | undefined) => ({
  metersOnline: num(r?.meters_online),
  metersOffline: num(r?.meters_offline),
  dcusOnline: num(r?.dcus_online),
  dcusOffline: num(r?.dcus_offline),
});

/** The first page of DCUs in number order, as the pages listing DCUs page them. */
const DCU_PAGE = `select d.id, d.dcu_no from dcu d order by lower(d.dcu_no), d.id limit ${PAGE_SIZE}`;

/**
 * Per DCU (of `dcus`, a query of id and dcu_no): its link and since when, its counted meters and those
 * reachable now, and its counted meters' load profile intervals of today (`$1`) with the intervals due
 * by now.
 */
const concentratorFigures = (dcus: string) => `with page as (${dcus}),
  meters as (select m.id, m.dcu_id from meter m join page on m.dcu_id = page.id where ${REPORTING}),
  latest as (${latestLinks('select id from page union all select id from meters')}),
  today as (select p.meter_id, count(*) as n from reading_profile p
    where ${profileBetween('$1', '$1')} and p.meter_id in (select id from meters) group by p.meter_id),
  per_dcu as (select x.dcu_id, count(*) as meters, count(*) filter (where o.online) as online, sum(t.n) as intervals
    from meters x left join latest o on o.device_id = x.id left join today t on t.meter_id = x.id group by x.dcu_id),
  heartbeats as (select lower(k.device_key) as no, max(k.heartbeat_at) as at from device_link k
    where k.device_kind = 'dcu' group by 1)
  select page.id, coalesce(l.online, false) as online, l.ts as since, h.at as heartbeat,
    coalesce(c.meters, 0)::int as meters, (case when l.online then coalesce(c.online, 0) else 0 end)::int as meters_online,
    coalesce(c.intervals, 0)::float8 as intervals,
    least(96, floor(extract(epoch from now() - ${dayStart('$1')}) / 900))::int as due
  from page left join latest l on l.device_id = page.id left join per_dcu c on c.dcu_id = page.id
  left join heartbeats h on h.no = lower(page.dcu_no)
  order by lower(page.dcu_no), page.id`;

/**
 * Today's read success as the page gives it, from raw rows read a moment after the API: the intervals
 * due may have grown by one quarter hour in between, so either count is the API's.
 */
const readSuccessMatches = (api: unknown, intervals: unknown, meters: number, due: number) =>
  [due, due - 1].some((d) => (api ?? null) === percent(intervals, meters * d));

const bandOf = (share: number | null) => {
  if (share === null) return -1;
  let band = 0;
  SHARE_BANDS.forEach((from, i) => {
    if (share >= from) band = i;
  });
  return band;
};

/** The devices of the online report's first page: DCUs, then meters, each kind in number order; counted ones only. */
const REPORT_PAGE = `listed as (select * from (
    (select d.id as device_id, null::varchar as dcu_id, 'dcu' as kind, d.dcu_no as no, 0 as k from dcu d
      order by lower(d.dcu_no), d.id limit ${PAGE_SIZE})
    union all (select m.id, m.dcu_id, 'meter', m.dev_addr, 1 from meter m where ${REPORTING}
      order by lower(m.dev_addr), m.id limit ${PAGE_SIZE})) x
  order by k, lower(no), device_id limit ${PAGE_SIZE})`;

/** The detail's device: the case's meter, opened from the report's row with the report's period. */
const detailBody = (c: { meterId: string }) => ({ deviceId: c.meterId, ...summaryOf(deviceOnlineAnalytics) });

export const NETWORK_CASES: AnalyticsCase[] = [
  {
    name: 'network monitor: grid nodes now (first page)',
    path: '/analytics/networkMonitor/list',
    body: () => ({ curPage: 1, pageSize: PAGE_SIZE }),
    raw: () => ({ text: nodeFigures(`limit ${PAGE_SIZE}`) }),
    same: (data: { list: (Record<(typeof COUNTS)[number], number> & { gridId: string })[]; total: number }, rows) =>
      data.list.length === rows.length &&
      data.total === num(rows[0]?.total) &&
      data.list.every((node, i) => {
        const raw = countsOf(rows[i]);
        return rows[i]?.id === node.gridId && COUNTS.every((key) => raw[key] === node[key]);
      }),
  },
  {
    name: 'network monitor: summary and chart',
    path: '/analytics/networkMonitor/summary',
    body: () => ({}),
    raw: () => ({ text: nodeFigures('') }),
    same: (
      data: {
        figures: Record<(typeof COUNTS)[number], number>;
        points: { gridName: string; metersOnline: number; metersOffline: number }[];
      },
      rows,
    ) => {
      const tops = rows.filter((r) => r.depth === 0);
      const sum = Object.fromEntries(COUNTS.map((key) => [key, tops.reduce((n, r) => n + countsOf(r)[key], 0)]));
      // The chart: one level below the place, the single top node's children.
      const children = tops.length === 1 ? rows.filter((r) => r.depth === 1) : tops;
      return (
        COUNTS.every((key) => sum[key] === data.figures[key]) &&
        data.points.every((p) => {
          const raw = countsOf(children.find((r) => r.name === p.gridName));
          return raw.metersOnline === p.metersOnline && raw.metersOffline === p.metersOffline;
        })
      );
    },
  },
  {
    name: 'network history: DCUs by number (7 days)',
    path: '/analytics/networkHistoricalMonitor/list',
    body: () => firstPage(networkHistoryAnalytics),
    raw: () => ({
      text: `with page as (${DCU_PAGE}),
        ${onlineDays(
          `select p.id as device_id, null::varchar as dcu_id, p.id as owner, 'dcu' as kind from page p
          union all select m.id, m.dcu_id, m.dcu_id, 'meter' from meter m join page p on m.dcu_id = p.id where ${REPORTING}`,
          '$1',
          '$2',
          ['owner', 'kind'],
        )},
        changes as (${linkChanges('select id from page', '$1', '$2')}),
        per_dcu as (select o.owner, sum(o.online) filter (where o.kind = 'dcu') as dcu_online,
            sum(o.possible) filter (where o.kind = 'dcu') as dcu_possible,
            sum(o.online) filter (where o.kind = 'meter') as meter_online,
            sum(o.possible) filter (where o.kind = 'meter') as meter_possible,
            (count(distinct o.device_id) filter (where o.kind = 'meter'))::int as meters
          from online_days o group by o.owner)
        select page.id, c.dcu_online, c.dcu_possible, c.meter_online, c.meter_possible, c.meters,
          coalesce(ch.changes, 0)::int as changes
        from page join per_dcu c on c.owner = page.id left join changes ch on ch.device_id = page.id
        order by lower(page.dcu_no), page.id`,
      values: periodEnds(networkHistoryAnalytics) as unknown as unknown[],
    }),
    same: (
      data: {
        list: {
          dcuId: string;
          dcuOnlineRate: number | null;
          meters: number;
          meterOnlineRate: number | null;
          changes: number;
        }[];
      },
      rows,
    ) =>
      data.list.length === rows.length &&
      data.list.every((d, i) => {
        const r = rows[i];
        return (
          r?.id === d.dcuId &&
          near(percent(r.dcu_online, r.dcu_possible), d.dcuOnlineRate, RATE_TOLERANCE) &&
          near(percent(r.meter_online, r.meter_possible), d.meterOnlineRate, RATE_TOLERANCE) &&
          num(r.meters) === d.meters &&
          num(r.changes) === d.changes
        );
      }),
    note: RATE_NOTE,
  },
  {
    name: 'network history: summary and chart (7 days)',
    path: '/analytics/networkHistoricalMonitor/summary',
    body: () => summaryOf(networkHistoryAnalytics),
    raw: () => ({
      text: `with ${onlineDays(COUNTED_DEVICES, '$1', '$2', ['kind'])}
        select o.day::text as day, o.kind, sum(o.online) as online, sum(o.possible) as possible
        from online_days o group by o.day, o.kind`,
      values: periodEnds(networkHistoryAnalytics) as unknown as unknown[],
    }),
    same: (
      data: {
        figures: { meterOnlineRate: number | null; dcuOnlineRate: number | null; lowestDayRate: number | null };
        points: { day: string; meterOnlineRate: number | null; dcuOnlineRate: number | null }[];
      },
      rows,
    ) => {
      const of = (kind: string, day?: string) => {
        const part = rows.filter((r) => r.kind === kind && (day === undefined || r.day === day));
        return percent(
          part.reduce((n, r) => n + num(r.online), 0),
          part.reduce((n, r) => n + num(r.possible), 0),
        );
      };
      const lowest = Math.min(...data.points.map((p) => of('meter', p.day) ?? 101));
      return (
        near(of('meter'), data.figures.meterOnlineRate, RATE_TOLERANCE) &&
        near(of('dcu'), data.figures.dcuOnlineRate, RATE_TOLERANCE) &&
        near(lowest === 101 ? null : lowest, data.figures.lowestDayRate, RATE_TOLERANCE) &&
        data.points.every(
          (p) =>
            near(of('meter', p.day), p.meterOnlineRate, RATE_TOLERANCE) &&
            near(of('dcu', p.day), p.dcuOnlineRate, RATE_TOLERANCE),
        )
      );
    },
    note: RATE_NOTE,
  },
  {
    name: 'concentrator monitoring: DCUs now (first page)',
    path: '/analytics/concentratorMonitoring/list',
    body: () => ({ curPage: 1, pageSize: PAGE_SIZE }),
    raw: (c) => ({ text: concentratorFigures(DCU_PAGE), values: [c.today] }),
    same: (
      data: {
        list: {
          dcuId: string;
          state: string;
          since: string | null;
          lastHeartbeat: string | null;
          meters: number;
          metersOnline: number;
          meterOnlineShare: number | null;
          readSuccessToday: number | null;
        }[];
      },
      rows,
    ) =>
      data.list.length === rows.length &&
      data.list.every((d, i) => {
        const r = rows[i];
        return (
          r?.id === d.dcuId &&
          d.state === (r.online ? 'online' : 'offline') &&
          sameMoment(d.since, r.since) &&
          sameMoment(d.lastHeartbeat, r.heartbeat) &&
          d.meters === num(r.meters) &&
          d.metersOnline === num(r.meters_online) &&
          d.meterOnlineShare === percent(r.meters_online, r.meters) &&
          readSuccessMatches(d.readSuccessToday, r.intervals, num(r.meters), num(r.due))
        );
      }),
    note: "today's read success counts the intervals due by the raw rows' moment or the quarter hour before (the API answered first)",
  },
  {
    name: 'concentrator monitoring: summary and chart',
    path: '/analytics/concentratorMonitoring/summary',
    body: () => ({}),
    raw: (c) => ({ text: concentratorFigures('select d.id, d.dcu_no from dcu d'), values: [c.today] }),
    same: (
      data: {
        figures: {
          dcus: number;
          dcusOnline: number;
          dcusOffline: number;
          meterOnlineShare: number | null;
          readSuccessToday: number | null;
        };
        points: { byOnlineShare: number; byReadSuccess: number }[];
      },
      rows,
    ) => {
      const sum = (key: string) => rows.reduce((n, r) => n + num(r[key]), 0);
      const online = rows.filter((r) => r.online).length;
      const byShare = SHARE_BANDS.map(() => 0);
      for (const r of rows) {
        const band = bandOf(percent(r.meters_online, r.meters));
        if (band >= 0) byShare[band] = (byShare[band] ?? 0) + 1;
      }
      const due = num(rows[0]?.due);
      const readSuccess = [due, due - 1].some((d) => {
        const bands = SHARE_BANDS.map(() => 0);
        for (const r of rows) {
          const band = bandOf(percent(r.intervals, num(r.meters) * d));
          if (band >= 0) bands[band] = (bands[band] ?? 0) + 1;
        }
        return (
          data.figures.readSuccessToday === percent(sum('intervals'), sum('meters') * d) &&
          data.points.every((p, i) => p.byReadSuccess === bands[i])
        );
      });
      return (
        data.figures.dcus === rows.length &&
        data.figures.dcusOnline === online &&
        data.figures.dcusOffline === rows.length - online &&
        data.figures.meterOnlineShare === percent(sum('meters_online'), sum('meters')) &&
        data.points.every((p, i) => p.byOnlineShare === byShare[i]) &&
        readSuccess
      );
    },
    note: "today's read success counts the intervals due by the raw rows' moment or the quarter hour before (the API answered first)",
  },
  {
    name: 'device online report: devices by number (7 days)',
    path: '/analytics/deviceOnlineReport/list',
    body: () => firstPage(deviceOnlineAnalytics),
    raw: () => ({
      text: `with ${REPORT_PAGE}, ${onlineDays('select * from listed', '$1', '$2')},
        latest as (${latestLinks('select device_id from listed union all select dcu_id from listed')}),
        changes as (${linkChanges('select device_id from listed', '$1', '$2')})
        select x.device_id, sum(o.online) as online, sum(o.possible) as possible, coalesce(max(ch.changes), 0)::int as changes,
          coalesce(bool_or(lo.online), false) and (x.dcu_id is null or coalesce(bool_or(lu.online), false)) as online_now
        from listed x join online_days o on o.device_id = x.device_id
        left join changes ch on ch.device_id = x.device_id
        left join latest lo on lo.device_id = x.device_id left join latest lu on lu.device_id = x.dcu_id
        group by x.device_id, x.dcu_id, x.k, x.no order by x.k, lower(x.no), x.device_id`,
      values: periodEnds(deviceOnlineAnalytics) as unknown as unknown[],
    }),
    same: (
      data: {
        list: {
          deviceId: string;
          onlineRate: number | null;
          onlineHours: number | null;
          changes: number;
          state: string;
        }[];
      },
      rows,
    ) =>
      data.list.length === rows.length &&
      data.list.every((d, i) => {
        const r = rows[i];
        return (
          r?.device_id === d.deviceId && onlineFiguresMatch(r, d) && d.state === (r.online_now ? 'online' : 'offline')
        );
      }),
    note: RATE_NOTE,
  },
  {
    name: 'device online report: summary and chart (7 days)',
    path: '/analytics/deviceOnlineReport/summary',
    body: () => summaryOf(deviceOnlineAnalytics),
    raw: () => ({
      text: `with ${onlineDays(COUNTED_DEVICES, '$1', '$2', ['kind'])}, latest as (${latestLinks()})
        select 'day' as part, o.day::text as day, o.kind, sum(o.online) as online, sum(o.possible) as possible, null::int as n
          from online_days o group by o.day, o.kind
        union all select 'devices', null, null, null, null, count(*)::int from dev
        union all select 'offline', null, null, null, null,
          (count(*) filter (where not (coalesce(lo.online, false) and (d.dcu_id is null or coalesce(lu.online, false)))))::int
          from dev d left join latest lo on lo.device_id = d.device_id left join latest lu on lu.device_id = d.dcu_id
        union all select 'changes', null, null, null, null, count(*)::int from link_change l
          where l.device_id in (select device_id from dev) and l.ts >= ${dayStart('$1')} and l.ts < (${dayStart('$2')} + interval '1 day')`,
      values: periodEnds(deviceOnlineAnalytics) as unknown as unknown[],
    }),
    same: (
      data: {
        figures: { devices: number; onlineRate: number | null; offlineNow: number; changes: number };
        points: { day: string; meterOnlineRate: number | null; dcuOnlineRate: number | null }[];
      },
      rows,
    ) => {
      const days = rows.filter((r) => r.part === 'day');
      const of = (part: Row[]) =>
        percent(
          part.reduce((n, r) => n + num(r.online), 0),
          part.reduce((n, r) => n + num(r.possible), 0),
        );
      const figure = (part: string) => num(rows.find((r) => r.part === part)?.n);
      return (
        data.figures.devices === figure('devices') &&
        data.figures.offlineNow === figure('offline') &&
        data.figures.changes === figure('changes') &&
        near(of(days), data.figures.onlineRate, RATE_TOLERANCE) &&
        data.points.every(
          (p) =>
            near(of(days.filter((r) => r.day === p.day && r.kind === 'meter')), p.meterOnlineRate, RATE_TOLERANCE) &&
            near(of(days.filter((r) => r.day === p.day && r.kind === 'dcu')), p.dcuOnlineRate, RATE_TOLERANCE),
        )
      );
    },
    note: RATE_NOTE,
  },
  {
    name: "device online detail: a meter's days",
    path: '/analytics/deviceOnlineDetail/list',
    body: (c) => ({ ...detailBody(c), curPage: 1, pageSize: PAGE_SIZE }),
    raw: (c) => ({
      text: `with ${onlineDays('select m.id as device_id, m.dcu_id from meter m where m.id = $3', '$1', '$2')},
        changes as (select (l.ts at time zone 'UTC')::date as day, count(*)::int as n from link_change l
          where l.device_id = $3 and l.ts >= ${dayStart('$1')} and l.ts < (${dayStart('$2')} + interval '1 day') group by 1)
        select o.day::text as day, o.online, o.possible, o.at_end, coalesce(ch.n, 0) as changes
        from online_days o left join changes ch on ch.day = o.day order by o.day desc limit ${PAGE_SIZE}`,
      values: [...periodEnds(deviceOnlineAnalytics), c.meterId],
    }),
    same: (
      data: {
        list: {
          day: string;
          onlineRate: number | null;
          onlineHours: number | null;
          changes: number;
          stateAtEnd: string;
        }[];
      },
      rows,
    ) =>
      data.list.length === rows.length &&
      data.list.every((d, i) => {
        const r = rows[i];
        return r?.day === d.day && onlineFiguresMatch(r, d) && d.stateAtEnd === (r.at_end ? 'online' : 'offline');
      }),
    note: RATE_NOTE,
  },
  {
    name: 'device online detail: summary and chart',
    path: '/analytics/deviceOnlineDetail/summary',
    body: detailBody,
    raw: (c) => ({
      text: `with ${onlineDays('select m.id as device_id, m.dcu_id from meter m where m.id = $3', '$1', '$2')},
        latest as (${latestLinks('$3::varchar, (select m.dcu_id from meter m where m.id = $3::varchar)')})
        select o.day::text as day, o.online, o.possible,
          (select count(*)::int from link_change l where l.device_id = $3
            and l.ts >= ${dayStart('$1')} and l.ts < (${dayStart('$2')} + interval '1 day')) as changes,
          (select l.ts from latest l where l.device_id = $3) as since,
          coalesce((select l.online from latest l where l.device_id = $3), false)
            and (select m.dcu_id is null or coalesce((select l.online from latest l where l.device_id = m.dcu_id), false)
              from meter m where m.id = $3) as online_now
        from online_days o order by o.day`,
      values: [...periodEnds(deviceOnlineAnalytics), c.meterId],
    }),
    same: (
      data: {
        figures: { onlineRate: number | null; changes: number; state: string; since: string | null };
        points: { day: string; onlineRate: number | null }[];
      },
      rows,
    ) =>
      near(
        percent(
          rows.reduce((n, r) => n + num(r.online), 0),
          rows.reduce((n, r) => n + num(r.possible), 0),
        ),
        data.figures.onlineRate,
        RATE_TOLERANCE,
      ) &&
      data.figures.changes === num(rows[0]?.changes) &&
      data.figures.state === (rows[0]?.online_now ? 'online' : 'offline') &&
      sameMoment(data.figures.since, rows[0]?.since) &&
      data.points.every((p) => {
        const r = rows.find((row) => row.day === p.day);
        return near(percent(r?.online, r?.possible), p.onlineRate, RATE_TOLERANCE);
      }),
    note: RATE_NOTE,
  },
  {
    name: "device online detail: a meter's link changes",
    path: '/analytics/deviceOnlineDetail/changes',
    body: (c) => ({ ...detailBody(c), curPage: 1, pageSize: PAGE_SIZE }),
    raw: (c) => ({
      text: `select count(*) over ()::int as total, l.ts, l.online, l.device_id from link_change l
        where l.device_id in ($3::varchar, (select m.dcu_id from meter m where m.id = $3::varchar))
          and l.ts >= ${dayStart('$1')} and l.ts < (${dayStart('$2')} + interval '1 day')
        order by l.ts desc limit ${PAGE_SIZE}`,
      values: [...periodEnds(deviceOnlineAnalytics), c.meterId],
    }),
    same: (data: { list: { at: string; state: string }[]; total: number }, rows) =>
      data.list.length === rows.length &&
      (rows.length === 0 || data.total === num(rows[0]?.total)) &&
      data.list.every((d, i) => sameMoment(d.at, rows[i]?.ts) && d.state === (rows[i]?.online ? 'online' : 'offline')),
    note: 'the changes are link_change itself: both sides read the raw table',
  },
];
