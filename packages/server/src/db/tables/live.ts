import { sql } from 'drizzle-orm';
import { bigint, boolean, index, pgTable, smallint, timestamp, varchar } from 'drizzle-orm/pg-core';
import { meter } from './archive';

const time = () => timestamp({ withTimezone: true, mode: 'date' });

/**
 * A meter's live state, one narrow row per meter, kept as devices deliver (readings/live-state.ts):
 * the meter list shows and filters it for a page of rows without reading the readings tables, and a
 * reading only rewrites this row, never the wide archive row and its dozen indexes. Every meter has
 * its row from the moment it is inserted (a trigger, migration 0031) until it is deleted (cascade),
 * so the list joins it, and a sort by last communication walks this table's index.
 */
export const meterLive = pgTable(
  'meter_live',
  {
    meterId: varchar({ length: 32 })
      .primaryKey()
      .references(() => meter.id, { onDelete: 'cascade' }),
    /** Reachable now: its own status says online and, behind a DCU, the DCU's does too (as the head-end decides). */
    online: boolean().notNull().default(false),
    /** The last time the head-end heard from or for the meter: a status, a reading, an event, a command's answer. */
    lastCommAt: time(),
    /** The main relay's control state (class 70: 0 disconnected, 1 connected, 2 ready for reconnection); null: never learnt. */
    relayState: smallint(),
    relayAt: time(),
    /** The newest active energy import register read (Wh, raw) and its capture time. */
    lastReadAt: time(),
    lastReadWh: bigint({ mode: 'number' }),
  },
  (t) => [
    index('meter_live_online_idx').on(t.online, t.meterId),
    index('meter_live_relay_idx').on(t.relayState, t.meterId),
    // The list's sort by last communication: never heard from sorts as the oldest.
    index('meter_live_last_comm_idx').on(sql`coalesce(${t.lastCommAt}, '-infinity'::timestamptz)`, t.meterId),
  ],
);
