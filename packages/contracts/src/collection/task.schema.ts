import { z } from 'zod';
import { choice } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals, flag } from '../common/list';
import { PlanDevParamsSchema } from '../operations/plan.api';
import { COLLECT_ITEM_LABELS } from './template.schema';

/** Spec §4 states of a collection task (a one-shot plan's approval states never apply). */
export const TASK_STATES = ['waiting', 'executing', 'finished', 'paused', 'deleted'] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const TASK_UNITS = ['minute', 'hour', 'day', 'week', 'month'] as const;
export const REPAIR_UNITS = ['minute', 'hour', 'day'] as const;

const text = (name: string) => field(z.string(), { label: `task.fields.${name}`, widget: 'text' });
const count = (name: string) => field(z.number(), { label: `task.fields.${name}`, widget: 'number' });
const moment = (name: string) => field(z.string().nullable(), { label: `task.fields.${name}`, widget: 'datetime' });

/**
 * A collection task as taskMGT lists and shows it: the plan (spec §3) with its schedule, state and
 * progress flattened into fields, so the list, its filters, sorting and export come from one declaration.
 */
export const TaskSchema = storedRecord(
  z.object({
    id: IdSchema,
    planName: text('planName'),
    planTempName: text('planTempName'),
    templateId: IdSchema.nullable(),
    planStatus: choice('task', 'planStatus', 'states', TASK_STATES),
    enabled: field(z.boolean(), { widget: 'switch' }),
    nextRunAt: moment('nextRunAt'),
    executedCount: count('executedCount'),
    count: count('count'),
    starttime: moment('starttime'),
    freq: count('freq'),
    unit: choice('task', 'unit', 'units', TASK_UNITS),
    repairFreq: count('repairFreq'),
    repairUnit: choice('task', 'repairUnit', 'repairUnits', REPAIR_UNITS),
    repairCount: count('repairCount'),
    pri: count('pri'),
    timeout: count('timeout'),
    concurrent: count('concurrent'),
    itemType: choice('task', 'itemType', 'itemTypes', [0, 1]),
    devList: field(z.array(z.string()), { widget: 'textarea' }),
    devParams: field(PlanDevParamsSchema, { widget: 'group' }),
    items: field(z.array(z.string()), { widget: 'text', valueLabels: COLLECT_ITEM_LABELS }),
    orders: z.array(z.record(z.string(), z.unknown())),
    deviceCount: count('deviceCount'),
    createdBy: text('createdBy'),
    createTime: moment('createTime'),
    updateTime: moment('updateTime'),
  }),
);
export type Task = z.infer<typeof TaskSchema>;

export const taskEntity = defineEntity({
  name: 'task',
  record: TaskSchema,
  pagePath: '/serviceRequest/scheduledTask/taskMGT',
  columns: [
    { field: 'planName', sortable: true },
    { field: 'planTempName', width: 160 },
    { field: 'planStatus', sortable: true, width: 110 },
    { field: 'enabled', width: 90 },
    { field: 'nextRunAt', sortable: true, width: 180 },
    { field: 'executedCount', width: 100 },
    { field: 'count', width: 100 },
    { field: 'pri', sortable: true, width: 90 },
    { field: 'deviceCount', width: 100 },
    { field: 'createTime', sortable: true, width: 180 },
  ],
  filters: [
    contains('planName', 100),
    contains('planTempName', 100),
    equals('planStatus', z.enum(TASK_STATES, 'invalidValue')),
    flag('enabled'),
  ],
  form: [],
  detail: [
    'planName',
    'planTempName',
    'planStatus',
    'enabled',
    'nextRunAt',
    'executedCount',
    'count',
    'starttime',
    'freq',
    'unit',
    'repairFreq',
    'repairUnit',
    'repairCount',
    'pri',
    'timeout',
    'concurrent',
    'itemType',
    'devList',
    'devParams',
    'items',
    'deviceCount',
    'createdBy',
    'createTime',
    'updateTime',
  ],
});
export type TaskListQuery = z.infer<typeof taskEntity.listQuery>;
