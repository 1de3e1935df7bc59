import {
  type CollectionRun,
  type GapCollect,
  MAX_GAP_DAYS,
  type PageQuery,
  RESULT,
  RESULT_CODES,
  type RunDevice,
} from '@meterdesk/contracts';
import { and, desc, eq, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/driver';
import { countAll } from '../../db/rows';
import { collectionRun, collectionRunDevice, plan } from '../../db/schema';
import { fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { gridScope, scopeOf } from '../../rbac/scope';
import type { RunRow } from './run-bookkeeping';
import { targetMeters } from './run-executor';
import { collectionItems, type RunScheduler } from './run-scheduler';
import type { TaskService } from './task.service';

const DAY_MS = 86_400_000;
type Paged = Pick<PageQuery, 'curPage' | 'pageSize'>;

/**
 * What the run pages ask, for the runs the caller sees: a task's runs, one run and its devices, and the
 * runs a user starts (run now, a gap re-collection), checked here before the scheduler records them.
 */
export class RunService {
  constructor(
    private readonly db: Db,
    private readonly scheduler: RunScheduler,
    private readonly tasks: TaskService,
  ) {}

  async runNow(planid: string, session: SessionContext) {
    return this.scheduler.runNow(await this.visibleTask(planid, session), session.username);
  }

  async list(query: Paged & { planid: string }, session: SessionContext) {
    await this.visibleTask(query.planid, session);
    const where = and(eq(collectionRun.planId, query.planid), ne(collectionRun.status, 'pending'));
    const [rows, [count]] = await Promise.all([
      this.db
        .select()
        .from(collectionRun)
        .where(where)
        .orderBy(desc(collectionRun.dueAt), desc(collectionRun.createTime))
        .limit(query.pageSize)
        .offset((query.curPage - 1) * query.pageSize),
      this.db.select({ n: countAll() }).from(collectionRun).where(where),
    ]);
    return { list: rows.map(toRun), total: count?.n ?? 0, curPage: query.curPage, pageSize: query.pageSize };
  }

  async detail(runId: string, session: SessionContext): Promise<CollectionRun> {
    return toRun(await this.visibleRun(runId, session));
  }

  /** The run's devices in the caller's scope; `failedOnly`: those that failed or still miss readings. */
  async devices(query: Paged & { runId: string; failedOnly: boolean }, session: SessionContext) {
    const run = await this.visibleRun(query.runId, session);
    const scope = await scopeOf(this.db, session);
    const where = and(
      eq(collectionRunDevice.runId, run.id),
      gridScope(scope, collectionRunDevice.gridId),
      query.failedOnly
        ? or(
            ne(collectionRunDevice.resultCode, RESULT_CODES.success),
            sql`${collectionRunDevice.received} < ${collectionRunDevice.expected}`,
          )
        : undefined,
    );
    const [rows, [count]] = await Promise.all([
      this.db
        .select()
        .from(collectionRunDevice)
        .where(where)
        .orderBy(collectionRunDevice.devAddr)
        .limit(query.pageSize)
        .offset((query.curPage - 1) * query.pageSize),
      this.db.select({ n: countAll() }).from(collectionRunDevice).where(where),
    ]);
    return {
      list: rows.map(
        (r): RunDevice => ({
          meterId: r.meterId,
          devAddr: r.devAddr,
          dcuNo: r.dcuNo,
          gridId: r.gridId,
          expected: r.expected,
          received: r.received,
          resultCode: (r.resultCode as RunDevice['resultCode']) ?? null,
          requested: r.requested,
          items: r.items as RunDevice['items'],
        }),
      ),
      total: count?.n ?? 0,
      curPage: query.curPage,
      pageSize: query.pageSize,
    };
  }

  /**
   * An operator's gap re-collection: a period of at most MAX_GAP_DAYS, not after today, of collection
   * items a run reads, for a target with a meter in the caller's scope.
   */
  async gapCollect(body: GapCollect, session: SessionContext) {
    const from = new Date(body.startTime);
    const to = new Date(body.endTime);
    if (from >= to) throw fieldError(RESULT.badRequest, 'startTime', 'timeRangeInvalid');
    const endOfToday = new Date();
    endOfToday.setUTCHours(23, 59, 59, 999);
    if (to > endOfToday) throw fieldError(RESULT.badRequest, 'endTime', 'afterToday');
    if (to.getTime() - from.getTime() > MAX_GAP_DAYS * DAY_MS)
      throw fieldError(RESULT.badRequest, 'endTime', 'timeRangeTooLong');
    const readable = new Set((await collectionItems(this.db, body.items)).map((i) => i.cgcode.toLowerCase()));
    const unknown = body.items.findIndex((i) => !readable.has(i.toLowerCase()));
    if (unknown >= 0) throw fieldError(RESULT.badRequest, `items.${unknown}`, 'unknownCollectionItem');
    const target = { kind: body.targetType, key: body.target };
    const [reached] = await targetMeters(this.db, target, await scopeOf(this.db, session)).limit(1);
    // A target outside the caller's scope reads as one that does not exist (or has no meters).
    if (!reached) throw fieldError(RESULT.badRequest, 'target', 'deviceNotFound');
    return this.scheduler.gapCollect(target, { from, to: new Date(Math.min(to.getTime(), Date.now())) }, body.items, {
      username: session.username,
      priority: 5,
      timeoutSeconds: 30,
    });
  }

  /** A task the caller sees, as taskMGT decides it (404 otherwise). */
  private async visibleTask(planid: string, session: SessionContext) {
    await this.tasks.detail(planid, session);
    const [task] = await this.db.select().from(plan).where(eq(plan.id, planid));
    if (!task) throw notFound();
    return task;
  }

  /** A run the caller sees: its task's, or a gap re-collection with a device in the caller's scope. */
  private async visibleRun(runId: string, session: SessionContext): Promise<RunRow> {
    const [run] = await this.db.select().from(collectionRun).where(eq(collectionRun.id, runId));
    if (!run) throw notFound();
    if (run.planId) await this.visibleTask(run.planId, session);
    else {
      const scope = await scopeOf(this.db, session);
      const [reached] = await this.db
        .select({ id: collectionRunDevice.meterId })
        .from(collectionRunDevice)
        .where(and(eq(collectionRunDevice.runId, run.id), gridScope(scope, collectionRunDevice.gridId)))
        .limit(1);
      if (!reached && !(scope.all || run.requestedBy === session.username)) throw notFound();
    }
    return run;
  }
}

function toRun(r: RunRow): CollectionRun {
  return {
    runId: r.id,
    planid: r.planId,
    kind: r.kind as CollectionRun['kind'],
    status: r.status as CollectionRun['status'],
    occurrence: r.occurrence,
    missed: r.missed,
    parentRunId: r.parentRunId,
    dueAt: r.dueAt.toISOString(),
    periodFrom: r.periodFrom.toISOString(),
    periodTo: r.periodTo.toISOString(),
    items: (r.items as { cgcode: string; obis: string }[]).map((i) => ({ cgcode: i.cgcode, obis: i.obis })),
    devices: r.devices,
    expected: r.expected,
    received: r.received,
    successRate: r.expected ? Math.round((1000 * r.received) / r.expected) / 10 : null,
    byCode: r.byCode as Record<string, number>,
    requests: r.requests,
    ranges: r.ranges,
    requestedBy: r.requestedBy,
    jobId: r.jobId,
    startedAt: r.startedAt?.toISOString() ?? null,
    finishedAt: r.finishedAt?.toISOString() ?? null,
  };
}
