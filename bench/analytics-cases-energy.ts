/**
 * The analytics benchmark's cases of the register pages (cumulative energy and its detail, energy gain)
 * and clock monitoring: raw rows are reading_daily (the frozen registers), poc_replacement and
 * clock_check; the API reads the grid register rollups, its ranking of gains and each meter's latest
 * clock check (meter_clock).
 */
import { CLOCK_BANDS, clockMonitoringAnalytics } from '../packages/contracts/src/analytics/clock';
import { cumulativeEnergyAnalytics, energyGainAnalytics } from '../packages/contracts/src/analytics/energy';
import {
  type AnalyticsCase,
  addDays,
  dayEnd,
  dayStart,
  firstPage,
  KWH,
  METER_PAGE,
  num,
  PAGE_SIZE,
  periodEnds,
  summaryOf,
} from './lib/analytics-case';

/** The register totals, in the contracts' names, of reading_daily rows `d` summed. */
const REGISTER_SUMS = ['activeImport', 'activeExport', 'reactiveImport', 'reactiveExport'] as const;
const RATES = ['T1', 'T2', 'T3', 'T4'] as const;
const column = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The cumulative page's date: one day, today by default; its detail opens on the month up to it. */
const cumulativeDay = () => periodEnds(cumulativeEnergyAnalytics)[1];
const cumulativeDetail = (c: { meterId: string }) => ({
  meterId: c.meterId,
  startDay: addDays(cumulativeDay(), -30),
  endDay: cumulativeDay(),
});

/**
 * Each meter's gain over the period (`$1` to `$2`): its active import frozen at the period's end less
 * the one frozen the day before it began, or the totals a POC replacement in the period recorded.
 */
const GAINS = `with replaced as (select * from poc_replacement r
      where r.change_time >= ${dayStart('$1')} and r.change_time < ${dayEnd('$2')}),
    fitted as (select distinct on (new_meter_id) new_meter_id as meter_id, new_active_total as total from replaced
      where new_active_total is not null order by new_meter_id, change_time),
    removed as (select distinct on (old_meter_id) old_meter_id as meter_id, old_active_total as total from replaced
      where old_active_total is not null order by old_meter_id, change_time desc),
    gains as (select m.id, m.dev_addr,
        coalesce(round(rm.total * 1000)::bigint, e.active_import) - coalesce(round(f.total * 1000)::bigint, s.active_import) as gain
      from meter m
      left join reading_daily s on s.meter_id = m.id and s.day = $1::date - 1
      left join reading_daily e on e.meter_id = m.id and e.day = $2::date
      left join fitted f on f.meter_id = m.id left join removed rm on rm.meter_id = m.id)`;

/** A meter's latest clock check (clock_check alone), when it lies in the period (`$1` to `$2`). */
const LATEST_CHECKS = `latest as (select distinct on (c.meter_id) c.meter_id, c.ts, c.deviation_seconds from clock_check c
      order by c.meter_id, c.ts desc),
    checked as (select l.* from latest l join meter m on m.id = l.meter_id
      where l.ts >= ${dayStart('$1')} and l.ts < ${dayEnd('$2')})`;
/** The page's default threshold, seconds either way (the filter is not set). */
const THRESHOLD = 60;

export const ENERGY_CASES: AnalyticsCase[] = [
  {
    name: 'cumulative energy: registers at today (first page)',
    path: '/analytics/cumulativeEnergy/list',
    body: () => firstPage(cumulativeEnergyAnalytics),
    raw: () => ({
      text: `select x.id, d.day::text as day, ${KWH('d.active_import')} as active_import
        from (${METER_PAGE}) x left join lateral (select * from reading_daily d where d.meter_id = x.id and d.day <= $1
          order by d.day desc limit 1) d on true
        order by lower(x.dev_addr), x.id`,
      values: [cumulativeDay()],
    }),
    same: (data: { list: { meterId: string; readingDay: string | null; activeImport: number | null }[] }, rows) =>
      data.list.length === rows.length &&
      data.list.every(
        (m, i) =>
          m.meterId === rows[i]?.id &&
          m.readingDay === (rows[i]?.day ?? null) &&
          m.activeImport === (rows[i]?.active_import ?? null),
      ),
    note: "each meter's latest frozen row at the date is one probe of reading_daily's key: both sides read raw rows",
  },
  {
    name: 'cumulative energy: summary and chart',
    path: '/analytics/cumulativeEnergy/summary',
    body: () => summaryOf(cumulativeEnergyAnalytics),
    raw: () => ({
      text: `select (select count(*) from meter)::int as meters, count(d.meter_id)::int as at_date,
          ${[...REGISTER_SUMS, ...RATES.map((r) => `activeImport${r}`)]
            .map((f) => `${KWH(`sum(d.${column(f)})`)} as "${f}"`)
            .join(', ')}
        from reading_daily d join meter m on m.id = d.meter_id where d.day = $1`,
      values: [cumulativeDay()],
    }),
    same: (
      data: {
        figures: Record<(typeof REGISTER_SUMS)[number], number | null> & { meters: number; metersAtDate: number };
        points: { rate: string; activeImport: number | null }[];
      },
      [r],
    ) =>
      data.figures.meters === r?.meters &&
      data.figures.metersAtDate === r.at_date &&
      REGISTER_SUMS.every((f) => data.figures[f] === r[f]) &&
      data.points.every((p) => p.activeImport === r[`activeImport${p.rate}`]),
  },
  {
    name: "cumulative energy detail: a meter's days",
    path: '/analytics/cumulativeEnergyDetail/list',
    body: (c) => ({ ...cumulativeDetail(c), curPage: 1, pageSize: PAGE_SIZE }),
    raw: (c) => {
      const { meterId, startDay, endDay } = cumulativeDetail(c);
      return {
        text: `select count(*) over ()::int as total, d.day::text as day, ${KWH('d.active_import')} as active_import
          from reading_daily d where d.meter_id = $3 and d.day between $1 and $2 order by d.day desc limit ${PAGE_SIZE}`,
        values: [startDay, endDay, meterId],
      };
    },
    same: (data: { list: { day: string; activeImport: number | null }[]; total: number }, rows) =>
      data.list.length === rows.length &&
      (rows.length === 0 || data.total === num(rows[0]?.total)) &&
      data.list.every((d, i) => d.day === rows[i]?.day && d.activeImport === rows[i]?.active_import),
    note: "a meter's frozen rows are a range of reading_daily's key: both sides read raw rows",
  },
  {
    name: 'cumulative energy detail: summary and chart',
    path: '/analytics/cumulativeEnergyDetail/summary',
    body: cumulativeDetail,
    raw: (c) => {
      const { meterId, startDay, endDay } = cumulativeDetail(c);
      return {
        text: `select count(*)::int as days, max(d.day)::text as last_day,
            (array_agg(${KWH('d.active_import')} order by d.day desc))[1] as active_import
          from reading_daily d where d.meter_id = $3 and d.day between $1 and $2`,
        values: [startDay, endDay, meterId],
      };
    },
    same: (data: { figures: { daysKnown: number; lastDay: string | null; activeImport: number | null } }, [r]) =>
      data.figures.daysKnown === r?.days &&
      data.figures.lastDay === r.last_day &&
      data.figures.activeImport === (r.active_import ?? null),
    note: "a meter's frozen rows are a range of reading_daily's key: both sides read raw rows",
  },
  {
    name: 'energy gain: meters by gain (7 days)',
    path: '/analytics/energyGain/list',
    body: () => firstPage(energyGainAnalytics),
    raw: () => ({
      text: `${GAINS} select id, ${KWH('gain')} as gain, (select count(*) from meter)::int as total from gains
        order by gain desc nulls last, lower(dev_addr), id limit ${PAGE_SIZE}`,
      values: periodEnds(energyGainAnalytics) as unknown as unknown[],
    }),
    same: (data: { list: { meterId: string; gain: number | null }[]; total: number }, rows) =>
      data.list.length === rows.length &&
      data.total === num(rows[0]?.total) &&
      data.list.every((m, i) => m.meterId === rows[i]?.id && m.gain === (rows[i]?.gain ?? null)),
    note: 'the API ranks every meter from the same frozen rows and keeps the ranking a minute: the calls after the first read it',
  },
  {
    name: 'energy gain: summary and chart (7 days)',
    path: '/analytics/energyGain/summary',
    body: () => summaryOf(energyGainAnalytics),
    raw: () => ({
      text: `${GAINS} select count(*)::int as meters, count(gain)::int as with_gain,
          (count(*) filter (where gain < 0))::int as decreased, round(sum(gain) filter (where gain >= 0))::float8 / 1000 as gain
        from gains`,
      values: periodEnds(energyGainAnalytics) as unknown as unknown[],
    }),
    same: (
      data: { figures: { meters: number; metersWithGain: number; gain: number | null; metersDecreased: number } },
      [r],
    ) =>
      data.figures.meters === r?.meters &&
      data.figures.metersWithGain === r.with_gain &&
      data.figures.metersDecreased === r.decreased &&
      data.figures.gain === (num(r.with_gain) ? num(r.gain) : null),
    note: 'the API ranks every meter from the same frozen rows and keeps the ranking a minute: the calls after the first read it',
  },
  {
    name: 'clock monitoring: clocks off ≥ 60 s (30 days)',
    path: '/analytics/clockMonitoring/list',
    body: () => firstPage(clockMonitoringAnalytics),
    raw: () => ({
      text: `with ${LATEST_CHECKS}
        select count(*) over ()::int as total, c.meter_id, c.deviation_seconds from checked c
        where abs(c.deviation_seconds) >= ${THRESHOLD}
        order by abs(c.deviation_seconds) desc, c.meter_id desc limit ${PAGE_SIZE}`,
      values: periodEnds(clockMonitoringAnalytics) as unknown as unknown[],
    }),
    same: (data: { list: { meterId: string; deviationSeconds: number }[]; total: number }, rows) =>
      data.list.length === rows.length &&
      (rows.length === 0 || data.total === num(rows[0]?.total)) &&
      data.list.every((m, i) => m.meterId === rows[i]?.meter_id && m.deviationSeconds === rows[i]?.deviation_seconds),
  },
  {
    name: 'clock monitoring: summary and chart (30 days)',
    path: '/analytics/clockMonitoring/summary',
    body: () => summaryOf(clockMonitoringAnalytics),
    raw: () => ({
      text: `with ${LATEST_CHECKS}
        select (select count(*) from meter)::int as meters, count(*)::int as checked,
          (count(*) filter (where abs(deviation_seconds) >= ${THRESHOLD}))::int as beyond,
          min(deviation_seconds) as lowest, max(deviation_seconds) as highest,
          ${CLOCK_BANDS.map((band, i) => {
            const next = CLOCK_BANDS[i + 1];
            return `(count(*) filter (where abs(deviation_seconds) >= ${band.from}${next ? ` and abs(deviation_seconds) < ${next.from}` : ''}))::int as b${i}`;
          }).join(', ')}
        from checked`,
      values: periodEnds(clockMonitoringAnalytics) as unknown as unknown[],
    }),
    same: (
      data: {
        figures: { meters: number; checked: number; beyond: number; largest: number | null };
        points: { band: string; meters: number }[];
      },
      [r],
    ) => {
      const [lowest, highest] = [r?.lowest, r?.highest].map((v) => (v === null || v === undefined ? null : num(v)));
      const largest =
        lowest === null || highest === null || lowest === undefined || highest === undefined
          ? null
          : Math.abs(lowest) > Math.abs(highest)
            ? lowest
            : highest;
      return (
        data.figures.meters === r?.meters &&
        data.figures.checked === r.checked &&
        data.figures.beyond === r.beyond &&
        data.figures.largest === largest &&
        data.points.every((p, i) => p.meters === r[`b${i}`])
      );
    },
  },
];
