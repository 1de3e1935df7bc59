import { z } from 'zod';
import { choice } from '../archive/enums';
import { field } from '../common/entity';
import { IdSchema } from '../common/ids';
import { nameText } from '../common/validation';
import { type PlanCreateSchema, PlanDevParamsSchema } from '../operations/plan.api';
import { MIN_TASK_PERIOD_MINUTES, nextDailyStart, periodMinutes, repairSpanMinutes } from './schedule';
import { REPAIR_UNITS, TASK_UNITS, type Task } from './task.schema';
import { type Template, templateOrders } from './template.schema';

const int = (min: number, max: number) =>
  z.number('mandatory').int('wholeNumber').min(min, 'outOfRange').max(max, 'outOfRange');
const num = <T extends z.ZodType>(name: string, schema: T, help?: string) =>
  field(schema, { label: `task.fields.${name}`, widget: 'number', ...(help ? { help } : {}) });

/**
 * The taskMGT form: a plan (spec §3) as an operator fills it in — the template picked (its orders are
 * copied), devices as typed serials or filters, the schedule with its start as a date and time. The
 * form's fields, labels and per-field rules come from here; `taskPlanBody` makes the createplan body.
 */
export const TaskFormSchema = z.object({
  planName: field(nameText(100), { label: 'task.fields.planName', widget: 'text' }),
  templateId: field(IdSchema, { label: 'task.fields.templateId', widget: 'select', lookup: 'templates' }),
  itemType: choice('task', 'itemType', 'itemTypes', [0, 1]),
  devList: field(z.string().max(200_000, 'tooLong').default(''), {
    label: 'task.fields.devList',
    widget: 'textarea',
    help: 'task.help.devList',
  }),
  devParams: field(PlanDevParamsSchema.default({}), { label: 'task.fields.devParams', widget: 'group' }),
  starttime: field(z.string('mandatory').min(1, 'mandatory'), { label: 'task.fields.starttime', widget: 'datetime' }),
  freq: num('freq', int(0, 1000)),
  unit: choice('task', 'unit', 'units', TASK_UNITS),
  count: num('count', int(1, 100_000)),
  repairFreq: num('repairFreq', int(0, 1440), 'task.help.repair'),
  repairUnit: choice('task', 'repairUnit', 'repairUnits', REPAIR_UNITS),
  repairCount: num('repairCount', int(0, 100)),
  pri: num('pri', int(1, 9)),
  timeout: num('timeout', int(5, 3600)),
  concurrent: num('concurrent', int(1, 64)),
});
export type TaskForm = z.infer<typeof TaskFormSchema>;

/** The form's sections: the field each opens → its title. */
export const TASK_FORM_SECTIONS = {
  planName: 'task.sections.template',
  itemType: 'task.sections.devices',
  starttime: 'task.sections.schedule',
  repairFreq: 'task.sections.repair',
  pri: 'task.sections.execution',
} as const;

/** What a new task starts with: a daily task run for a month, repaired four times an hour apart. */
export const TASK_FORM_DEFAULTS = {
  itemType: 0,
  devList: '',
  devParams: {},
  freq: 1,
  unit: 'day',
  count: 30,
  repairFreq: 1,
  repairUnit: 'hour',
  repairCount: 4,
  pri: 3,
  timeout: 30,
  concurrent: 4,
} as const satisfies Partial<TaskForm>;

/** A new task's form: the defaults, starting the coming day's 00:05 UTC as a daily task should. */
export const newTaskFormValues = (now: Date) => ({
  ...TASK_FORM_DEFAULTS,
  starttime: nextDailyStart(now).toISOString(),
});

/** Spec §5: serials separated by Chinese or English commas, spaces or line breaks. */
export const splitDevices = (text: string): string[] => [
  ...new Set(
    text
      .split(/[,，;；\s]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

/**
 * The spec §5 schedule rules the form checks before it asks the server (which checks them again):
 * start later than now, frequency not under 5 minutes, compensation not above the period. Each
 * answer names its form field and message key.
 */
export function taskFormIssues(
  values: Pick<TaskForm, 'starttime' | 'freq' | 'unit' | 'count' | 'repairFreq' | 'repairUnit' | 'repairCount'>,
  now: Date,
  opts: { startChanged: boolean } = { startChanged: true },
): { field: keyof TaskForm; key: string }[] {
  const issues: { field: keyof TaskForm; key: string }[] = [];
  const start = Date.parse(values.starttime);
  if (opts.startChanged && !(start > now.getTime())) issues.push({ field: 'starttime', key: 'startTimeNotFuture' });
  const recurring = values.count > 1 || values.freq > 0;
  const period = periodMinutes(values);
  if (recurring && period < MIN_TASK_PERIOD_MINUTES) issues.push({ field: 'freq', key: 'taskFrequencyTooShort' });
  const repair = { repairFreq: values.repairFreq, repairUnit: values.repairUnit, repairCount: values.repairCount };
  if (recurring && period >= MIN_TASK_PERIOD_MINUTES && repairSpanMinutes(repair) > period)
    issues.push({ field: 'repairFreq', key: 'repairSpanTooLong' });
  return issues;
}

/** The createplan (or, with `planid`, updateplan) body of a filled-in form and its template. */
export function taskPlanBody(
  values: TaskForm,
  template: Pick<Template, 'templateName' | 'items' | 'cycleValue' | 'cycleFreq'>,
): z.input<typeof PlanCreateSchema> {
  const devParams = Object.fromEntries(
    Object.entries(values.devParams ?? {}).filter(
      ([, v]) => v !== undefined && v !== null && v !== '' && v !== false && !(Array.isArray(v) && v.length === 0),
    ),
  );
  const repair = values.repairCount > 0 && values.repairFreq > 0;
  return {
    planName: values.planName.trim(),
    planTempName: template.templateName,
    pri: values.pri,
    timeout: values.timeout,
    concurrent: values.concurrent,
    devs: {
      itemType: values.itemType,
      devList: splitDevices(values.devList),
      ...(Object.keys(devParams).length || !splitDevices(values.devList).length ? { devParams } : {}),
    },
    crontab: {
      starttime: Math.floor(Date.parse(values.starttime) / 1000),
      freq: values.freq,
      unit: values.unit,
      count: values.count,
      ...(repair
        ? {
            repairConf: {
              repairFreq: values.repairFreq,
              repairUnit: values.repairUnit,
              repairCount: values.repairCount,
            },
          }
        : {}),
    },
    orders: templateOrders(template),
  };
}

/** The form values of a stored task, for its edit page. */
export function taskFormValues(task: Task): TaskForm {
  return {
    planName: task.planName,
    templateId: task.templateId ?? '',
    itemType: task.itemType,
    devList: task.devList.join('\n'),
    devParams: task.devParams,
    starttime: task.starttime ?? '',
    freq: task.freq,
    unit: task.unit,
    count: task.count,
    repairFreq: task.repairFreq,
    repairUnit: task.repairUnit,
    repairCount: task.repairCount,
    pri: task.pri,
    timeout: task.timeout,
    concurrent: task.concurrent,
  };
}

/** Where the form shows a refusal the server names by its plan field (`crontab.freq` → `freq`). */
export function taskFormField(serverField: string): string {
  const [head, second, third] = serverField.split('.');
  if (head === 'crontab') return second === 'repairConf' ? 'repairFreq' : (second ?? 'starttime');
  if (head === 'devs') return second === 'devParams' && third ? `devParams.${third}` : 'devList';
  if (head === 'orders' || head === 'planTempName') return 'templateId';
  return serverField;
}
