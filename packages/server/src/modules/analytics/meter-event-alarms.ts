import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { SEVERE_LEVEL } from '../../db/schema';
import { gridScope, type Scope } from '../../rbac/scope';

/*
 * Alarms: severe meter events nobody has acknowledged yet (acknowledging them, one by one or a storm at
 * a time, is the meter events page's). The dashboard's alarm card reads them from here.
 */

/** The condition that an event of meter_event `alias` is an alarm; the partial index meter_event_unack_severe_idx holds exactly these. */
export const unacknowledgedSevere = (alias = 'e'): SQL =>
  sql.raw(`${alias}.level = ${SEVERE_LEVEL} and ${alias}.ack_at is null`);

export interface AlarmEvent {
  meterId: string;
  devAddr: string;
  gridName: string;
  /** ISO 8601, UTC, milliseconds. */
  time: string;
  code: number;
  /** The event definition's name, or '' for a code the catalogue lacks. */
  name: string;
}

/**
 * The caller's alarms since `since`, newest first, `limit` of them after `offset`, and whether more
 * follow: read on the partial index of unacknowledged severe events, so a page costs its rows whatever
 * the events table holds.
 */
export async function unacknowledgedSevereEvents(
  db: Executor,
  scope: Scope,
  { since, limit, offset = 0 }: { since: Date; limit: number; offset?: number },
): Promise<{ list: AlarmEvent[]; more: boolean }> {
  const rows = await rowsOf<AlarmEvent>(
    db,
    sql`select x.meter_id as "meterId", x.dev_addr as "devAddr",
        coalesce((select g.grid_name from power_grid g where g.id = x.grid_id), '') as "gridName",
        to_char(x.ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as time, x.code,
        coalesce((select d.name from event_definition d where d.code = x.code), '') as name
      from (select e.meter_id, e.ts, e.code, m.dev_addr, m.grid_id
            from meter_event e join meter m on m.id = e.meter_id
            where ${unacknowledgedSevere('e')} and e.ts >= ${since.toISOString()}::timestamptz
              and ${gridScope(scope, sql.raw('m.grid_id')) ?? sql`true`}
            order by e.ts desc, e.meter_id, e.code limit ${limit + 1} offset ${offset}) x
      order by x.ts desc, x.meter_id, x.code`,
  );
  return { list: rows.slice(0, limit), more: rows.length > limit };
}

/**
 * How many alarms the caller's meters raised on the UTC days from `sinceDay` on, from the event
 * rollups (behind the events by the fold's minute at most).
 */
export async function unacknowledgedSevereCount(db: Executor, scope: Scope, sinceDay: string): Promise<number> {
  const [row] = await rowsOf<{ n: number }>(
    db,
    sql`select coalesce(sum(r.events - r.acknowledged), 0)::int as n from rollup_grid_event_day r
      where r.level = ${SEVERE_LEVEL} and r.day >= ${sinceDay}::date
        and ${gridScope(scope, sql.raw('r.grid_id')) ?? sql`true`}`,
  );
  return row?.n ?? 0;
}
