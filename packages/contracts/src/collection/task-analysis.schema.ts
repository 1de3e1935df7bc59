import { z } from 'zod';
import { choice } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains } from '../common/list';
import { TASK_STATES } from './task.schema';

export const TASK_ANALYSIS_PAGE = '/dataAnalytic/taskAnalysis';

/** spec §5: the analysis period is limited to a number of days (and never reaches past today). */
export const MAX_ANALYSIS_RANGE_DAYS = 31;

const count = (name: string) => field(z.number().int(), { label: `taskAnalysis.fields.${name}`, widget: 'number' });
const rate = (name: string) => field(z.number().nullable(), { label: `taskAnalysis.fields.${name}`, widget: 'number' });

/**
 * A collection task's KPI over a period. Each occurrence (a scheduled or run-now run) counts once,
 * with what its repairs added: expected is what its meters had to deliver, received what the store
 * held at the last read of its chain.
 */
export const TaskKpiSchema = storedRecord(
  z.object({
    id: IdSchema,
    planName: field(z.string(), { widget: 'text' }),
    planStatus: choice('task', 'planStatus', 'states', TASK_STATES),
    runs: count('runs'),
    devices: count('devices'),
    expected: count('expected'),
    received: count('received'),
    /** received ÷ expected, percent with one decimal; null when nothing was expected. */
    successRate: rate('successRate'),
    /** Meters that, in at least one occurrence, still missed readings or whose last read failed. */
    failedDevices: count('failedDevices'),
  }),
);
export type TaskKpi = z.infer<typeof TaskKpiSchema>;

export const taskAnalysisEntity = defineEntity({
  name: 'taskAnalysis',
  record: TaskKpiSchema,
  pagePath: TASK_ANALYSIS_PAGE,
  columns: [
    { field: 'planName', sortable: true },
    { field: 'planStatus', width: 110 },
    { field: 'runs', sortable: true, width: 100 },
    { field: 'devices', sortable: true, width: 100 },
    { field: 'expected', sortable: true, width: 120 },
    { field: 'received', sortable: true, width: 120 },
    { field: 'successRate', sortable: true, width: 130 },
    { field: 'failedDevices', sortable: true, width: 130 },
  ],
  filters: [contains('planName', 100)],
  form: [],
  detail: ['planName', 'planStatus', 'runs', 'devices', 'expected', 'received', 'successRate', 'failedDevices'],
});
