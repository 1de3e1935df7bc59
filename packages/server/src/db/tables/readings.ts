import { EVENT_LEVELS } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  timestamp,
  varchar,
} from 'drizzle-orm/pg-core';

/** meter_event.level of a severe event (the index of its name in EVENT_LEVELS). */
export const SEVERE_LEVEL = EVENT_LEVELS.indexOf('severe');

const time = () => timestamp({ withTimezone: true, mode: 'date' });
const wh = (name?: string) => (name ? bigint(name, { mode: 'number' }) : bigint({ mode: 'number' }));

/*
 * The readings store. Every key leads with the device's id, then time, so one meter's day is one
 * index range and the tables can be distributed by meter later. The big tables are partitioned by
 * time (declared in migration 0013 by hand: drizzle-kit cannot say PARTITION BY); `readings/partitions.ts`
 * makes the partitions ahead and drops whole ones past retention. Values are the device's raw integers
 * as it reported them (energy in Wh / varh, scaler 0); the OBIS catalogue's scaler and unit apply when
 * they are shown, so a stored value never depends on a catalogue edited later.
 */

/** Interval load profile (15 min): one row per meter per interval, the channels as columns. */
export const readingProfile = pgTable(
  'reading_profile',
  {
    meterId: varchar({ length: 32 }).notNull(),
    /** End of the interval, as captured by the meter. */
    ts: time().notNull(),
    activeImport: wh(),
    activeExport: wh(),
    reactiveImport: wh(),
    reactiveExport: wh(),
    /** Average active power over the interval, W. */
    activePower: integer(),
    /** Raw, scaler -1 (dV). */
    voltageL1: integer('voltage_l1'),
    /** Raw, scaler -3 (mA). */
    currentL1: integer('current_l1'),
  },
  (t) => [primaryKey({ columns: [t.meterId, t.ts] })],
);

const frozenRegisters = () => ({
  activeImport: wh(),
  activeImportT1: wh('active_import_t1'),
  activeImportT2: wh('active_import_t2'),
  activeImportT3: wh('active_import_t3'),
  activeImportT4: wh('active_import_t4'),
  activeExport: wh(),
  reactiveImport: wh(),
  reactiveExport: wh(),
  /** Maximum demand of the period, W. */
  maxDemand: integer(),
});

/**
 * Registers frozen at midnight (the day they close). Besides the key, one day's rows in meter order
 * with their active import (`INCLUDE`, written by hand in migration 0029): energy gain ranks every
 * meter by the difference of two days from two index-only range scans merged on the meter.
 */
export const readingDaily = pgTable(
  'reading_daily',
  { meterId: varchar({ length: 32 }).notNull(), day: date({ mode: 'string' }).notNull(), ...frozenRegisters() },
  (t) => [primaryKey({ columns: [t.meterId, t.day] }), index('reading_daily_day_idx').on(t.day, t.meterId)],
);

/** Registers frozen at the month's billing point; `month` is its first day. */
export const readingMonthly = pgTable(
  'reading_monthly',
  { meterId: varchar({ length: 32 }).notNull(), month: date({ mode: 'string' }).notNull(), ...frozenRegisters() },
  (t) => [primaryKey({ columns: [t.meterId, t.month] })],
);

/** Events from the standard event log of meters (0-0:99.98.0.255), pushed or read. */
export const meterEvent = pgTable(
  'meter_event',
  {
    meterId: varchar({ length: 32 }).notNull(),
    ts: time().notNull(),
    code: integer().notNull(),
    /** 0 regular, 1 medium, 2 severe (the event definition's level when it arrived). */
    level: smallint().notNull(),
    data: jsonb(),
    /** The user who acknowledged the event (sys_user.id); null while it waits. The first acknowledgement stays. */
    ackBy: varchar({ length: 32 }),
    ackAt: time(),
    ackRemark: varchar({ length: 500 }),
  },
  (t) => [
    primaryKey({ columns: [t.meterId, t.ts, t.code] }),
    index('meter_event_ts_idx').on(t.ts),
    // The dashboard's alarms, newest first: a small index of the severe events nobody has acknowledged yet.
    index('meter_event_unack_severe_idx')
      .on(t.ts)
      .where(sql`${t.level} = ${sql.raw(String(SEVERE_LEVEL))} and ${t.ackAt} is null`),
  ],
);

/** Events of concentrators. */
export const dcuEvent = pgTable(
  'dcu_event',
  {
    dcuId: varchar({ length: 32 }).notNull(),
    ts: time().notNull(),
    code: integer().notNull(),
    level: smallint().notNull(),
    data: jsonb(),
  },
  (t) => [primaryKey({ columns: [t.dcuId, t.ts, t.code] }), index('dcu_event_ts_idx').on(t.ts)],
);

/** Each change of a device's communication status (online ↔ offline), from its status messages. */
export const linkChange = pgTable(
  'link_change',
  {
    /** A meter's or a DCU's archive id. */
    deviceId: varchar({ length: 32 }).notNull(),
    deviceKind: varchar({ length: 8 }).notNull(),
    ts: time().notNull(),
    online: boolean().notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.ts] })],
);

/** A meter's clock read against the head-end's: deviation = meter − head-end, seconds. */
export const clockCheck = pgTable(
  'clock_check',
  {
    meterId: varchar({ length: 32 }).notNull(),
    ts: time().notNull(),
    deviationSeconds: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.meterId, t.ts] })],
);
