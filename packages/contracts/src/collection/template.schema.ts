import { z } from 'zod';
import { choice } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains } from '../common/list';
import { nameText, optionalText } from '../common/validation';
import { COLLECT_CMD, MAX_TASK_ORDERS, PlanDevParamsSchema, type PlanOrderSchema } from '../operations/plan.api';

export const CYCLE_UNITS = ['minute', 'hour', 'day'] as const;

/**
 * Where a collection item's name (an OBIS item's cgName) finds its label: the profile objects under
 * `collectItems`, a register under the readings channel of the same name. An operator's own item shows
 * as its code.
 */
export const COLLECT_ITEM_LABELS = ['collectItems', 'readings.channels'] as const;

/**
 * A collection task template (templateMGT): the items its tasks read, how often within a run each is
 * read (a cycle plan; 0 reads once per run), and the device filters a task starts from.
 */
const fields = {
  templateName: field(nameText(100), { widget: 'text', unique: true }),
  items: field(
    z
      .array(z.string().trim().min(1, 'mandatory').max(50, 'tooLong'), 'mandatory')
      .min(1, 'mandatory')
      .max(MAX_TASK_ORDERS, 'tooLong'),
    {
      widget: 'select',
      lookup: 'collectItems',
      valueLabels: COLLECT_ITEM_LABELS,
      multiple: true,
      help: 'template.help.items',
    },
  ),
  cycleValue: field(z.number('mandatory').int('wholeNumber').min(0, 'outOfRange').max(1440, 'outOfRange').default(0), {
    widget: 'number',
    help: 'template.help.cycleValue',
  }),
  cycleFreq: choice('template', 'cycleFreq', 'cycleUnits', CYCLE_UNITS).default('minute'),
  devParams: field(PlanDevParamsSchema.default({}), { widget: 'group' }),
  remark: field(optionalText(500), { widget: 'textarea' }),
};

export const TemplateSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    createdBy: field(z.string(), { widget: 'text' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Template = z.infer<typeof TemplateSchema>;

export const TemplateCreateSchema = z.strictObject(fields);
export type TemplateCreate = z.infer<typeof TemplateCreateSchema>;

export const templateEntity = defineEntity({
  name: 'template',
  record: TemplateSchema,
  create: TemplateCreateSchema,
  pagePath: '/serviceRequest/scheduledTask/templateMGT',
  columns: [
    { field: 'templateName', sortable: true },
    { field: 'items' },
    { field: 'cycleValue', width: 110 },
    { field: 'cycleFreq', width: 110 },
    { field: 'remark' },
    { field: 'createdBy', sortable: true, width: 140 },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [contains('templateName', 100), contains('createdBy', 50)],
});
export type TemplateListQuery = z.infer<typeof templateEntity.listQuery>;

/** The orders a template gives its tasks: one `collect` per item, with the template's cycle plan. */
export function templateOrders(
  t: Pick<Template, 'items' | 'cycleValue' | 'cycleFreq'>,
): z.input<typeof PlanOrderSchema>[] {
  return t.items.map((cgcode) => ({
    cgcode,
    cmd: COLLECT_CMD,
    params: {},
    isCyclePlan: t.cycleValue > 0,
    ...(t.cycleValue > 0 ? { cycleConf: { cycleValue: t.cycleValue, cycleFreq: t.cycleFreq } } : {}),
  }));
}
