import { type CommandOperation, DISCONNECT_OPERATIONS } from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  timestamp,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { createdAt, id, ref, updatedAt } from './columns';

const time = () => timestamp({ withTimezone: true, mode: 'date' });

/**
 * A disconnect's command, written out as the partial index on them has it (literals, not parameters),
 * so the approval window's count can use that index.
 */
export const isDisconnect = (operation: SQL | AnyPgColumn) =>
  sql`${operation} in (${sql.raw(DISCONNECT_OPERATIONS.map((o) => `'${o}'`).join(', '))})`;

/**
 * The head-end's ledger of device commands. A row is written before its command leaves (state
 * `queued`), becomes `sent` in the same statement that claims it for an attempt — before the publish,
 * so a restart never publishes an attempt twice — and `done` with its result code. Retries (busy,
 * time-out) go back to `queued` with `not_before`; every attempt is kept in `attempts`.
 */
export const deviceCommand = pgTable(
  'device_command',
  {
    id: id(),
    /** What the device sees; a device executes a reqId once, whatever the attempt. */
    reqId: varchar({ length: 64 }).notNull(),
    planId: ref(),
    /** The collection run a read belongs to (collection_run); its key, as the plan is a one-shot plan's. */
    runId: ref(),
    /** meter or dcu. */
    deviceKind: varchar({ length: 8 }).notNull(),
    deviceKey: varchar({ length: 50 }).notNull(),
    /** The connection it travels on: the DCU a meter hangs off, or the device itself. */
    route: varchar({ length: 60 }).notNull(),
    meterId: ref(),
    dcuId: ref(),
    gridId: ref(),
    operation: varchar({ length: 40 }).$type<CommandOperation>().notNull(),
    /** The device command without reqId/attempt/deadline: {op, items, frame}. */
    command: jsonb().notNull(),
    /** 1 … 9; higher goes first. */
    priority: smallint().notNull().default(5),
    /** Part of a batch or a scheduled run: it never takes a route's last slot, kept for one-off commands. */
    bulk: boolean().notNull().default(false),
    /** Commands of its kind (its run) in flight at once on one route; a task's concurrency. Null: the route's. */
    routeLimit: smallint(),
    state: varchar({ length: 8 }).notNull().default('queued'),
    notBefore: time().notNull().defaultNow(),
    /** Not sent by then: 50 (server time-out). */
    expiresAt: time().notNull(),
    /** Offline when due: wait for the device's next online message until `expires_at`, else 90. */
    waitOnline: boolean().notNull().default(false),
    timeoutSeconds: integer().notNull().default(30),
    attempt: smallint().notNull().default(0),
    maxTimeoutRetries: smallint().notNull().default(0),
    maxBusyRetries: smallint().notNull().default(0),
    attempts: jsonb().notNull().default(sql`'[]'::jsonb`),
    sentAt: time(),
    deadline: time(),
    resultCode: varchar({ length: 2 }),
    answer: jsonb(),
    answerTime: time(),
    requestedBy: varchar({ length: 50 }).notNull(),
    /** Operator operations land in the operation log with every device's answer. */
    audited: boolean().notNull().default(false),
    createTime: createdAt(),
  },
  (t) => [
    uniqueIndex('device_command_req_uq').on(t.reqId),
    // A plan's device gets one command per order, however often its run is retried.
    uniqueIndex('device_command_plan_uq').on(t.planId, t.deviceKind, t.deviceKey, t.operation),
    // A collection run reads each device once per run; a repair is a run of its own.
    uniqueIndex('device_command_run_uq').on(t.runId, t.deviceKind, t.deviceKey, t.operation),
    // Dispatch reads the due commands by priority; time-outs read the sent ones by deadline.
    index('device_command_queue_idx')
      .on(t.priority.desc(), t.bulk, t.notBefore, t.id)
      .where(sql`${t.state} = 'queued'`),
    index('device_command_sent_idx').on(t.deadline).where(sql`${t.state} = 'sent'`),
    index('device_command_device_idx').on(t.deviceKind, t.deviceKey, t.createTime),
    index('device_command_meter_idx').on(t.meterId, t.createTime),
    index('device_command_plan_idx').on(t.planId),
    // The disconnects of the approval threshold's window, however many reads the table holds.
    index('device_command_disconnect_idx').on(t.createTime).where(isDisconnect(t.operation)),
    index('device_command_run_idx').on(t.runId, t.state),
  ],
);

/** Whether a device is reachable, from its retained status messages (and its DCU's last will). */
export const deviceLink = pgTable(
  'device_link',
  {
    deviceKind: varchar({ length: 8 }).notNull(),
    deviceKey: varchar({ length: 50 }).notNull(),
    online: boolean().notNull(),
    changedAt: time().notNull().defaultNow(),
    lastSeen: time().notNull().defaultNow(),
    /** Its last heartbeat message (DCUs only: headend/heartbeats.ts). */
    heartbeatAt: time(),
  },
  (t) => [
    primaryKey({ columns: [t.deviceKind, t.deviceKey] }),
    // The archive finds a device's link whatever the case its key was published in, as the readings do.
    index('device_link_lower_key_idx').on(t.deviceKind, sql`lower(${t.deviceKey})`),
  ],
);

/** A plan (spec §3): what to run on which devices, when; one-shot plans carry operator operations. */
export const plan = pgTable(
  'plan',
  {
    id: id(),
    planName: varchar({ length: 100 }).notNull(),
    /** `operation`: a one-shot operator operation; `collection`: a scheduled collection task (taskMGT). */
    kind: varchar({ length: 12 }).notNull().default('operation'),
    planTempName: varchar({ length: 100 }).notNull().default(''),
    pushType: smallint().notNull().default(2),
    pri: smallint().notNull().default(5),
    timeout: integer().notNull().default(30),
    planStatus: varchar({ length: 20 }).notNull(),
    devs: jsonb().notNull(),
    crontab: jsonb(),
    orders: jsonb().notNull(),
    eventCode: varchar({ length: 50 }).notNull().default(''),
    reqId: varchar({ length: 64 }).notNull().default(''),
    concurrent: smallint().notNull().default(4),
    /** The devices as resolved when the plan was made (their count, for progress). */
    deviceCount: integer().notNull().default(0),
    createdBy: varchar({ length: 50 }).notNull(),
    approvedBy: varchar({ length: 50 }),
    approveTime: time(),
    jobId: varchar({ length: 36 }),
    /** A scheduled task runs only while enabled; it must be disabled before it is modified (spec §4). */
    enabled: boolean().notNull().default(false),
    /** Occurrences started so far; the expected count (`crontab.count`) may not go below it. */
    executedCount: integer().notNull().default(0),
    /** When the task's next occurrence is due; null while disabled, paused or finished. */
    nextRunAt: time(),
    /** The template a collection task was made from: a template in use is not deleted. */
    templateId: ref().references((): AnyPgColumn => planTemplate.id, { onDelete: 'set null' }),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('plan_req_uq').on(t.createdBy, t.reqId).where(sql`${t.reqId} <> ''`),
    index('plan_status_idx').on(t.planStatus, t.createTime),
    // Task names are unique among the tasks not deleted (spec §5: 'Task name existed').
    uniqueIndex('plan_task_name_uq')
      .on(sql`lower(${t.planName})`)
      .where(sql`${t.kind} = 'collection' and ${t.planStatus} <> 'deleted'`),
    index('plan_template_idx').on(t.templateId),
    index('plan_due_idx').on(t.nextRunAt).where(sql`${t.enabled} and ${t.nextRunAt} is not null`),
  ],
);

/** A collection task template (templateMGT): the orders and the default device filters a task starts from. */
export const planTemplate = pgTable(
  'plan_template',
  {
    id: id(),
    templateName: varchar({ length: 100 }).notNull(),
    /** PlanOrder[]: collection items (cgcode) with their cycle plans. */
    orders: jsonb().notNull(),
    /** Default devParams of tasks made from it. */
    devParams: jsonb().notNull().default(sql`'{}'::jsonb`),
    remark: varchar({ length: 500 }).notNull().default(''),
    createdBy: varchar({ length: 50 }).notNull(),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [uniqueIndex('plan_template_name_uq').on(sql`lower(${t.templateName})`)],
);
