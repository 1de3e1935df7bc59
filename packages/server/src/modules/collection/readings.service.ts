import {
  EVENT_LEVELS,
  FROZEN_REGISTER_KEYS,
  type FrozenRegisterKey,
  INTERVALS_PER_DAY,
  type MeterDayQuery,
  type MeterEventRow,
  type MeterFrozen,
  type MeterProfile,
  type MeterRangeQuery,
  PROFILE_CHANNEL_KEYS,
  type ProfileChannelKey,
  READING_RANGE_LIMITS,
  RESULT,
  type ReadingChannel,
  scaledNumber,
  unitSymbol,
} from '@meterdesk/contracts';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/driver';
import { meter, obisItem } from '../../db/schema';
import { fieldError, notFound } from '../../errors/api-error';
import { gridScope, type Scope } from '../../rbac/scope';
import { FROZEN_CHANNELS, PROFILE_CHANNELS } from '../../readings/rows';
import { profileSource, virtualFrozenRows } from '../payment/virtual-meter';

const DAY_MS = 86_400_000;
const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`);
const today = (now: Date) => now.toISOString().slice(0, 10);

/** Columns of each reading table, snake-cased as stored, in the contracts' order. */
const snake = (key: string) => key.replace(/[A-Z0-9]+/g, (m) => `_${m.toLowerCase()}`).replace('_l_1', '_l1');
const columnList = (keys: readonly string[], alias: string) =>
  sql.raw(keys.map((k) => `${alias}.${snake(k)}`).join(', '));

type Catalogue = Record<string, [scaler: number, unit: number]>;

/**
 * The scaler and unit of the channels' OBIS items, read in the same statement as the readings, so an
 * operator's edit of the catalogue shows on the next read without a round trip of its own.
 */
const catalogueOf = (codes: readonly string[]) =>
  sql<Catalogue>`(select coalesce(json_object_agg(o.obis, json_build_array(o.scaler, o.unit)), '{}')
     from ${obisItem} o where o.obis in (${sql.join(
       codes.map((c) => sql`${c}`),
       sql`, `,
     )}))`;

function channelsOf<K extends string>(map: Record<K, string>, keys: readonly K[], catalogue: Catalogue) {
  const channels: ReadingChannel[] = keys.map((key) => {
    const item = catalogue[map[key]];
    return { key, obis: map[key], unit: item ? unitSymbol(item[1]) : '' };
  });
  // Each channel's scaler looked up once per answer, not once per value: a day is 96 rows of them.
  const scalers = keys.map((key) => catalogue[map[key]]?.[0]);
  const scale = (raw: (number | null)[]) => {
    const values = {} as Record<K, number | null>;
    for (const [i, key] of keys.entries()) {
      const value = raw[i] ?? null;
      const scaler = scalers[i];
      values[key] = value === null || scaler === undefined ? value : scaledNumber(value, scaler);
    }
    return values;
  };
  return { channels, scale };
}

/** 400 for a day after today or a range the spec's picker would not give (start after end, too long). */
function checkDay(day: string, field: string, now: Date) {
  if (day > today(now)) throw fieldError(RESULT.badRequest, field, 'dateAfterToday');
}
function checkRange({ startDay, endDay }: MeterRangeQuery, maxDays: number, now: Date) {
  checkDay(endDay, 'endDay', now);
  if (startDay > endDay) throw fieldError(RESULT.badRequest, 'startDay', 'timeRangeInvalid');
  if ((dayStart(endDay).getTime() - dayStart(startDay).getTime()) / DAY_MS + 1 > maxDays)
    throw fieldError(RESULT.badRequest, 'endDay', 'timeRangeTooLong');
}

/**
 * A meter's readings for its detail page. Each call is one statement: the meter row within the
 * caller's grid scope (none: 404) with its readings aggregated beside it, read on the (meter_id, time)
 * key, so a day's profile is one index range in one partition.
 */
export class ReadingsService {
  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private async one<T extends Record<string, unknown>>(
    scope: Scope,
    meterId: string,
    fields: { [K in keyof T]: SQL<T[K]> },
  ) {
    const [row] = await this.db
      .select(fields as Record<string, SQL>)
      .from(meter)
      .where(and(eq(meter.id, meterId), gridScope(scope, meter.gridId)));
    if (!row) throw notFound();
    return row as T;
  }

  async profile({ meterId, day }: MeterDayQuery, scope: Scope): Promise<MeterProfile> {
    checkDay(day, 'day', this.clock());
    const from = dayStart(day);
    const to = new Date(from.getTime() + DAY_MS);
    const row = await this.one<{ catalogue: Catalogue; rows: [number, ...(number | null)[]][] }>(scope, meterId, {
      catalogue: catalogueOf(PROFILE_CHANNEL_KEYS.map((k) => PROFILE_CHANNELS[k])),
      // A virtual meter's intervals are computed from its members' (profileSource).
      rows: sql`(select coalesce(json_agg(json_build_array(extract(epoch from p.ts) * 1000, ${columnList(PROFILE_CHANNEL_KEYS, 'p')}) order by p.ts), '[]')
        from ${profileSource([meterId], from, to)})`,
    });
    const { channels, scale } = channelsOf<ProfileChannelKey>(PROFILE_CHANNELS, PROFILE_CHANNEL_KEYS, row.catalogue);
    return {
      day,
      expected: INTERVALS_PER_DAY,
      channels,
      rows: row.rows.map(([ms, ...raw]) => ({ ts: new Date(Number(ms)).toISOString(), values: scale(raw) })),
    };
  }

  daily(query: MeterRangeQuery, scope: Scope): Promise<MeterFrozen> {
    checkRange(query, READING_RANGE_LIMITS.daily, this.clock());
    return this.frozen('reading_daily', 'day', query, scope);
  }

  monthly(query: MeterRangeQuery, scope: Scope): Promise<MeterFrozen> {
    checkRange(query, READING_RANGE_LIMITS.monthly, this.clock());
    return this.frozen('reading_monthly', 'month', query, scope);
  }

  private async frozen(
    table: 'reading_daily' | 'reading_monthly',
    key: 'day' | 'month',
    { meterId, startDay, endDay }: MeterRangeQuery,
    scope: Scope,
  ): Promise<MeterFrozen> {
    const row = await this.one<{ catalogue: Catalogue; rows: [string, ...(number | null)[]][] }>(scope, meterId, {
      catalogue: catalogueOf(FROZEN_REGISTER_KEYS.map((k) => FROZEN_CHANNELS[k])),
      // A virtual meter's registers are its members' (active import and its rates alone).
      rows: sql`case when ${meter.virtual} then ${virtualFrozenRows(meterId, table, key, startDay, endDay)}
        else (select coalesce(json_agg(json_build_array(f.${sql.raw(key)}, ${columnList(FROZEN_REGISTER_KEYS, 'f')}) order by f.${sql.raw(key)}), '[]')
        from ${sql.raw(table)} f where f.meter_id = ${meterId} and f.${sql.raw(key)} between ${startDay} and ${endDay}) end`,
    });
    const { channels, scale } = channelsOf<FrozenRegisterKey>(FROZEN_CHANNELS, FROZEN_REGISTER_KEYS, row.catalogue);
    return { channels, rows: row.rows.map(([day, ...raw]) => ({ day, values: scale(raw) })) };
  }

  async events(query: MeterRangeQuery, scope: Scope, limit: number): Promise<MeterEventRow[]> {
    checkRange(query, READING_RANGE_LIMITS.events, this.clock());
    const from = dayStart(query.startDay);
    const to = new Date(dayStart(query.endDay).getTime() + DAY_MS);
    const row = await this.one<{ rows: [number, number, number, string | null, Record<string, unknown> | null][] }>(
      scope,
      query.meterId,
      {
        rows: sql`(select coalesce(json_agg(json_build_array(extract(epoch from e.ts) * 1000, e.code, e.level,
            (select d.name from event_definition d where d.code = e.code limit 1), e.data) order by e.ts desc, e.code), '[]')
          from (select * from meter_event e where e.meter_id = ${query.meterId} and e.ts >= ${from} and e.ts < ${to}
                order by e.ts desc, e.code limit ${limit}) e)`,
      },
    );
    return row.rows.map(([ms, code, level, name, data]) => ({
      time: new Date(Number(ms)).toISOString(),
      code,
      name: name ?? '',
      level: EVENT_LEVELS[level] ?? 'regular',
      data,
    }));
  }
}
