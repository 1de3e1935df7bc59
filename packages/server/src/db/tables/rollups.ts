import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  timestamp,
  unique,
  varchar,
} from 'drizzle-orm/pg-core';
import { meter } from './archive';

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
 * The daily frozen registers of one grid node's meters (its own, not its subtree's) added up for a day:
 * what the meters' registers read at the midnight that closed it, Wh (varh). Cumulative energy's summary
 * reads a subtree's nodes here instead of every meter's frozen row. Recomputed with the node's
 * rollup_grid_day row, from the meters that row counts.
 */
export const rollupGridRegisters = pgTable(
  'rollup_grid_registers',
  {
    gridId: varchar({ length: 32 }).notNull(),
    day: date({ mode: 'string' }).notNull(),
    /** Meters with frozen registers that day. */
    meters: integer().notNull(),
    activeImport: bigint({ mode: 'number' }),
    activeImportT1: bigint('active_import_t1', { mode: 'number' }),
    activeImportT2: bigint('active_import_t2', { mode: 'number' }),
    activeImportT3: bigint('active_import_t3', { mode: 'number' }),
    activeImportT4: bigint('active_import_t4', { mode: 'number' }),
    activeExport: bigint({ mode: 'number' }),
    reactiveImport: bigint({ mode: 'number' }),
    reactiveExport: bigint({ mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.gridId, t.day] }), index('rollup_grid_registers_day_idx').on(t.day)],
);

/**
 * Each meter's latest clock check (clock_check), kept by the readings writer as checks are stored (a
 * later one replaces it, an earlier one arriving late does not): clock monitoring lists the meters
 * beyond a deviation from here, by the index on the deviation's size, instead of finding every meter's
 * latest row among the raw checks.
 */
export const meterClock = pgTable(
  'meter_clock',
  {
    meterId: varchar({ length: 32 })
      .primaryKey()
      .references(() => meter.id, { onDelete: 'cascade' }),
    checkedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    /** Meter clock − head-end clock, seconds. */
    deviationSeconds: integer().notNull(),
  },
  (t) => [index('meter_clock_deviation_idx').on(sql`abs(${t.deviationSeconds})`)],
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
 * later); null while the meter has never stored one. Every meter has its row from its insert on (a
 * trigger, migration 0033) until it is deleted (cascade), with a copy of what the collection report
 * filters and sorts its silent meters by: the grid node, the serial and whether the meter is expected to
 * report (in service and not virtual, REPORTING_METER_STATUSES), which the meter's own statements keep
 * (triggers, migration 0037). So the report walks the never-read rows in serial order (a partial index)
 * or the days before a date (the day index), and reads only its page's meters, instead of reading every
 * silent meter by its key to learn its serial and node: 19 ms against 3 for 3,000 never-read meters of
 * 100,000.
 */
export const meterLastRead = pgTable(
  'meter_last_read',
  {
    meterId: varchar({ length: 32 })
      .primaryKey()
      .references(() => meter.id, { onDelete: 'cascade' }),
    lastDay: date({ mode: 'string' }),
    gridId: varchar({ length: 32 }).notNull(),
    devAddr: varchar({ length: 50 }).notNull(),
    reporting: boolean().notNull(),
  },
  (t) => [
    index('meter_last_read_never_idx').on(t.devAddr, t.meterId).where(sql`${t.lastDay} is null and ${t.reporting}`),
    index('meter_last_read_day_idx').on(t.lastDay, t.meterId).where(sql`${t.reporting}`),
  ],
);

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

/** What the event rollups hold of one code's events in a day: how many, how many acknowledged, the first and last. */
const eventFigures = () => ({
  code: integer().notNull(),
  /** meter_event.level (0 regular, 1 medium, 2 severe): a code's level is its definition's when each event arrived. */
  level: smallint().notNull(),
  events: integer().notNull(),
  acknowledged: integer().notNull(),
  firstTs: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
  lastTs: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
  updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * One meter's events of a UTC day by code, with its grid node and DCU when the row was computed (as
 * rollup_meter_day's): a meter's timeline counts and a storm's meters. Folded with the meter's day, and
 * again when events are acknowledged. Partitioned by month on `day` (migration 0027), made and dropped
 * with the readings' months.
 */
export const rollupMeterEventDay = pgTable(
  'rollup_meter_event_day',
  {
    meterId: varchar({ length: 32 }).notNull(),
    day: date({ mode: 'string' }).notNull(),
    gridId: varchar({ length: 32 }).notNull(),
    dcuId: varchar({ length: 32 }),
    ...eventFigures(),
  },
  (t) => [
    primaryKey({ columns: [t.meterId, t.day, t.code, t.level] }),
    // The fold recomputes a node's grid rows from its meters' rows; a storm's meters are read by DCU.
    index('rollup_meter_event_day_grid_idx').on(t.gridId, t.day),
    index('rollup_meter_event_day_dcu_idx').on(t.dcuId, t.day),
  ],
);

/**
 * The events of one grid node's own meters behind one DCU (none: direct meters) for a day, by code:
 * the meter events page's counts, chart and storm groups (DCU × code) read these, a few rows per node
 * and day, summed over a subtree at query time as rollup_grid_day's are.
 */
export const rollupGridEventDay = pgTable(
  'rollup_grid_event_day',
  {
    gridId: varchar({ length: 32 }).notNull(),
    dcuId: varchar({ length: 32 }),
    day: date({ mode: 'string' }).notNull(),
    ...eventFigures(),
  },
  (t) => [
    unique('rollup_grid_event_day_key').on(t.gridId, t.day, t.dcuId, t.code, t.level).nullsNotDistinct(),
    index('rollup_grid_event_day_dcu_idx').on(t.dcuId, t.day),
    // A period over the whole scope (the storms, the summary of an administrator): its days only.
    index('rollup_grid_event_day_day_idx').on(t.day),
  ],
);

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
 * reading_monthly (migration 0030), dropped with it past retention.
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
