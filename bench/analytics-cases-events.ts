/**
 * The analytics benchmark's cases of the event pages (meter events, its storms, a meter's timeline) and
 * the outage view: the API reads the event rollups (counts) and device_power (who is dark); raw rows are
 * meter_event and dcu_event.
 */
import { meterEventsAnalytics } from '../packages/contracts/src/analytics/meter-events';
import { EVENT_LEVELS } from '../packages/contracts/src/device/protocol';
import {
  type AnalyticsCase,
  dayEnd,
  dayStart,
  firstPage,
  num,
  PAGE_SIZE,
  periodEnds,
  type Row,
  sameMoment,
  summaryOf,
} from './lib/analytics-case';

/** The events of the period (`$1` to `$2`, UTC days) of meters of the archive, alias `e`. */
const EVENTS = `meter_event e join meter m on m.id = e.meter_id where e.ts >= ${dayStart('$1')} and e.ts < ${dayEnd('$2')}`;

/** A meter's events of the period: its timeline, opened from a row of the list with the list's period. */
const detailBody = (c: { eventMeterId: string }) => ({ meterId: c.eventMeterId, ...summaryOf(meterEventsAnalytics) });

type EventRow = { meterId: string; time: string; code: number };
const samePage = (list: EventRow[], rows: Row[]) =>
  list.length === rows.length &&
  list.every((e, i) => e.meterId === rows[i]?.meter_id && e.code === rows[i]?.code && sameMoment(e.time, rows[i]?.ts));

/** The events per UTC day and level of `events` (a FROM clause naming `e`), and those nobody acknowledged. */
const perDayAndLevel = (events: string) => `select (e.ts at time zone 'UTC')::date::text as day, e.level,
    count(*)::int as events, (count(*) filter (where e.ack_at is null))::int as open
  from ${events} group by 1, 2`;

const sumOf = (rows: Row[], key: string, where: (r: Row) => boolean = () => true) =>
  rows.filter(where).reduce((n, r) => n + num(r[key]), 0);

/** Each device's power events (`table`, codes `down`/`up`): dark when its latest is a power-down, since the first one after its latest power-up. */
const darkDevices = (table: string, id: string, down: number, up: number) => `select e.${id} as id, min(e.ts) as since
  from ${table} e join (select ${id}, max(ts) filter (where code = ${down}) as down, max(ts) filter (where code = ${up}) as up
      from ${table} where code in (${down}, ${up}) group by ${id}) p on p.${id} = e.${id}
  where e.code = ${down} and p.down > coalesce(p.up, '-infinity') and e.ts > coalesce(p.up, '-infinity')
  group by e.${id}`;

export const EVENT_CASES: AnalyticsCase[] = [
  {
    name: 'meter events: newest events (7 days)',
    path: '/analytics/meterEvents/list',
    body: () => firstPage(meterEventsAnalytics),
    raw: () => ({
      text: `select (select count(*) from ${EVENTS})::int as total, e.meter_id, e.ts, e.code
        from ${EVENTS} order by e.ts desc, e.meter_id, e.code limit ${PAGE_SIZE}`,
      values: periodEnds(meterEventsAnalytics) as unknown as unknown[],
    }),
    same: (data: { list: EventRow[]; total: number }, rows) =>
      samePage(data.list, rows) && (rows.length === 0 || data.total === num(rows[0]?.total)),
  },
  {
    name: 'meter events: summary and chart (7 days)',
    path: '/analytics/meterEvents/summary',
    body: () => summaryOf(meterEventsAnalytics),
    raw: () => ({ text: perDayAndLevel(EVENTS), values: periodEnds(meterEventsAnalytics) as unknown as unknown[] }),
    same: (
      data: {
        figures: Record<'events' | 'unacknowledged' | (typeof EVENT_LEVELS)[number], number>;
        points: (Record<(typeof EVENT_LEVELS)[number], number> & { day: string })[];
      },
      rows,
    ) =>
      data.figures.events === sumOf(rows, 'events') &&
      data.figures.unacknowledged === sumOf(rows, 'open') &&
      EVENT_LEVELS.every(
        (level, i) =>
          data.figures[level] === sumOf(rows, 'events', (r) => r.level === i) &&
          data.points.every((p) => p[level] === sumOf(rows, 'events', (r) => r.level === i && r.day === p.day)),
      ),
  },
  {
    name: 'meter events: storms by DCU and code (7 days)',
    path: '/analytics/meterEvents/storms',
    body: () => firstPage(meterEventsAnalytics),
    raw: () => ({
      text: `with g as (select m.dcu_id, e.code, count(*)::int as events, count(e.ack_at)::int as acknowledged,
            count(distinct e.meter_id)::int as meters, min(e.ts) as first_ts, max(e.ts) as last_ts
          from ${EVENTS} and m.dcu_id is not null group by m.dcu_id, e.code)
        select count(*) over ()::int as total, g.* from g order by g.last_ts desc, g.dcu_id, g.code limit ${PAGE_SIZE}`,
      values: periodEnds(meterEventsAnalytics) as unknown as unknown[],
    }),
    same: (
      data: {
        list: { dcuId: string; code: number; events: number; acknowledged: number; meters: number; lastTime: string }[];
        total: number;
      },
      rows,
    ) =>
      data.list.length === rows.length &&
      (rows.length === 0 || data.total === num(rows[0]?.total)) &&
      data.list.every((s, i) => {
        const r = rows[i];
        return (
          s.dcuId === r?.dcu_id &&
          s.code === r.code &&
          s.events === r.events &&
          s.acknowledged === r.acknowledged &&
          s.meters === r.meters &&
          sameMoment(s.lastTime, r.last_ts)
        );
      }),
  },
  {
    name: "meter events detail: a meter's events",
    path: '/analytics/meterEventsDetail/list',
    body: (c) => ({ ...detailBody(c), curPage: 1, pageSize: PAGE_SIZE }),
    raw: (c) => ({
      text: `select (select count(*) from ${EVENTS} and e.meter_id = $3)::int as total, e.meter_id, e.ts, e.code
        from ${EVENTS} and e.meter_id = $3 order by e.ts desc, e.code limit ${PAGE_SIZE}`,
      values: [...periodEnds(meterEventsAnalytics), c.eventMeterId],
    }),
    same: (data: { list: EventRow[]; total: number }, rows) =>
      samePage(data.list, rows) && (rows.length === 0 || data.total === num(rows[0]?.total)),
  },
  {
    name: 'meter events detail: summary and timeline',
    path: '/analytics/meterEventsDetail/summary',
    body: detailBody,
    raw: (c) => ({
      text: perDayAndLevel(`${EVENTS} and e.meter_id = $3`),
      values: [...periodEnds(meterEventsAnalytics), c.eventMeterId],
    }),
    same: (data: { figures: { events: number; severe: number; unacknowledged: number }; points: unknown[] }, rows) =>
      data.figures.events === sumOf(rows, 'events') &&
      data.figures.severe === sumOf(rows, 'events', (r) => r.level === EVENT_LEVELS.indexOf('severe')) &&
      data.figures.unacknowledged === sumOf(rows, 'open') &&
      data.points.length === Math.min(1000, sumOf(rows, 'events')),
  },
  {
    name: 'outage: dark meters, DCUs and areas now',
    path: '/outage/summary',
    body: () => ({}),
    raw: () => ({
      text: `with dark as (${darkDevices('meter_event', 'meter_id', 1, 2)}),
          dark_dcus as (${darkDevices('dcu_event', 'dcu_id', 80, 81)}),
          areas as (select m.grid_id, count(*) as meters, count(d.id) as dark from meter m
            join power_grid g on g.id = m.grid_id and g.grid_type = 3 left join dark d on d.id = m.id group by m.grid_id)
        select (select count(*) from dark d join meter m on m.id = d.id)::int as dark_meters,
          (select count(distinct p.consumer_id) from dark d join poc p on p.meter_id = d.id)::int as dark_consumers,
          (select count(*) from dark_dcus d join dcu x on x.id = d.id)::int as dark_dcus,
          (select count(*) from areas where dark > 0)::int as affected_areas,
          (select count(*) from areas where dark = meters)::int as dark_areas,
          least((select min(since) from dark), (select min(since) from dark_dcus)) as since`,
    }),
    same: (
      data: {
        darkMeters: number;
        darkConsumers: number;
        darkDcus: number;
        affectedAreas: number;
        darkAreas: number;
        since: string | null;
      },
      [r],
    ) =>
      data.darkMeters === r?.dark_meters &&
      data.darkConsumers === r.dark_consumers &&
      data.darkDcus === r.dark_dcus &&
      data.affectedAreas === r.affected_areas &&
      data.darkAreas === r.dark_areas &&
      sameMoment(data.since, r.since),
  },
];
