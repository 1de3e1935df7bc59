import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, primaryKey, timestamp, varchar } from 'drizzle-orm/pg-core';

const time = () => timestamp({ withTimezone: true, mode: 'date' });

/**
 * Each device's supply as its power events tell it (contracts `POWER_EVENTS`), kept by the readings
 * writer in the transaction that stores the events, so the outage view never scans events. Out of
 * order and repeated events fold in: a device is dark while its latest power-down is later than its
 * latest power-up (a power-up at the same instant wins).
 */
export const devicePower = pgTable(
  'device_power',
  {
    /** `meter` or `dcu`. */
    deviceKind: varchar({ length: 8 }).notNull(),
    /** The device's archive id. */
    deviceId: varchar({ length: 32 }).notNull(),
    downAt: time(),
    upAt: time(),
    dark: boolean().notNull(),
    /** While dark: the first power-down after the latest power-up. */
    darkSince: time(),
  },
  (t) => [
    primaryKey({ columns: [t.deviceKind, t.deviceId] }),
    // The outage view reads the dark devices only: a few among millions.
    index('device_power_dark_idx').on(t.deviceKind, t.deviceId).where(sql`${t.dark}`),
  ],
);
