import { z } from 'zod';
import { archiveApi, formsOf, optionsApi } from '../archive/archive-api';
import { SYNC_STATUSES } from '../archive/enums';
import { field } from '../common/entity';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { PageQuerySchema, pageOf } from '../common/paging';
import { ResultCodeSchema } from '../device/protocol';
import { MAX_BATCH_DEVICES } from '../operations/operations';
import { PLAN_STATUSES, PlanDeviceKeySchema, SCHEDULED_TASK_FORMS } from '../operations/plan.api';
import { TariffCreateSchema, tariffEntity } from './tariff.schema';

const page = tariffEntity.pagePath;
const CONFIGURATION = '/serviceRequest/tariffConfiguration';

/**
 * spec §2: tariff management's hidden pages are `Add`, `Edit` and `Associated` (capital letters), with
 * delete and export buttons. A tariff is viewed on the page itself (its editor shows it), so detail
 * needs the page.
 */
export const TARIFF_RES = {
  page,
  add: `${page}/Add`,
  edit: `${page}/Edit`,
  detail: page,
  associated: `${page}/Associated`,
  delete: `${page}/delete`,
  export: `${page}/export`,
  /** Tariff configuration: the page and its push button. */
  configuration: CONFIGURATION,
  issue: `${CONFIGURATION}/issue`,
} as const;

/** What Associated lists: the meters using a tariff, or the POCs. */
export const TARIFF_USER_KINDS = ['meter', 'poc'] as const;

export const TariffAssociatedQuerySchema = PageQuerySchema.extend({
  id: IdSchema,
  kind: z.enum(TARIFF_USER_KINDS, 'invalidValue').default('meter'),
  /** Part of the meter serial (meters) or POC number (POCs). */
  keyword: z.string().trim().max(50, 'tooLong').default(''),
});

const label = (name: string) => `tariff.associated.${name}`;

/** A meter or POC using a tariff, within the caller's grid scope. */
export const TariffAssociatedSchema = z.object({
  id: IdSchema,
  kind: z.enum(TARIFF_USER_KINDS),
  /** The meter's serial; a POC's meter's serial (empty when it has none). */
  devAddr: field(z.string(), { label: label('devAddr'), widget: 'text' }),
  /** The POC's number; a meter's POC's number (empty when it measures none). */
  pocNo: field(z.string(), { label: label('pocNo'), widget: 'text' }),
  consumerName: field(z.string(), { label: label('consumerName'), widget: 'text' }),
  gridName: field(z.string(), { label: label('gridName'), widget: 'text' }),
  /** A POC's sync status (0 not synchronized, 1 synchronized, 2 changed); null for a meter. */
  syncStatus: field(z.union(SYNC_STATUSES.map((s) => z.literal(s))).nullable(), {
    label: label('syncStatus'),
    widget: 'select',
    options: SYNC_STATUSES.map((value) => ({ value, label: `poc.syncStatuses.${value}` })),
  }),
  /** The meter's (or POC's meter's) link to the head-end; null when unknown or no meter. */
  online: field(z.boolean().nullable(), { label: label('online'), widget: 'switch' }),
  /** The tariff the meter last took from a push, and when (null: none taken). */
  takenTariffName: field(z.string().nullable(), { label: label('takenTariffName'), widget: 'text' }),
  takenTime: field(z.string().nullable(), { label: label('takenTime'), widget: 'datetime' }),
});
export type TariffAssociated = z.infer<typeof TariffAssociatedSchema>;

/** The activation time of a push: ISO 8601 with its offset, later than now (`activationTimeNotFuture`). */
const activationTime = z.iso
  .datetime({ offset: true, message: 'invalidClockTime' })
  .refine((v) => !Number.isNaN(Date.parse(v)), 'invalidClockTime');

export const TariffPushCreateSchema = z.strictObject({
  tariffId: field(IdSchema, { label: 'tariffPush.fields.tariffId', widget: 'select', lookup: 'tariffs' }),
  /** Meter serials, 1 to 30 (spec §5 batch selection). */
  devList: field(
    z
      .array(PlanDeviceKeySchema)
      .min(1, 'mandatory')
      .max(MAX_BATCH_DEVICES, { error: 'batchTooLarge', abort: true })
      .refine((list) => new Set(list).size === list.length, 'duplicateDevice'),
    { label: 'tariffPush.fields.devList', widget: 'select', multiple: true },
  ),
  /** When the meters switch from the pushed (passive) calendar to it (active): later than now. */
  activationTime: field(activationTime, { label: 'tariffPush.fields.activationTime', widget: 'datetime' }),
  /** Seconds a meter has to answer; the command time-out setting when absent. */
  timeout: z.number().int().min(5, 'outOfRange').max(3600, 'outOfRange').optional(),
  /** The caller's idempotency key: the same reqId answers the push it already made. */
  reqId: z.string().max(64).default(''),
});
export type TariffPushCreate = z.infer<typeof TariffPushCreateSchema>;

/** What a push (or a re-send) answers: the plan and the job whose `progress/{jobId}` the screen follows. */
export const TariffPushCreatedSchema = z.object({
  /** The push: its per-meter results (`listtariffeventlog`) and re-sends (`restarttariffeventlog`) name it. */
  pushId: IdSchema,
  /** The one-shot plan carrying this send (`/plan/detail`, `/plan/results` read it too). */
  planid: IdSchema,
  planStatus: z.enum(PLAN_STATUSES),
  /** The job reporting each meter's result on `progress/{jobId}`. */
  jobId: z.string().nullable(),
});
export type TariffPushCreated = z.infer<typeof TariffPushCreatedSchema>;

/** A meter's state within a push: sent and waiting, or answered (its result code says how). */
export const TARIFF_EVENT_STATES = ['waiting', 'done'] as const;

const eventLabel = (name: string) => `tariffPush.event.${name}`;

/** One meter of a push: what it last answered (a re-send updates the row). */
export const TariffEventSchema = z.object({
  id: IdSchema,
  pushId: IdSchema,
  meterId: IdSchema,
  devAddr: field(z.string(), { label: eventLabel('devAddr'), widget: 'text' }),
  state: field(z.enum(TARIFF_EVENT_STATES), {
    label: eventLabel('state'),
    widget: 'select',
    options: TARIFF_EVENT_STATES.map((value) => ({ value, label: `tariffPush.states.${value}` })),
  }),
  /** '00' the meter took the calendar; any other code failed; null while waiting. */
  resultCode: field(ResultCodeSchema.nullable(), { label: eventLabel('resultCode'), widget: 'text' }),
  /** Sends to this meter in this push (1, then one per re-send). */
  attempts: field(z.number().int(), { label: eventLabel('attempts'), widget: 'number' }),
  /** The plan of the latest send. */
  planid: IdSchema,
  sendTime: field(z.string(), { label: eventLabel('sendTime'), widget: 'datetime' }),
  answerTime: field(z.string().nullable(), { label: eventLabel('answerTime'), widget: 'datetime' }),
});
export type TariffEvent = z.infer<typeof TariffEventSchema>;

const pushLabel = (name: string) => `tariffPush.fields.${name}`;

/** A push: the tariff, the activation time, who sent it and how its meters answered. */
export const TariffPushSchema = z.object({
  pushId: IdSchema,
  /** Null once the tariff was deleted (the push keeps its name). */
  tariffId: IdSchema.nullable(),
  tariffName: field(z.string(), { label: pushLabel('tariffName'), widget: 'text' }),
  activationTime: field(z.string(), { label: pushLabel('activationTime'), widget: 'datetime' }),
  createdBy: field(z.string(), { label: pushLabel('createdBy'), widget: 'text' }),
  createTime: field(z.string(), { label: pushLabel('createTime'), widget: 'datetime' }),
  total: field(z.number().int(), { label: pushLabel('total'), widget: 'number' }),
  /** Meters that answered (any code). */
  done: field(z.number().int(), { label: pushLabel('done'), widget: 'number' }),
  succeeded: field(z.number().int(), { label: pushLabel('succeeded'), widget: 'number' }),
  failed: field(z.number().int(), { label: pushLabel('failed'), widget: 'number' }),
  /** Meters by their latest result code. */
  byCode: z.record(z.string(), z.number().int()),
});
export type TariffPush = z.infer<typeof TariffPushSchema>;

export const tariffApi = {
  ...archiveApi({
    path: 'tariff',
    entity: tariffEntity,
    create: TariffCreateSchema,
    res: TARIFF_RES,
    viewedBy: [CONFIGURATION],
  }),
  associated: defineOperation({
    path: '/tariff/associated',
    access: needs(TARIFF_RES.associated),
    tag: 'tariff',
    summary:
      "tariff: the meters (kind meter) or POCs (kind poc) whose tariff it is, within the caller's grid scope, by serial or POC number, paged; 404 for an unknown tariff",
    request: TariffAssociatedQuerySchema,
    response: pageOf(TariffAssociatedSchema),
  }),
  options: optionsApi('tariff', tariffEntity.name, {
    searches: 'name',
    // Meters and POCs name their tariff; the task's device filter and tariff configuration pick one.
    pickedBy: [
      ...formsOf('/archiveSetting/meter'),
      ...formsOf('/archiveSetting/poc'),
      ...SCHEDULED_TASK_FORMS,
      CONFIGURATION,
    ],
  }),
};

const pushQuery = PageQuerySchema.extend({ pushId: IdSchema });

export const tariffPushApi = {
  createtariffplan: defineOperation({
    path: '/tariffitem/createtariffplan',
    access: needs(TARIFF_RES.issue),
    tag: 'tariffPush',
    summary:
      "tariffPush: writes a tariff to 1–30 meters in the caller's scope (their passive calendar and special days, with the activation time) as a one-shot plan through the head-end. An offline meter refuses it (MThasOffline), one already executing a tariff push too (MTisExecute); the activation time must be later than now",
    request: TariffPushCreateSchema,
    response: TariffPushCreatedSchema,
    audit: 'add',
  }),
  restarttariffeventlog: defineOperation({
    path: '/tariffevent/restarttariffeventlog',
    access: needs(TARIFF_RES.issue),
    tag: 'tariffPush',
    summary:
      'tariffPush: sends the push again to its failed meters (all of them, or those of `ids`), as a new one-shot plan with the same tariff and activation time; `nothingToRetry` when none failed',
    request: z.strictObject({
      pushId: IdSchema,
      /** Event rows (`listtariffeventlog` ids) to re-send; every failed one when absent. Only failed rows are taken. */
      ids: z.array(IdSchema).min(1, 'mandatory').max(MAX_BATCH_DEVICES, 'batchTooLarge').optional(),
    }),
    response: TariffPushCreatedSchema,
    audit: 'add',
  }),
  listtariffeventlog: defineOperation({
    path: '/tariffevent/listtariffeventlog',
    access: needs(TARIFF_RES.configuration),
    tag: 'tariffPush',
    summary:
      "tariffPush: each meter of a push with its latest result code and times, failed ones only on request; 404 for a push the caller did not reach (its meters outside the caller's scope)",
    request: pushQuery.extend({ failedOnly: z.boolean().default(false) }),
    response: pageOf(TariffEventSchema),
  }),
  listtariffplan: defineOperation({
    path: '/tariffitem/listtariffplan',
    access: needs(TARIFF_RES.configuration),
    tag: 'tariffPush',
    summary: 'tariffPush: the pushes, newest first, optionally of one tariff, each with its counts by result',
    request: PageQuerySchema.extend({ tariffId: IdSchema.optional() }),
    response: pageOf(TariffPushSchema),
  }),
  detail: defineOperation({
    path: '/tariffitem/detail',
    access: needs(TARIFF_RES.configuration),
    tag: 'tariffPush',
    summary: 'tariffPush: one push with its counts by result',
    request: z.strictObject({ pushId: IdSchema }),
    response: TariffPushSchema,
  }),
};
