import { z } from 'zod';
import { field } from '../common/entity';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { pageOf } from '../common/paging';
import { ResultCodeSchema } from '../device/protocol';
import { OPERATION_NAMES, OPERATION_RESOURCES } from './operations';

/** Devices a collection task may name. A task usually collects through filters; a list stays bounded. */
export const MAX_TASK_DEVICES = 10_000;

const TASK_MGT = '/serviceRequest/scheduledTask/taskMGT';
const TEMPLATE_MGT = '/serviceRequest/scheduledTask/templateMGT';
const BATCH = '/serviceRequest/batchOperation';
const DCU_OPERATING = '/parameterSetting/dcuOperating';
export const PLAN_RES = {
  taskAdd: `${TASK_MGT}/add`,
  taskEdit: `${TASK_MGT}/edit`,
  taskDelete: `${TASK_MGT}/delete`,
  taskView: `${TASK_MGT}/view`,
  taskViewDetail: `${TASK_MGT}/view/detail`,
  taskEnable: `${TASK_MGT}/enable`,
  taskPause: `${TASK_MGT}/pause`,
  taskExport: `${TASK_MGT}/export`,
  templates: TEMPLATE_MGT,
  approve: `${BATCH}/approve`,
  batch: BATCH,
  dcuOperating: DCU_OPERATING,
} as const;

/** The forms of templateMGT and taskMGT: their device filters pick suppliers, meter types and grid nodes. */
export const SCHEDULED_TASK_FORMS = [
  `${TEMPLATE_MGT}/add`,
  `${TEMPLATE_MGT}/edit`,
  `${TASK_MGT}/add`,
  `${TASK_MGT}/edit`,
];

/** Spec §4 task states, with the approval a large disconnect waits in (and its refusal). */
export const PLAN_STATUSES = [
  'pendingApproval',
  'waiting',
  'executing',
  'finished',
  'paused',
  'deleted',
  'rejected',
] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** Spec device type: 0 meter, 1 concentrator. */
export const PLAN_ITEM_TYPES = { meter: 0, dcu: 1 } as const;

export const PlanDeviceKeySchema = z.string().trim().min(1, 'mandatory').max(50, 'tooLong');
export const PlanItemTypeSchema = z.union([z.literal(0), z.literal(1)], 'invalidValue');

/** Spec device type codes (§3): 0 meter, 1 concentrator, 2 meter (PLC module), 3–5 module chips. */
export const DEVICE_TYPE_CODES = ['0', '1', '2', '3', '4', '5'] as const;

/**
 * Spec §3 device filters, each with its form meta (templates and tasks show them); what each one
 * matches in the archive is documented where the server resolves them (collection/device-set.ts).
 */
export const PlanDevParamsSchema = z.strictObject({
  devTypeCode: field(z.string().trim().max(50, 'tooLong').optional(), {
    label: 'task.fields.devTypeCode',
    widget: 'select',
    options: DEVICE_TYPE_CODES.map((value) => ({ value, label: `task.deviceTypes.${value}` })),
  }),
  group3: field(z.string().trim().max(50, 'tooLong').optional(), {
    label: 'task.fields.group3',
    widget: 'text',
    help: 'task.help.group3',
  }),
  manufacturer: field(z.string().trim().max(100, 'tooLong').optional(), {
    label: 'task.fields.manufacturer',
    widget: 'select',
    lookup: 'suppliers',
  }),
  models: field(z.array(z.string().trim().max(100, 'tooLong')).max(100, 'tooLong').optional(), {
    label: 'task.fields.models',
    widget: 'select',
    lookup: 'meterTypes',
    multiple: true,
  }),
  is_major_consumer: field(z.boolean('invalidValue').optional(), {
    label: 'task.fields.is_major_consumer',
    widget: 'switch',
    help: 'task.help.is_major_consumer',
  }),
  /** A tariff's id (a task saved before tariffs were records may hold its name, which matches too). */
  tariff_item_id: field(z.string().trim().max(50, 'tooLong').optional(), {
    label: 'task.fields.tariff_item_id',
    widget: 'select',
    lookup: 'tariffs',
  }),
  grid_ids: field(z.array(IdSchema).max(100, 'tooLong').optional(), {
    label: 'task.fields.grid_ids',
    widget: 'treeSelect',
    lookup: 'gridTree',
    multiple: true,
  }),
});
export type PlanDevParams = z.infer<typeof PlanDevParamsSchema>;

/**
 * A plan's devices. A one-shot operation takes 1 to 30 (the plan service refuses more, `batchTooLarge`);
 * a collection task up to MAX_TASK_DEVICES, or none named when filters choose them.
 */
export const PlanDevsSchema = z.strictObject({
  itemType: PlanItemTypeSchema,
  /** Meter serials (itemType 0) or DCU numbers (1). */
  devList: z.array(PlanDeviceKeySchema).max(MAX_TASK_DEVICES, 'tooLong').default([]),
  devParams: PlanDevParamsSchema.optional(),
});

export const PlanCrontabSchema = z.strictObject({
  /** Unix seconds of the first run. */
  starttime: z.number().int().min(0, 'outOfRange'),
  freq: z.number().int().min(0, 'outOfRange').default(0),
  unit: z.enum(['minute', 'hour', 'day', 'week', 'month'], 'invalidValue').default('day'),
  /** Runs expected; 1 is a one-shot plan. */
  count: z.number().int().min(1, 'outOfRange').default(1),
  repairConf: z
    .strictObject({
      repairFreq: z.number().int().min(0, 'outOfRange'),
      repairUnit: z.enum(['minute', 'hour', 'day'], 'invalidValue'),
      repairCount: z.number().int().min(0, 'outOfRange'),
    })
    .optional(),
});

/** The order of a collection task (spec §3 orders: cgcode is an OBIS item read periodically). */
export const COLLECT_CMD = 'collect';
/**
 * A tariff push (`/tariffitem/createtariffplan`): the passive calendar, its activation time and the
 * special days written to a meter. Not an operation of OPERATIONS: it is sent from tariff configuration
 * with a stored tariff, never through `/plan/createplan` or the batch operation buttons.
 */
/** What a plan's order may name: an operation, or `collect` for a collection task. */
export const PLAN_COMMANDS = [...OPERATION_NAMES, COLLECT_CMD] as const;
export const TARIFF_PUSH_CMD = 'tariffPush';
/** The steps of a firmware campaign (image transfer, class 18), which no plan names. */
export const FIRMWARE_CMD = 'firmwareUpgrade';
/**
 * Every kind of command written to the head-end's ledger: the operations, the reads of collection
 * runs (scheduled, repairs, run now, gap re-collections), tariff pushes and firmware campaigns' steps.
 * The ledger's column takes only these and the command records answer them all, so no kind is written
 * that a screen cannot read.
 */
/** A prepaid recharge's STS tokens entered at a meter's token gateway (and its overdraft setting). */
export const RECHARGE_CMD = 'tokenRecharge';
export const COMMAND_OPERATIONS = [...PLAN_COMMANDS, TARIFF_PUSH_CMD, FIRMWARE_CMD, RECHARGE_CMD] as const;
export type CommandOperation = (typeof COMMAND_OPERATIONS)[number];
/** Collection items one task reads at most. */
export const MAX_TASK_ORDERS = 20;

export const PlanOrderSchema = z.strictObject({
  /** Collection item code (the OBIS item's cgName) of a collection order; empty for an operation. */
  cgcode: z.string().max(50).default(''),
  /** An operation, or `collect`: a collection task reads the item `cgcode` names. */
  cmd: z.enum(PLAN_COMMANDS, 'invalidValue'),
  /** The operation's parameters, checked against OPERATIONS[cmd].params; none for `collect`. */
  params: z.record(z.string(), z.unknown()).default({}),
  isCyclePlan: z.boolean().default(false),
  cycleConf: z
    .strictObject({
      cycleValue: z.number().int('wholeNumber').min(0, 'outOfRange').max(1440, 'outOfRange'),
      cycleFreq: z.enum(['minute', 'hour', 'day'], 'invalidValue'),
    })
    .optional(),
});

export const PlanCreateSchema = z.strictObject({
  planName: z.string().trim().min(1, 'mandatory').max(100, 'tooLong'),
  planTempName: z.string().max(100, 'tooLong').default(''),
  pushType: z.number().int().min(0, 'outOfRange').max(9, 'outOfRange').default(2),
  /** 1 (least urgent) … 9; an operator's one-off command outranks a batch or a scheduled task. */
  pri: z.number().int().min(1, 'outOfRange').max(9, 'outOfRange').default(5),
  /** Seconds a device has to answer one command; the command time-out setting when absent. */
  timeout: z.number().int().min(5, 'outOfRange').max(3600, 'outOfRange').optional(),
  devs: PlanDevsSchema,
  crontab: PlanCrontabSchema.optional(),
  /** One operation for a one-shot plan; the collection items of a task. */
  orders: z.array(PlanOrderSchema).min(1, 'mandatory').max(MAX_TASK_ORDERS, 'tooLong'),
  eventCode: z.string().max(50).default(''),
  /** The caller's idempotency key: the same reqId answers the plan it already made. */
  reqId: z.string().max(64).default(''),
  /** Commands in flight at once per DCU (or direct meter) for this plan. */
  concurrent: z.number().int().min(1, 'outOfRange').max(64, 'outOfRange').default(4),
});
export type PlanCreate = z.infer<typeof PlanCreateSchema>;

export const PlanUpdateSchema = PlanCreateSchema.extend({ planid: IdSchema });
export const PlanRefSchema = z.strictObject({ planid: IdSchema, planName: z.string().max(100).optional() });

export const PlanSchema = z.object({
  planid: IdSchema,
  planName: z.string(),
  planTempName: z.string(),
  pushType: z.number(),
  pri: z.number(),
  timeout: z.number(),
  planStatus: z.enum(PLAN_STATUSES),
  devs: z.unknown(),
  crontab: z.unknown(),
  orders: z.unknown(),
  eventCode: z.string(),
  reqId: z.string(),
  concurrent: z.number(),
  createdBy: z.string(),
  approvedBy: z.string().nullable(),
  createTime: z.string(),
  /** Devices and how many have answered, by result code. */
  total: z.number().int(),
  done: z.number().int(),
  byCode: z.record(z.string(), z.number().int()),
});
export type Plan = z.infer<typeof PlanSchema>;

export const PlanCreatedSchema = z.object({
  planid: IdSchema,
  planStatus: z.enum(PLAN_STATUSES),
  /** The job reporting each device's result on `progress/{jobId}`; null while approval is pending. */
  jobId: z.string().nullable(),
});

export const COMMAND_STATES = ['queued', 'sent', 'done'] as const;

export const CommandItemSchema = z.object({
  obis: z.string(),
  code: ResultCodeSchema.optional(),
  /** As the device answered. */
  raw: z.unknown().optional(),
  /** Raw × 10^scaler, for display with `unit`. */
  value: z.unknown().optional(),
  unit: z.string().optional(),
  description: z.string().optional(),
});

export const CommandAttemptSchema = z.object({
  attempt: z.number().int(),
  sentAt: z.string(),
  code: ResultCodeSchema.nullable(),
  at: z.string().nullable(),
});

/** One device command and its outcome: who asked, when, every attempt and the answer. */
export const CommandRecordSchema = z.object({
  id: IdSchema,
  reqId: z.string(),
  planid: IdSchema.nullable(),
  deviceKind: z.enum(['meter', 'dcu']),
  deviceKey: z.string(),
  operation: z.enum(COMMAND_OPERATIONS),
  state: z.enum(COMMAND_STATES),
  resultCode: ResultCodeSchema.nullable(),
  items: z.array(CommandItemSchema),
  frame: z.string().nullable(),
  attempts: z.array(CommandAttemptSchema),
  requestedBy: z.string(),
  createTime: z.string(),
  answerTime: z.string().nullable(),
});
export type CommandRecord = z.infer<typeof CommandRecordSchema>;

/** What `progress/{jobId}` carries: the count and the results that arrived since the last message. */
export const PlanProgressSchema = z.object({
  done: z.number().int(),
  total: z.number().int(),
  planid: IdSchema,
  results: z.array(CommandRecordSchema),
});
export type PlanProgress = z.infer<typeof PlanProgressSchema>;

const ALL_PLAN_USERS = [...OPERATION_RESOURCES, PLAN_RES.taskAdd, PLAN_RES.taskView];

export const planApi = {
  createplan: defineOperation({
    path: '/plan/createplan',
    access: needs(...OPERATION_RESOURCES, PLAN_RES.taskAdd),
    tag: 'plan',
    summary:
      "plan: a one-shot plan of one operation on up to 30 devices in the caller's scope; each order needs its operation's button. Offline devices refuse it (MThasOffline), a device already executing the operation too (MTisExecute); a disconnect of a protected consumer is refused, and one that takes the meters disconnected without approval within the window past the approval threshold waits for a second user",
    request: PlanCreateSchema,
    response: PlanCreatedSchema,
    audit: 'add',
  }),
  updateplan: defineOperation({
    path: '/plan/updateplan',
    access: needs(PLAN_RES.taskEdit),
    tag: 'plan',
    summary: 'plan: changes a plan that has not started (waiting, paused or pending approval)',
    request: PlanUpdateSchema,
    response: z.null(),
    audit: 'update',
  }),
  deleteplan: defineOperation({
    path: '/plan/deleteplan',
    access: needs(PLAN_RES.taskDelete, ...OPERATION_RESOURCES),
    tag: 'plan',
    summary: 'plan: logically deletes a plan; commands not yet sent are cancelled, sent ones still get their answer',
    request: PlanRefSchema,
    response: z.null(),
    audit: 'delete',
  }),
  detail: defineOperation({
    path: '/plan/detail',
    access: needs(...ALL_PLAN_USERS, PLAN_RES.approve),
    tag: 'plan',
    summary: 'plan: one plan with its progress',
    request: z.strictObject({ planid: IdSchema }),
    response: PlanSchema,
  }),
  results: defineOperation({
    path: '/plan/results',
    access: needs(...ALL_PLAN_USERS, PLAN_RES.approve),
    tag: 'plan',
    summary: "plan: each device's command and result, values scaled with their unit",
    request: z.strictObject({
      planid: IdSchema,
      pageSize: z.number().int().min(1).max(500).default(50),
      curPage: z.number().int().min(1).default(1),
      failedOnly: z.boolean().default(false),
    }),
    response: pageOf(CommandRecordSchema),
  }),
  pending: defineOperation({
    path: '/plan/pending',
    access: needs(PLAN_RES.approve, ...OPERATION_RESOURCES),
    tag: 'plan',
    summary: 'plan: disconnects waiting for a second user to approve them',
    request: z.strictObject({
      pageSize: z.number().int().min(1).max(100).default(20),
      curPage: z.number().int().min(1).default(1),
    }),
    response: pageOf(PlanSchema),
  }),
  approve: defineOperation({
    path: '/plan/approve',
    access: needs(PLAN_RES.approve),
    tag: 'plan',
    summary: 'plan: a second user approves a held disconnect (never the requester); it is then dispatched staggered',
    request: z.strictObject({ planid: IdSchema }),
    response: PlanCreatedSchema,
    audit: 'update',
  }),
  reject: defineOperation({
    path: '/plan/reject',
    access: needs(PLAN_RES.approve),
    tag: 'plan',
    summary: 'plan: refuses a held disconnect; nothing is sent',
    request: z.strictObject({ planid: IdSchema }),
    response: z.null(),
    audit: 'update',
  }),
  retry: defineOperation({
    path: '/plan/retry',
    access: needs(...OPERATION_RESOURCES),
    tag: 'plan',
    summary: 'plan: a new plan of the same operation on the devices whose command failed',
    request: z.strictObject({ planid: IdSchema }),
    response: PlanCreatedSchema,
    audit: 'add',
  }),
  export: defineOperation({
    path: '/plan/export',
    access: needs(...OPERATION_RESOURCES, PLAN_RES.taskView),
    tag: 'plan',
    summary: "plan: the devices' results as a spreadsheet",
    request: z.strictObject({ planid: IdSchema }),
    response: z.unknown(),
  }),
  meterCommands: defineOperation({
    path: '/meter/commands',
    access: needs(...OPERATION_RESOURCES, '/archiveSetting/meter/detail'),
    tag: 'plan',
    summary: "meter: its command history, newest first; 404 outside the caller's scope",
    request: z.strictObject({
      id: IdSchema,
      pageSize: z.number().int().min(1).max(100).default(10),
      curPage: z.number().int().min(1).default(1),
    }),
    response: pageOf(CommandRecordSchema),
  }),
};
