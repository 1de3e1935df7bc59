import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  timestamp,
  varchar,
} from 'drizzle-orm/pg-core';
import { createdAt, id, ref } from './columns';

const time = () => timestamp({ withTimezone: true, mode: 'date' });

/**
 * One run of a collection task (or a gap re-collection an operator asked for). The scheduler records a
 * run in the transaction that advances its task, so an occurrence is run once whatever restarts; the
 * run's job expands the device set once into `collection_run_device` and queues the reads.
 *
 * kind: scheduled (an occurrence of the crontab), repair (re-reads the gaps a run left, repairConf),
 * manual (run now), gap (an operator's gap re-collection of a meter, DCU or grid node).
 * status: pending (a repair waiting for its time, or for the run before it), queued (its job is sent),
 * running, finished, cancelled.
 */
export const collectionRun = pgTable(
  'collection_run',
  {
    id: id(),
    /** The task; null for a gap re-collection asked for by hand. */
    planId: ref(),
    kind: varchar({ length: 10 }).notNull(),
    status: varchar({ length: 10 }).notNull(),
    /** The occurrence's index in the crontab (0 first); null for run now and gap re-collection. */
    occurrence: integer(),
    /** Occurrences skipped because the server was down when they fell due (only the latest runs). */
    missed: integer().notNull().default(0),
    /** The run whose gaps a repair re-reads. */
    parentRunId: ref(),
    /** When it is due (a repair: occurrence + k × repairFreq). */
    dueAt: time().notNull(),
    /** The readings it covers: interval ends in (periodFrom, periodTo]. */
    periodFrom: time().notNull(),
    periodTo: time().notNull(),
    /** The orders it reads: [{cgcode, obis}]. */
    items: jsonb().notNull(),
    /** What it reads from, for a gap re-collection: {kind: meter|dcu|grid, key}; a task's run reads the task's devs. */
    target: jsonb(),
    priority: smallint().notNull().default(5),
    timeoutSeconds: integer().notNull().default(30),
    concurrency: smallint().notNull().default(4),
    devices: integer().notNull().default(0),
    expected: integer().notNull().default(0),
    received: integer().notNull().default(0),
    /** Devices by result code. */
    byCode: jsonb().notNull().default(sql`'{}'::jsonb`),
    /** Reads (commands) and interval ranges sent. */
    requests: integer().notNull().default(0),
    ranges: integer().notNull().default(0),
    requestedBy: varchar({ length: 50 }).notNull(),
    jobId: varchar({ length: 36 }),
    startedAt: time(),
    finishedAt: time(),
    createTime: createdAt(),
  },
  (t) => [
    index('collection_run_plan_idx').on(t.planId, t.dueAt),
    index('collection_run_open_idx').on(t.dueAt).where(sql`${t.status} in ('pending', 'queued')`),
    index('collection_run_parent_idx').on(t.parentRunId),
  ],
);

/** A run's devices, expanded once when it starts: what was expected of each, what arrived, how it ended. */
export const collectionRunDevice = pgTable(
  'collection_run_device',
  {
    runId: varchar({ length: 32 }).notNull(),
    meterId: varchar({ length: 32 }).notNull(),
    devAddr: varchar({ length: 50 }).notNull(),
    dcuId: ref(),
    dcuNo: varchar({ length: 50 }),
    gridId: varchar({ length: 32 }).notNull(),
    expected: integer().notNull().default(0),
    received: integer().notNull().default(0),
    /** The read's result code; null while it is outstanding (or when nothing had to be read). */
    resultCode: varchar({ length: 2 }),
    /** Per item: {cgcode, expected, received, ranges}. */
    items: jsonb().notNull().default(sql`'[]'::jsonb`),
    /** Whether a read was sent (a repair sends none to a meter that misses nothing). */
    requested: boolean().notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.runId, t.meterId] }), index('collection_run_device_dcu_idx').on(t.runId, t.dcuId)],
);

/** Meters of an occurrence summed (task analysis's figures), as both KPI tables keep them. */
const kpiFigures = () => ({
  devices: integer().notNull(),
  expected: bigint({ mode: 'number' }).notNull(),
  received: bigint({ mode: 'number' }).notNull(),
  /** Received by the occurrence's own run, before any repair. */
  firstReceived: bigint({ mode: 'number' }).notNull(),
  failed: integer().notNull(),
});

/**
 * What an occurrence's chain (a scheduled or run-now run and its repairs) made of its meters, summed
 * per grid node, DCU and last result code: written when a run of the chain finishes, so task analysis
 * reads a few rows per occurrence instead of every meter of every run (collection_run_device) of a
 * month. `failed` counts meters short of readings or whose last answer was not a success.
 */
export const collectionRunKpi = pgTable(
  'collection_run_kpi',
  {
    /** The occurrence: the scheduled or run-now run its repairs hang off. */
    runId: varchar({ length: 32 }).notNull(),
    gridId: varchar({ length: 32 }).notNull(),
    dcuNo: varchar({ length: 50 }),
    /** The last answered result code of the meters counted here; null: none answered. */
    code: varchar({ length: 2 }),
    ...kpiFigures(),
  },
  (t) => [index('collection_run_kpi_run_idx').on(t.runId)],
);

/**
 * collection_run_kpi summed per occurrence and last result code, over every grid node and DCU: what task
 * analysis reads for a caller who sees the whole archive, a few rows per occurrence instead of one per
 * DCU (600 per day's run at 100,000 meters). Written with the occurrence's collection_run_kpi rows.
 */
export const collectionRunCodeKpi = pgTable(
  'collection_run_code_kpi',
  {
    runId: varchar({ length: 32 }).notNull(),
    code: varchar({ length: 2 }),
    ...kpiFigures(),
  },
  (t) => [index('collection_run_code_kpi_run_idx').on(t.runId)],
);

/**
 * collection_run_kpi summed per occurrence and DCU, over every grid node and code: a task's DCUs for a
 * caller who sees the whole archive, one row per DCU and occurrence instead of one per DCU, grid node and
 * code (a month of a 100,000-meter task's daily runs: 18,000 rows to group instead of twice as many, grouped
 * twice). Written with the occurrence's collection_run_kpi rows.
 */
export const collectionRunDcuKpi = pgTable(
  'collection_run_dcu_kpi',
  {
    runId: varchar({ length: 32 }).notNull(),
    dcuNo: varchar({ length: 50 }),
    ...kpiFigures(),
  },
  (t) => [index('collection_run_dcu_kpi_run_idx').on(t.runId)],
);
