import { utcToday } from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { DAY_SECONDS } from '../../readings/online-rollups';
import { type AnalyticsRequest, inPlace } from './kit';

/*
 * Online time as the pages read it from the online rollups (readings/online-rollups.ts). A row's
 * `online_seconds` runs to its day's end; for the day in progress the part after now is taken off
 * for each device online at the end, and only the time up to now is possible, so today's rate is
 * today's so far.
 */

/**
 * Seconds of `day` after `now`: today's rest, none for a day that is over (a period never reaches past
 * today). A constant per row, so summing many rows costs no date arithmetic each.
 */
const remaining = (day: SQL, now: Date) => {
  const today = utcToday(now);
  const left = Math.max(0, (Date.parse(`${today}T00:00:00Z`) + DAY_SECONDS * 1000 - now.getTime()) / 1000);
  return sql`(case when ${day} = ${today}::date then ${left}::float8 else 0 end)`;
};

/** Online and possible seconds of a device's day row `r`. */
export const deviceSeconds = (r: string, now: Date) => {
  const left = remaining(sql.raw(`${r}.day`), now);
  return {
    online: sql`(${sql.raw(`${r}.online_seconds`)} - case when ${sql.raw(`${r}.online_at_end`)} then ${left} else 0 end)`,
    possible: sql`(${DAY_SECONDS} - ${left})`,
  };
};

/** Online and possible seconds of a node's or DCU's day row `g` (summed over its devices). */
export const groupSeconds = (g: string, now: Date) => {
  const left = remaining(sql.raw(`${g}.day`), now);
  return {
    online: sql`(${sql.raw(`${g}.online_seconds`)} - ${sql.raw(`${g}.online_at_end`)} * ${left})`,
    possible: sql`(${sql.raw(`${g}.devices`)} * (${DAY_SECONDS} - ${left}))`,
  };
};

/** A percentage with one decimal, or null when nothing was possible. */
export const percent = (part: number, whole: number): number | null =>
  whole > 0 ? Math.round((part * 1000) / whole) / 10 : null;
/** The same in SQL. */
export const percentSql = (part: SQL, whole: SQL) =>
  sql`case when (${whole}) > 0 then round(1000.0 * (${part}) / (${whole}))::float8 / 10 end`;

export interface Seconds {
  online: number;
  possible: number;
  changes: number;
}
export interface OnlineDay {
  day: string;
  meters: Seconds;
  dcus: Seconds;
}

const none = (): Seconds => ({ online: 0, possible: 0, changes: 0 });

/**
 * The online and possible seconds of each day of the period, for the meters and for the DCUs the
 * request reaches: one meter's rows; a DCU's meters (its rollup) and its own rows; or a place's nodes'
 * rollups. Only devices expected to communicate count, as the rollups keep them.
 */
export async function onlineByDay(db: Db, request: AnalyticsRequest, now: Date): Promise<OnlineDay[]> {
  const { place, period } = request;
  const between = (alias: string) => sql`${sql.raw(alias)}.day between ${period.start} and ${period.end}`;
  const device = deviceSeconds('r', now);
  const group = groupSeconds('g', now);
  const ofDevice = (id: string, kind: 'meter' | 'dcu') =>
    sql`select r.day, ${kind}::text as kind, ${device.online} as online, ${device.possible} as possible, r.changes
      from rollup_online_day r where r.device_id = ${id} and r.counted and ${between('r')}`;
  const parts: SQL[] = [];
  if (place.meterId) parts.push(ofDevice(place.meterId, 'meter'));
  else if (place.dcuId)
    parts.push(
      sql`select g.day, 'meter' as kind, ${group.online} as online, ${group.possible} as possible, g.changes
        from rollup_online_dcu_day g where g.dcu_id = ${place.dcuId} and ${between('g')}`,
      ofDevice(place.dcuId, 'dcu'),
    );
  else
    parts.push(
      sql`select g.day, g.device_kind as kind, ${group.online} as online, ${group.possible} as possible, g.changes
        from rollup_online_grid_day g where ${between('g')} and ${inPlace(place, sql.raw('g.grid_id'))}`,
    );
  const rows = await rowsOf<{ day: string; kind: 'meter' | 'dcu'; online: number; possible: number; changes: number }>(
    db,
    sql`select to_char(p.day, 'YYYY-MM-DD') as day, p.kind, sum(p.online)::float8 as online,
        sum(p.possible)::float8 as possible, sum(p.changes)::int as changes
      from (${sql.join(parts, sql` union all `)}) p group by p.day, p.kind`,
  );
  const days = new Map<string, OnlineDay>();
  for (let day = period.start; day <= period.end; day = nextDay(day))
    days.set(day, { day, meters: none(), dcus: none() });
  for (const row of rows) {
    const entry = days.get(row.day);
    if (entry)
      entry[row.kind === 'meter' ? 'meters' : 'dcus'] = {
        online: row.online,
        possible: row.possible,
        changes: row.changes,
      };
  }
  return [...days.values()];
}

const nextDay = (day: string) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + DAY_SECONDS * 1000).toISOString().slice(0, 10);

/** Adds up seconds. */
export const total = (list: readonly Seconds[]): Seconds =>
  list.reduce(
    (sum, s) => ({
      online: sum.online + s.online,
      possible: sum.possible + s.possible,
      changes: sum.changes + s.changes,
    }),
    none(),
  );
