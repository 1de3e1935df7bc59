import { bigint, boolean, date, index, integer, pgTable, primaryKey, timestamp, varchar } from 'drizzle-orm/pg-core';

/*
 * Rollups of the readings store (readings/rollups.ts), so a dashboard card or a report reads one row
 * per meter or grid node per day instead of scanning raw months. Each row is recomputed from the raw
 * rows of its key, never added to, so folding a key twice is harmless.
 */

/** (meter, day) keys a write stored rows for and the rollups have not yet folded in. */
export const rollupPending = pgTable(
  'rollup_pending',
  {
    meterId: varchar({ length: 32 }).notNull(),
    day: date({ mode: 'string' }).notNull(),
    markedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.meterId, t.day] })],
);

const eventCounts = () => ({
  eventsRegular: integer().notNull().default(0),
  eventsMedium: integer().notNull().default(0),
  eventsSevere: integer().notNull().default(0),
});

/** One meter's day (UTC): consumption from the daily frozen registers, demand and intervals from its profile. */
export const rollupMeterDay = pgTable(
  'rollup_meter_day',
  {
    meterId: varchar({ length: 32 }).notNull(),
    day: date({ mode: 'string' }).notNull(),
    /** The meter's grid node when the row was computed; its grid rollup counts it there. */
    gridId: varchar({ length: 32 }).notNull(),
    /** The meter's DCU when the row was computed (none for a direct meter); its DCU rollup counts it there. */
    dcuId: varchar({ length: 32 }),
    /** Active import of the day, Wh: daily(day) − daily(day − 1); null while either is missing. */
    consumption: bigint({ mode: 'number' }),
    /** Load profile intervals received for the day (96 when complete). */
    intervals: integer().notNull().default(0),
    /**
     * Whether the meter was expected to report when the row was computed (REPORTING_METER_STATUSES,
     * not virtual): only such meters' intervals count in the grid and DCU rows' read success, as only
     * they count among the meters a report expects.
     */
    reporting: boolean().notNull().default(true),
    /** Interval average active power over the day's intervals, W. */
    demandMin: integer(),
    demandMax: integer(),
    demandAvg: integer(),
    ...eventCounts(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.meterId, t.day] }), index('rollup_meter_day_grid_idx').on(t.gridId, t.day)],
);

/**
 * The meters of one grid node (its own, not its subtree's) for a day. A subtree's figure is the sum of
 * its nodes' rows at query time: a grid tree holds thousands of nodes, not millions, and a node moved
 * in the tree or a meter moved to another node leaves no ancestor's row wrong.
 */
export const rollupGridDay = pgTable(
  'rollup_grid_day',
  {
    gridId: varchar({ length: 32 }).notNull(),
    day: date({ mode: 'string' }).notNull(),
    /** Meters with a rollup row that day. */
    meters: integer().notNull(),
    /** Sum of the meters' consumption that day (those with one), Wh. */
    consumption: bigint({ mode: 'number' }).notNull(),
    /** Meters whose consumption is known that day. */
    metersWithConsumption: integer().notNull(),
    /** Intervals received that day by the meters expected to report (rollup_meter_day.reporting). */
    intervals: bigint({ mode: 'number' }).notNull(),
    /** Meters expected to report whose day holds all its intervals (INTERVALS_PER_DAY). */
    metersComplete: integer().notNull().default(0),
    /** The highest of its meters' maximum demand, W. */
    demandMax: integer(),
    ...eventCounts(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.gridId, t.day] }), index('rollup_grid_day_day_idx').on(t.day)],
);

/**
 * The meters of one DCU for a day, for the collection report's DCU view: the collection figures of
 * rollup_grid_day, keyed by the DCU the meters hung off when their rows were computed.
 */
export const rollupDcuDay = pgTable(
  'rollup_dcu_day',
  {
    dcuId: varchar({ length: 32 }).notNull(),
    day: date({ mode: 'string' }).notNull(),
    /** Meters with a rollup row that day. */
    meters: integer().notNull(),
    /** As rollup_grid_day's: of the meters expected to report. */
    intervals: bigint({ mode: 'number' }).notNull(),
    metersComplete: integer().notNull(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.dcuId, t.day] })],
);

/**
 * Each meter's last day with load profile intervals, kept by the rollup fold (a day only moves it
 * later): the collection report finds never-read and stopped meters by one join over the archive
 * instead of a probe of rollup_meter_day per meter.
 */
export const meterLastRead = pgTable('meter_last_read', {
  meterId: varchar({ length: 32 }).primaryKey(),
  lastDay: date({ mode: 'string' }).notNull(),
});

/**
 * The archive counted per grid node (its own records, not its subtree's) and facet: meters by status,
 * consumers by type, modules by device type, DCUs. Statement triggers on the archive tables
 * (migration 0026) append a row per changed count, so a write never waits on another's counter row;
 * the rollup job adds a key's rows into one (`compactArchiveCounts`). A figure is the sum of a
 * subtree's rows: a dashboard card reads a few hundred rows where counting the archive read millions.
 */
export const archiveCount = pgTable(
  'archive_count',
  {
    gridId: varchar({ length: 32 }).notNull(),
    /** What is counted (ARCHIVE_FACETS in db/archive-counts.ts). */
    facet: varchar({ length: 24 }).notNull(),
    /** The counted field's value, as text. */
    value: varchar({ length: 24 }).notNull(),
    n: integer().notNull(),
  },
  (t) => [index('archive_count_grid_idx').on(t.gridId, t.facet)],
);
