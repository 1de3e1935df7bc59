import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { PageQuerySchema, pageOf } from '../common/paging';
import { ResultCodeSchema } from '../device/protocol';
import { MAX_ANALYSIS_RANGE_DAYS, TASK_ANALYSIS_PAGE, TaskKpiSchema, taskAnalysisEntity } from './task-analysis.schema';

export const TASK_ANALYSIS_RES = {
  list: TASK_ANALYSIS_PAGE,
  detail: `${TASK_ANALYSIS_PAGE}/detail`,
  export: `${TASK_ANALYSIS_PAGE}/export`,
} as const;

const moment = z.iso.datetime({ offset: true, message: 'invalidValue' });

/** The period analysed: occurrences due within it, both ends included. */
const PeriodShape = {
  startTime: moment.describe('ISO 8601 with offset; the first moment of the period'),
  endTime: moment.describe(
    `ISO 8601 with offset; at most ${MAX_ANALYSIS_RANGE_DAYS} days after startTime and not after today 23:59:59 (in its offset)`,
  ),
};

export const TaskAnalysisQuerySchema = taskAnalysisEntity.listQuery.extend(PeriodShape);
export type TaskAnalysisQuery = z.infer<typeof TaskAnalysisQuerySchema>;

const sortable = <const S extends readonly [string, ...string[]]>(fields: S) => ({
  sortField: z.enum(fields, 'invalidValue').optional().describe('A sortable column; others are refused'),
  sortOrder: z.enum(['ascend', 'descend'], 'invalidValue').optional(),
});

/** One occurrence of the task with what its repairs added. */
export const RunKpiSchema = z.object({
  runId: IdSchema,
  kind: z.enum(['scheduled', 'manual', 'history']),
  status: z.enum(['queued', 'running', 'finished', 'cancelled']),
  dueAt: z.string(),
  devices: z.number().int(),
  expected: z.number().int(),
  received: z.number().int(),
  successRate: z.number().nullable(),
  /** Repairs of the occurrence that have read (running or finished). */
  repairs: z.number().int(),
  /** Of the readings received, the percent the repairs brought (one decimal); null when none was received. */
  repairedShare: z.number().nullable(),
  failedDevices: z.number().int(),
});
export type RunKpi = z.infer<typeof RunKpiSchema>;

export const RUN_KPI_SORTS = [
  'dueAt',
  'expected',
  'received',
  'successRate',
  'repairedShare',
  'failedDevices',
] as const;

/** The task's meters behind one DCU (`dcuNo` null: meters read without a DCU). */
export const DcuKpiSchema = z.object({
  dcuNo: z.string().nullable(),
  devices: z.number().int(),
  expected: z.number().int(),
  received: z.number().int(),
  successRate: z.number().nullable(),
  failedDevices: z.number().int(),
});
export type DcuKpi = z.infer<typeof DcuKpiSchema>;

export const DCU_KPI_SORTS = ['dcuNo', 'devices', 'expected', 'received', 'successRate', 'failedDevices'] as const;

export const TaskAnalysisDetailSchema = z.object({
  task: TaskKpiSchema,
  /** Meters by the result code of their last answered read in each occurrence, most frequent first. */
  byCode: z.array(z.object({ code: ResultCodeSchema, devices: z.number().int() })),
});
export type TaskAnalysisDetail = z.infer<typeof TaskAnalysisDetailSchema>;

const TaskPeriodSchema = z.strictObject({ planid: IdSchema, ...PeriodShape });

/**
 * Task analysis (spec §2 data analytics): the read success of the collection tasks the caller's grid
 * scope covers (the taskMGT rule: a task outside it answers 404), over a period. Figures of the
 * detail count only the meters within the caller's grid scope.
 */
export const taskAnalysisApi = {
  list: defineOperation({
    path: '/taskanalysis/list',
    access: needs(TASK_ANALYSIS_RES.list),
    tag: 'taskanalysis',
    summary:
      'task analysis: collection tasks with their runs, meters, expected and received readings, success rate and failed meters over a period; worst success rate first unless sorted',
    request: TaskAnalysisQuerySchema,
    response: pageOf(TaskKpiSchema),
  }),
  detail: defineOperation({
    path: '/taskanalysis/detail',
    access: needs(TASK_ANALYSIS_RES.detail),
    tag: 'taskanalysis',
    summary: "task analysis: one task's KPI over a period and its meters by result code",
    request: TaskPeriodSchema,
    response: TaskAnalysisDetailSchema,
  }),
  runs: defineOperation({
    path: '/taskanalysis/runs',
    access: needs(TASK_ANALYSIS_RES.detail),
    tag: 'taskanalysis',
    summary: "task analysis: the task's occurrences in the period with what their repairs added; newest first",
    request: TaskPeriodSchema.extend({ ...PageQuerySchema.shape, ...sortable(RUN_KPI_SORTS) }),
    response: pageOf(RunKpiSchema),
  }),
  dcus: defineOperation({
    path: '/taskanalysis/dcus',
    access: needs(TASK_ANALYSIS_RES.detail),
    tag: 'taskanalysis',
    summary: "task analysis: the task's success by DCU over the period; worst success rate first unless sorted",
    request: TaskPeriodSchema.extend({ ...PageQuerySchema.shape, ...sortable(DCU_KPI_SORTS) }),
    response: pageOf(DcuKpiSchema),
  }),
  export: defineOperation({
    path: '/taskanalysis/export',
    access: needs(TASK_ANALYSIS_RES.export),
    tag: 'taskanalysis',
    summary: 'task analysis: the list as filtered and sorted, as a spreadsheet; the answer is the file',
    request: TaskAnalysisQuerySchema.omit({ curPage: true, pageSize: true }),
    response: z.unknown(),
  }),
};
