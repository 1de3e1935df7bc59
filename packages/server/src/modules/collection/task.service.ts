import {
  COLLECT_CMD,
  MAX_EXPORT_ROWS,
  nextOccurrence,
  PLAN_RES,
  type PlanCreate,
  RESULT,
  RESULT_CODES,
  type Task,
  type TaskListQuery,
  type TaskState,
  taskEntity,
} from '@meterdesk/contracts';
import { and, eq, inArray, ne, type SQL, sql } from 'drizzle-orm';
import { permittedUris } from '../../auth/session';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { defineList, listChunks, listPage, selectSource } from '../../db/list';
import { planOfRequest } from '../../db/plan-request';
import { anyRow, countAll, iso } from '../../db/rows';
import { deviceCommand, plan, planTemplate } from '../../db/schema';
import { registerUniqueIndex } from '../../db/unique';
import { ApiError, existedError, fieldError, forbidden, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { gridScope, type Scope, scopeOf } from '../../rbac/scope';
import type { SettingsService } from '../system/settings.service';
import { checkTaskDevs } from './device-set';
import { type Crontab, checkCollectItems, checkGridIds, checkSchedule } from './task-rules';

type PlanRow = typeof plan.$inferSelect;
type TaskBody = PlanCreate;

export const COLLECTION = 'collection';
const EXPORT_CHUNK = 1000;

registerUniqueIndex('plan_task_name_uq', () => existedError(taskEntity, 'planName'));

/** Tasks still to run or running: a start time is taken only by these (finished and deleted ones let it go). */
const LIVE: TaskState[] = ['waiting', 'executing', 'paused'];

const gridIdsOf = sql`(${plan.devs}->'devParams'->'grid_ids')`;
const starttimeOf = sql`(${plan.crontab}->>'starttime')`;

export const TASK_LIST = defineList({
  entity: taskEntity,
  columns: {
    planName: plan.planName,
    planTempName: plan.planTempName,
    planStatus: plan.planStatus,
    enabled: plan.enabled,
    nextRunAt: plan.nextRunAt,
    pri: plan.pri,
    createTime: plan.createTime,
  },
  defaultOrder: sql`${plan.createTime} desc`,
  tieBreak: plan.id,
});

/** Tasks whose grid nodes all lie in the caller's scope; a task of the whole fleet only for the admin role. */
function taskScope(scope: Scope): SQL | undefined {
  if (scope.all) return undefined;
  const inScope = gridScope(scope, sql`g.id`) ?? sql`true`;
  return sql`(jsonb_typeof(${gridIdsOf}) = 'array' and jsonb_array_length(${gridIdsOf}) > 0 and not exists (select 1 from jsonb_array_elements_text(${gridIdsOf}) as g(id) where not (${inScope})))`;
}

const isCollection = eq(plan.kind, COLLECTION);

/** The tasks taskMGT shows the caller and answers one of (deleted ones never): the rule task analysis shares. */
export const visibleTasks = (scope: Scope): SQL | undefined =>
  and(isCollection, ne(plan.planStatus, 'deleted'), taskScope(scope));

/**
 * Scheduled collection tasks (taskMGT): a `plan` row of kind `collection`. This service keeps the
 * spec's rules and the task's state and next run (`next_run_at`): set from the crontab on create,
 * enable and resume, cleared on disable, pause and delete. The runs job starts due tasks and advances
 * `executed_count` and `next_run_at` as it records each run.
 */
export class TaskService {
  constructor(
    private readonly db: Db,
    private readonly settings: SettingsService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Whether a plan body is a collection task: its orders collect. */
  static isTask(body: Pick<PlanCreate, 'orders'>): boolean {
    return body.orders.some((o) => o.cmd === COLLECT_CMD);
  }

  /** Whether a stored plan is a collection task (updateplan and deleteplan go by the stored kind). */
  async isTaskId(planId: string): Promise<boolean> {
    return anyRow(this.db, plan, and(eq(plan.id, planId), isCollection));
  }

  async create(body: TaskBody, session: SessionContext) {
    await this.requireButton(session, PLAN_RES.taskAdd);
    const known = await planOfRequest(this.db, session.username, body.reqId);
    if (known) return created(known);
    const scope = await scopeOf(this.db, session);
    const checked = await this.check(body, scope, { executed: 0, changedStart: true });
    const crontab = checked.crontab;
    const next = nextOccurrence(crontab, 0);
    const timeout = body.timeout ?? (await this.settings.commandTimeout());
    const [row] = await this.db
      .insert(plan)
      .values({
        id: newId(),
        kind: COLLECTION,
        planName: body.planName,
        planTempName: checked.template.templateName,
        templateId: checked.template.id,
        pushType: body.pushType,
        pri: body.pri,
        timeout,
        planStatus: 'waiting',
        devs: checked.devs,
        crontab,
        orders: checked.orders,
        eventCode: body.eventCode,
        reqId: body.reqId,
        concurrent: body.concurrent,
        deviceCount: checked.deviceCount,
        createdBy: session.username,
        enabled: true,
        nextRunAt: next,
      })
      .returning();
    return created(row as PlanRow);
  }

  /** Spec §4: a task is modified only while disabled; what it has executed stays. */
  async update(body: TaskBody & { planid: string }, session: SessionContext): Promise<void> {
    await this.requireButton(session, PLAN_RES.taskEdit);
    const scope = await scopeOf(this.db, session);
    const row = await this.taskInScope(body.planid, scope);
    if (row.enabled) throw new ApiError(RESULT.badRequest, 'taskEnabled');
    const before = row.crontab as Crontab;
    const checked = await this.check(body, scope, {
      executed: row.executedCount,
      changedStart: body.crontab?.starttime !== before.starttime,
      self: row.id,
    });
    const finished = checked.crontab.count <= row.executedCount;
    const status: TaskState = finished
      ? 'finished'
      : row.planStatus === 'finished'
        ? 'waiting'
        : (row.planStatus as TaskState);
    await this.db
      .update(plan)
      .set({
        planName: body.planName,
        planTempName: checked.template.templateName,
        templateId: checked.template.id,
        pushType: body.pushType,
        pri: body.pri,
        timeout: body.timeout ?? row.timeout,
        planStatus: status,
        devs: checked.devs,
        crontab: checked.crontab,
        orders: checked.orders,
        eventCode: body.eventCode,
        concurrent: body.concurrent,
        deviceCount: checked.deviceCount,
        nextRunAt: null,
        updateTime: sql`now()`,
      })
      .where(and(eq(plan.id, row.id), eq(plan.enabled, false)));
  }

  /** Logical delete: no run starts again; commands of a run not yet sent are cancelled (50). */
  async remove(planId: string, session: SessionContext): Promise<void> {
    await this.requireButton(session, PLAN_RES.taskDelete);
    const row = await this.taskInScope(planId, await scopeOf(this.db, session));
    await this.db.transaction(async (tx) => {
      await tx
        .update(plan)
        .set({ planStatus: 'deleted', enabled: false, nextRunAt: null, updateTime: sql`now()` })
        .where(eq(plan.id, row.id));
      await tx
        .update(deviceCommand)
        .set({ state: 'done', resultCode: RESULT_CODES.serverTimeout, answerTime: sql`now()` })
        .where(and(eq(deviceCommand.planId, row.id), eq(deviceCommand.state, 'queued')));
    });
  }

  async enable(planId: string, session: SessionContext) {
    const row = await this.taskInScope(planId, await scopeOf(this.db, session));
    if (row.planStatus === 'finished') throw new ApiError(RESULT.badRequest, 'taskFinished');
    return this.setState(row, { enabled: true, planStatus: row.planStatus as TaskState });
  }

  /** A disabled task starts no run; a run in progress completes (the runs job stops at the next one). */
  async disable(planId: string, session: SessionContext) {
    const row = await this.taskInScope(planId, await scopeOf(this.db, session));
    return this.setState(row, { enabled: false, planStatus: row.planStatus as TaskState });
  }

  async pause(planId: string, session: SessionContext) {
    const row = await this.taskInScope(planId, await scopeOf(this.db, session));
    if (row.planStatus === 'finished') throw new ApiError(RESULT.badRequest, 'taskFinished');
    if (!row.enabled) throw new ApiError(RESULT.badRequest, 'taskNotEnabled');
    return this.setState(row, { enabled: true, planStatus: 'paused' });
  }

  async resume(planId: string, session: SessionContext) {
    const row = await this.taskInScope(planId, await scopeOf(this.db, session));
    if (row.planStatus !== 'paused') throw new ApiError(RESULT.badRequest, 'taskNotPaused');
    return this.setState(row, { enabled: row.enabled, planStatus: 'waiting' });
  }

  async detail(planId: string, session: SessionContext): Promise<Task> {
    return toTask(await this.taskInScope(planId, await scopeOf(this.db, session)));
  }

  async list(q: TaskListQuery, session: SessionContext) {
    const scope = await scopeOf(this.db, session);
    return listPage(
      TASK_LIST,
      q,
      selectSource(this.db, {
        select: () => this.db.select().from(plan).$dynamic(),
        map: toTask,
        countFrom: async (where) => (await this.db.select({ n: countAll() }).from(plan).where(where))[0]?.n ?? 0,
      }),
      ...this.listScope(q, scope),
    );
  }

  /** Every task the list's filters select, in chunks, for the export. */
  async *all(q: Omit<TaskListQuery, 'curPage' | 'pageSize'>, session: SessionContext): AsyncIterable<Task[]> {
    const scope = await scopeOf(this.db, session);
    yield* listChunks(
      TASK_LIST,
      q,
      selectSource(this.db, {
        select: () => this.db.select().from(plan).$dynamic(),
        map: toTask,
        countFrom: plan,
      }),
      { chunk: EXPORT_CHUNK, max: MAX_EXPORT_ROWS },
      ...this.listScope(q, scope),
    );
  }

  /** Whether a task name is taken by a task not deleted (another than `id`). */
  async nameTaken(value: string, id: string | undefined): Promise<boolean> {
    return anyRow(
      this.db,
      plan,
      and(
        isCollection,
        ne(plan.planStatus, 'deleted'),
        eq(sql`lower(${plan.planName})`, value.trim().toLowerCase()),
        id ? ne(plan.id, id) : undefined,
      ),
    );
  }

  /** Deleted tasks stay out of the list unless the state filter asks for them. */
  private listScope(q: Pick<TaskListQuery, 'planStatus'>, scope: Scope): (SQL | undefined)[] {
    return [isCollection, q.planStatus ? undefined : ne(plan.planStatus, 'deleted'), taskScope(scope)];
  }

  /**
   * A state change with the next run it implies: due at the next occurrence not yet executed while
   * enabled and waiting or executing, none otherwise; a task past its expected count finishes.
   */
  private async setState(row: PlanRow, state: { enabled: boolean; planStatus: TaskState }) {
    const running = state.enabled && (state.planStatus === 'waiting' || state.planStatus === 'executing');
    const next = running ? nextOccurrence(row.crontab as Crontab, row.executedCount) : null;
    const planStatus: TaskState = running && !next && state.planStatus === 'waiting' ? 'finished' : state.planStatus;
    const [updated] = await this.db
      .update(plan)
      .set({ enabled: state.enabled, planStatus, nextRunAt: next, updateTime: sql`now()` })
      .where(and(eq(plan.id, row.id), ne(plan.planStatus, 'deleted')))
      .returning();
    if (!updated) throw notFound();
    return {
      planStatus: updated.planStatus as TaskState,
      enabled: updated.enabled,
      nextRunAt: iso(updated.nextRunAt) || null,
    };
  }

  /** Every rule of a task body, in the order the form shows its fields; answers what is stored. */
  private async check(body: TaskBody, scope: Scope, opts: { executed: number; changedStart: boolean; self?: string }) {
    const bad = body.orders.findIndex((o) => o.cmd !== COLLECT_CMD);
    if (bad >= 0) throw fieldError(RESULT.badRequest, `orders.${bad}.cmd`, 'invalidValue');
    const missing = body.orders.findIndex((o) => !o.cgcode.trim());
    if (missing >= 0) throw fieldError(RESULT.badRequest, `orders.${missing}.cgcode`, 'collectItemMissing');
    await checkCollectItems(
      this.db,
      body.orders.map((o) => o.cgcode.trim()),
      'orders',
      '.cgcode',
    );
    if (!body.planTempName.trim()) throw fieldError(RESULT.badRequest, 'planTempName', 'mandatory');
    const [template] = await this.db
      .select({ id: planTemplate.id, templateName: planTemplate.templateName })
      .from(planTemplate)
      .where(eq(sql`lower(${planTemplate.templateName})`, body.planTempName.trim().toLowerCase()));
    if (!template) throw fieldError(RESULT.badRequest, 'planTempName', 'templateNotFound');
    if (await this.nameTaken(body.planName, opts.self)) throw existedError(taskEntity, 'planName');

    const devParams = { ...(body.devs.devParams ?? {}) };
    await checkGridIds(this.db, scope, devParams.grid_ids, 'devs.devParams.grid_ids');
    if (!scope.all && !devParams.grid_ids?.length) devParams.grid_ids = [...scope.gridIds];
    const devs = {
      itemType: body.devs.itemType,
      devList: [...new Set(body.devs.devList.map((k) => k.trim()))],
      devParams,
    };
    const deviceCount = await checkTaskDevs(this.db, { ...devs, devParams: body.devs.devParams }, scope);

    if (!body.crontab) throw fieldError(RESULT.badRequest, 'crontab', 'mandatory');
    checkSchedule(body.crontab, { now: this.now(), ...opts });
    const clash = await anyRow(
      this.db,
      plan,
      and(
        isCollection,
        eq(plan.templateId, template.id),
        inArray(plan.planStatus, LIVE),
        eq(starttimeOf, String(body.crontab.starttime)),
        opts.self ? ne(plan.id, opts.self) : undefined,
      ),
    );
    if (clash) throw fieldError(RESULT.badRequest, 'crontab.starttime', 'startTimeTaken');
    const orders = body.orders.map((o) => ({ ...o, cgcode: o.cgcode.trim(), params: {} }));
    return { template, devs, deviceCount, crontab: body.crontab, orders };
  }

  /** A collection task the caller's scope covers; anything else answers 404 (a deleted one too). */
  private async taskInScope(planId: string, scope: Scope): Promise<PlanRow> {
    const [row] = await this.db
      .select()
      .from(plan)
      .where(and(eq(plan.id, planId), visibleTasks(scope)));
    if (!row) throw notFound();
    return row;
  }

  private async requireButton(session: SessionContext, uri: string): Promise<void> {
    const uris = await permittedUris(this.db, session.userId);
    if (!uris.has(uri)) throw forbidden();
  }
}

const created = (row: PlanRow) => ({ planid: row.id, planStatus: row.planStatus as TaskState, jobId: null });

export function toTask(row: PlanRow): Task {
  const crontab = row.crontab as Crontab;
  const devs = row.devs as PlanCreate['devs'];
  const orders = row.orders as { cgcode: string }[];
  return {
    id: row.id,
    planName: row.planName,
    planTempName: row.planTempName,
    templateId: row.templateId,
    planStatus: row.planStatus as TaskState,
    enabled: row.enabled,
    nextRunAt: iso(row.nextRunAt) || null,
    executedCount: row.executedCount,
    count: crontab.count,
    starttime: new Date(crontab.starttime * 1000).toISOString(),
    freq: crontab.freq,
    unit: crontab.unit,
    repairFreq: crontab.repairConf?.repairFreq ?? 0,
    repairUnit: crontab.repairConf?.repairUnit ?? 'minute',
    repairCount: crontab.repairConf?.repairCount ?? 0,
    pri: row.pri,
    timeout: row.timeout,
    concurrent: row.concurrent,
    itemType: devs.itemType,
    devList: devs.devList ?? [],
    devParams: devs.devParams ?? {},
    items: orders.map((o) => o.cgcode),
    orders: row.orders as Task['orders'],
    deviceCount: row.deviceCount,
    createdBy: row.createdBy,
    createTime: iso(row.createTime) || null,
    updateTime: iso(row.updateTime) || null,
  };
}
