import { sql } from 'drizzle-orm';
import { bigint, boolean, date, index, integer, pgTable, primaryKey, timestamp, varchar } from 'drizzle-orm/pg-core';

const time = () => timestamp({ withTimezone: true, mode: 'date' });

/*
 * The network's communication as the analytics pages read it (modules/analytics/network.ts): each
 * device's reachability now, counted per grid node, and its online time per day, rolled up per node
 * and per DCU, so no page scans `link_change` or counts the archive.
 */

/**
 * Each archive meter and DCU with its reachability now, one narrow row per device. Kept by triggers
 * (migration 0028): the archive's inserts, moves and deletes place the row, and every change of the
 * head-end's `device_link` sets its link in the same statement, so a page that reads after a live
 * change was announced finds it here.
 */
export const deviceOnline = pgTable(
  'device_online',
  {
    /** A meter's or a DCU's archive id. */
    deviceId: varchar({ length: 32 }).primaryKey(),
    /** `meter` or `dcu`. */
    deviceKind: varchar({ length: 8 }).notNull(),
    gridId: varchar({ length: 32 }).notNull(),
    /** A meter's DCU; null for a direct meter and for a DCU. */
    dcuId: varchar({ length: 32 }),
    /**
     * Whether the device is expected to communicate, and so counted: every DCU, and a meter that is not
     * virtual and whose status is one a report expects to read (REPORTING_METER_STATUSES).
     */
    counted: boolean().notNull(),
    /** Its own status message says online (`device_link.online`); false when never heard from. */
    linkOnline: boolean().notNull().default(false),
    /** When its own status last changed (`device_link.changed_at`). */
    linkChangedAt: time(),
    /** Reachable: its own link online and, behind a DCU, the DCU's too (as the head-end decides). */
    online: boolean().notNull().default(false),
  },
  (t) => [index('device_online_dcu_idx').on(t.dcuId)],
);

/**
 * Counted devices per grid node (its own, not its subtree's), DCU (a meter's), kind and reachability.
 * A trigger on `device_online` appends each statement's change of the counts, so a write never waits
 * on another's counter row; the rollup job adds a key's rows into one (`compactOnlineCounts`). A
 * node's figure is the sum of its subtree's rows, a DCU's the sum of its own: a few hundred rows where
 * counting the devices read every one.
 */
export const onlineCount = pgTable(
  'online_count',
  {
    gridId: varchar({ length: 32 }).notNull(),
    /** The DCU of the meters counted; null for DCUs and direct meters. */
    dcuId: varchar({ length: 32 }),
    deviceKind: varchar({ length: 8 }).notNull(),
    online: boolean().notNull(),
    n: integer().notNull(),
  },
  (t) => [index('online_count_grid_idx').on(t.gridId), index('online_count_dcu_idx').on(t.dcuId)],
);

/** (device, day) keys whose online time a link change touched and the fold has not yet recomputed. */
export const rollupOnlinePending = pgTable(
  'rollup_online_pending',
  {
    deviceId: varchar({ length: 32 }).notNull(),
    day: date({ mode: 'string' }).notNull(),
    markedAt: time().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.day] })],
);

/**
 * One device's online time on one UTC day, partitioned by month (migration 0028) like the meters'
 * daily rollup. Every device has a row for every day from the first one rolled up (`fillOnlineDay`
 * writes the day's rows when it begins, carrying each device's state); a link change recomputes its
 * device's rows from `link_change`. A meter is online while its own link is and, behind a DCU, the
 * DCU's is too. `onlineSeconds` supposes the state after the day's last change lasts to the day's
 * end, which is exact once the day is over; the day in progress takes off what lies after now
 * (`onlineAtEnd`).
 */
export const rollupOnlineDay = pgTable(
  'rollup_online_day',
  {
    deviceId: varchar({ length: 32 }).notNull(),
    day: date({ mode: 'string' }).notNull(),
    deviceKind: varchar({ length: 8 }).notNull(),
    /** The device's grid node and (a meter's) DCU when the row was computed; their rollups count it there. */
    gridId: varchar({ length: 32 }).notNull(),
    dcuId: varchar({ length: 32 }),
    /** Whether it was expected to communicate (`device_online.counted`); only those count in a node or DCU. */
    counted: boolean().notNull(),
    onlineSeconds: integer().notNull(),
    onlineAtEnd: boolean().notNull(),
    /** Its own link's changes that day. */
    changes: integer().notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.deviceId, t.day] }),
    index('rollup_online_day_grid_idx').on(t.gridId, t.day),
    index('rollup_online_day_dcu_idx').on(t.dcuId, t.day),
  ],
);

const onlineFigures = () => ({
  devices: integer().notNull(),
  /** Sum of the devices' `onlineSeconds`. */
  onlineSeconds: bigint({ mode: 'number' }).notNull(),
  /** Devices online at the day's end: today's figure takes off what lies after now for each of them. */
  onlineAtEnd: integer().notNull(),
  /** Sum of the devices' own link changes. */
  changes: integer().notNull(),
});

/** The counted devices of one grid node (its own) and kind for a day; a subtree sums its nodes' rows. */
export const rollupOnlineGridDay = pgTable(
  'rollup_online_grid_day',
  {
    gridId: varchar({ length: 32 }).notNull(),
    day: date({ mode: 'string' }).notNull(),
    deviceKind: varchar({ length: 8 }).notNull(),
    ...onlineFigures(),
  },
  (t) => [primaryKey({ columns: [t.gridId, t.day, t.deviceKind] }), index('rollup_online_grid_day_day_idx').on(t.day)],
);

/** The counted meters of one DCU for a day. */
export const rollupOnlineDcuDay = pgTable(
  'rollup_online_dcu_day',
  {
    dcuId: varchar({ length: 32 }).notNull(),
    day: date({ mode: 'string' }).notNull(),
    ...onlineFigures(),
  },
  (t) => [primaryKey({ columns: [t.dcuId, t.day] })],
);

/** The days whose rows `fillOnlineDay` wrote for every device: the next fill carries on from the last. */
export const rollupOnlineFilled = pgTable('rollup_online_filled', {
  day: date({ mode: 'string' }).primaryKey(),
  filledAt: time().notNull().default(sql`now()`),
});
