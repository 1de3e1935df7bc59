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
    /** Meters expected to report with at least one interval that day (the load profile page's partial ones are these less the complete). */
    metersRead: integer().notNull().default(0),
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
 * The billed energy of a month from its frozen registers (reading_monthly): each register of the month
 * minus the month before's, Wh (varh for reactive); null while either freeze is missing.
 */
const billedEnergy = () => ({
  energy: bigint({ mode: 'number' }),
  energyT1: bigint('energy_t1', { mode: 'number' }),
  energyT2: bigint('energy_t2', { mode: 'number' }),
  energyT3: bigint('energy_t3', { mode: 'number' }),
  energyT4: bigint('energy_t4', { mode: 'number' }),
  energyExport: bigint({ mode: 'number' }),
  energyReactiveImport: bigint({ mode: 'number' }),
  energyReactiveExport: bigint({ mode: 'number' }),
});

/**
 * One meter's month (`month` its first day): its days summed from rollup_meter_day, and its billing
 * freeze (reading_monthly), so a month's figures over a scope read one row per meter instead of a
 * month of day rows each (100,000 meters over three months: 0.6 s against 73 s, measured on the
 * busy shared machine). Recomputed by the fold with the days it touches; partitioned by year like
 * reading_monthly (migration 0026), dropped with it past retention.
 */
export const rollupMeterMonth = pgTable(
  'rollup_meter_month',
  {
    meterId: varchar({ length: 32 }).notNull(),
    month: date({ mode: 'string' }).notNull(),
    /** The meter's grid node and DCU when the row was computed; its grid month row counts it there. */
    gridId: varchar({ length: 32 }).notNull(),
    dcuId: varchar({ length: 32 }),
    /** Sum of the month's known daily consumption, Wh; null when no day is known. */
    consumption: bigint({ mode: 'number' }),
    /** Days of the month whose consumption is known. */
    daysKnown: integer().notNull().default(0),
    intervals: integer().notNull().default(0),
    /** The highest interval demand of the month, W. */
    demandMax: integer(),
    /** Whether the month's billing freeze is stored. */
    frozen: boolean().notNull().default(false),
    ...billedEnergy(),
    /** The frozen maximum demand register of the month, W. */
    maxDemand: integer(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.meterId, t.month] }), index('rollup_meter_month_grid_idx').on(t.gridId, t.month)],
);

/** A grid node's own meters for a month, from their month rows; a subtree sums its nodes' rows at query time. */
export const rollupGridMonth = pgTable(
  'rollup_grid_month',
  {
    gridId: varchar({ length: 32 }).notNull(),
    month: date({ mode: 'string' }).notNull(),
    /** Meters with a month row. */
    meters: integer().notNull(),
    consumption: bigint({ mode: 'number' }).notNull(),
    metersWithConsumption: integer().notNull(),
    /** Meters whose billing freeze of the month is stored. */
    frozen: integer().notNull(),
    ...billedEnergy(),
    maxDemand: integer(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.gridId, t.month] }), index('rollup_grid_month_month_idx').on(t.month)],
);
