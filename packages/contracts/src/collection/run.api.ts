import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { PageQuerySchema, pageOf } from '../common/paging';
import { ResultCodeSchema } from '../device/protocol';
import { PLAN_RES } from '../operations/plan.api';

const TASK_MGT = '/serviceRequest/scheduledTask/taskMGT';

export const RUN_RES = {
  runNow: `${TASK_MGT}/runNow`,
  gapCollect: `${TASK_MGT}/gapCollect`,
  detail: `${TASK_MGT}/view/detail`,
} as const;

/** history: what earlier runs collected before the task existed, recorded as its runs (the demo's history). */
export const RUN_KINDS = ['scheduled', 'repair', 'manual', 'gap', 'history'] as const;
export const RUN_STATUSES = ['pending', 'queued', 'running', 'finished', 'cancelled'] as const;
export const GAP_TARGETS = ['meter', 'dcu', 'grid'] as const;

/** A gap re-collection spans at most this many days (a device answers 31 days of intervals in one read). */
export const MAX_GAP_DAYS = 31;

/** One run of a collection task: what it covered, what it expected and what arrived. */
export const CollectionRunSchema = z.object({
  runId: IdSchema,
  planid: IdSchema.nullable(),
  kind: z.enum(RUN_KINDS),
  status: z.enum(RUN_STATUSES),
  occurrence: z.number().int().nullable(),
  missed: z.number().int(),
  parentRunId: IdSchema.nullable(),
  dueAt: z.string(),
  periodFrom: z.string(),
  periodTo: z.string(),
  items: z.array(z.object({ cgcode: z.string(), obis: z.string() })),
  devices: z.number().int(),
  expected: z.number().int(),
  received: z.number().int(),
  /** received ÷ expected, percent with one decimal; null when nothing is expected. */
  successRate: z.number().nullable(),
  /** Devices read, by result code. */
  byCode: z.record(z.string(), z.number().int()),
  /** Reads sent and the ranges of capture times they asked for. */
  requests: z.number().int(),
  ranges: z.number().int(),
  requestedBy: z.string(),
  jobId: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type CollectionRun = z.infer<typeof CollectionRunSchema>;

export const RunDeviceSchema = z.object({
  meterId: IdSchema,
  devAddr: z.string(),
  dcuNo: z.string().nullable(),
  gridId: IdSchema,
  expected: z.number().int(),
  received: z.number().int(),
  /** Null when nothing had to be read (a repair of a complete meter) or while its read is outstanding. */
  resultCode: ResultCodeSchema.nullable(),
  requested: z.boolean(),
  items: z.array(z.object({ cgcode: z.string(), expected: z.number().int(), received: z.number().int() })),
});
export type RunDevice = z.infer<typeof RunDeviceSchema>;

export const RunStartedSchema = z.object({
  runId: IdSchema,
  /** Follow the run on `progress/{jobId}` (RunProgress). */
  jobId: z.string(),
});

/** What `progress/{jobId}` carries for a run: reads done of those sent, readings received of those expected. */
export const RunProgressSchema = z.object({
  runId: IdSchema,
  done: z.number().int(),
  total: z.number().int(),
  expected: z.number().int(),
  received: z.number().int(),
});
export type RunProgress = z.infer<typeof RunProgressSchema>;

const isoTime = z.string().refine((s) => Number.isFinite(Date.parse(s)), 'invalidValue');

export const GapCollectSchema = z.strictObject({
  targetType: z.enum(GAP_TARGETS, 'invalidValue'),
  /** A meter's serial, a DCU's number or a grid node's id. */
  target: z.string().trim().min(1, 'mandatory').max(50, 'tooLong'),
  startTime: isoTime,
  endTime: isoTime,
  /** Collection items (cgName); the load profile and the daily frozen values unless given. */
  items: z
    .array(z.string().trim().min(1).max(50, 'tooLong'))
    .max(10, 'tooLong')
    .default(['loadProfile', 'dailyFrozen']),
});
export type GapCollect = z.infer<typeof GapCollectSchema>;

const VIEWERS = [PLAN_RES.taskView, RUN_RES.detail];

export const runApi = {
  runnow: defineOperation({
    path: '/plan/runnow',
    access: needs(RUN_RES.runNow),
    tag: 'plan',
    summary:
      'collection task: runs it now, reading the period its latest occurrence covers (not counted as an execution); follow it on progress/{jobId}',
    request: z.strictObject({ planid: IdSchema }),
    response: RunStartedSchema,
    audit: 'other',
  }),
  runs: defineOperation({
    path: '/plan/runs',
    access: needs(...VIEWERS),
    tag: 'plan',
    summary:
      "collection task: its runs, newest first, with expected and received readings and the devices' result codes",
    request: PageQuerySchema.extend({ planid: IdSchema }),
    response: pageOf(CollectionRunSchema),
  }),
  run: defineOperation({
    path: '/plan/run',
    access: needs(...VIEWERS, RUN_RES.gapCollect),
    tag: 'plan',
    summary: 'collection run: one run with its counts',
    request: z.strictObject({ runId: IdSchema }),
    response: CollectionRunSchema,
  }),
  runDevices: defineOperation({
    path: '/plan/rundevices',
    access: needs(...VIEWERS, RUN_RES.gapCollect),
    tag: 'plan',
    summary: "collection run: its devices in the caller's scope with their result code and the items read",
    request: PageQuerySchema.extend({ runId: IdSchema, failedOnly: z.boolean().default(false) }),
    response: pageOf(RunDeviceSchema),
  }),
  gapCollect: defineOperation({
    path: '/plan/gapcollect',
    access: needs(RUN_RES.gapCollect),
    tag: 'plan',
    summary: `gap re-collection: re-reads only the readings the store misses for a meter, a DCU's meters or a grid node's meters over a period (at most ${MAX_GAP_DAYS} days, nothing after today)`,
    request: GapCollectSchema,
    response: RunStartedSchema,
    audit: 'other',
  }),
};
