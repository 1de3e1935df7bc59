import { z } from 'zod';
import { EXPORT_FORMATS } from '../archive/archive-api';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { pageOf } from '../common/paging';
import { ExistedSchema } from '../common/validation';
import { PLAN_RES } from '../operations/plan.api';
import { TASK_STATES, TaskSchema, taskEntity } from './task.schema';

const TaskRefSchema = z.strictObject({ planid: IdSchema });
const TaskStateAnswerSchema = z.object({
  planStatus: z.enum(TASK_STATES),
  enabled: z.boolean(),
  nextRunAt: z.string().nullable(),
});

const VIEWERS = [taskEntity.pagePath, PLAN_RES.taskView, PLAN_RES.taskEdit];

/**
 * taskMGT beyond the plan calls (`/plan/createplan`, `updateplan`, `deleteplan` make, change and
 * delete a collection task): its list, one task, its export and its state changes. Each change is
 * answered with the task's state and next run.
 */
export const taskApi = {
  list: defineOperation({
    path: '/task/list',
    access: needs(taskEntity.pagePath),
    tag: 'task',
    summary:
      "task: the collection tasks the caller's grid scope covers, filtered, sorted and paged; deleted ones only when asked for by state",
    request: taskEntity.listQuery,
    response: pageOf(TaskSchema),
  }),
  detail: defineOperation({
    path: '/task/detail',
    access: needs(...VIEWERS),
    tag: 'task',
    summary: "task: one collection task; 404 outside the caller's grid scope",
    request: z.strictObject({ id: IdSchema }),
    response: TaskSchema,
  }),
  check: defineOperation({
    path: '/task/check',
    access: needs(PLAN_RES.taskAdd, PLAN_RES.taskEdit),
    tag: 'task',
    summary: 'task: whether a task name is taken by a task not deleted (another than `id`)',
    request: z.strictObject({ field: z.literal('planName'), value: z.string().max(100), id: IdSchema.optional() }),
    response: ExistedSchema,
  }),
  export: defineOperation({
    path: '/task/export',
    access: needs(PLAN_RES.taskExport),
    tag: 'task',
    summary: 'task: the list as filtered, as a spreadsheet or PDF',
    request: taskEntity.listQuery.omit({ curPage: true, pageSize: true }).extend({
      columns: z.array(z.string()).max(30, 'tooLong').optional(),
      format: z.enum(EXPORT_FORMATS).default('xlsx'),
    }),
    response: z.unknown(),
  }),
  enable: defineOperation({
    path: '/task/enable',
    access: needs(PLAN_RES.taskEnable),
    tag: 'task',
    summary: 'task: enables a task; its next run is its next occurrence not yet executed',
    request: TaskRefSchema,
    response: TaskStateAnswerSchema,
    audit: 'update',
  }),
  disable: defineOperation({
    path: '/task/disable',
    access: needs(PLAN_RES.taskEnable),
    tag: 'task',
    summary: 'task: disables a task (it may then be modified); no run starts until it is enabled',
    request: TaskRefSchema,
    response: TaskStateAnswerSchema,
    audit: 'update',
  }),
  pause: defineOperation({
    path: '/task/pause',
    access: needs(PLAN_RES.taskPause),
    tag: 'task',
    summary: 'task: pauses a waiting or executing task; no run starts until it is resumed',
    request: TaskRefSchema,
    response: TaskStateAnswerSchema,
    audit: 'update',
  }),
  resume: defineOperation({
    path: '/task/resume',
    access: needs(PLAN_RES.taskPause),
    tag: 'task',
    summary: 'task: resumes a paused task at its next occurrence not yet executed',
    request: TaskRefSchema,
    response: TaskStateAnswerSchema,
    audit: 'update',
  }),
};
