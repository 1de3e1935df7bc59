import { type CollectionRun, MAX_GAP_DAYS, RESULT, RESULT_CODES, type RunDevice, runApi } from '@meterdesk/contracts';
import { and, desc, eq, inArray, ne, or, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { inSubtree } from '../../db/list';
import { countAll } from '../../db/rows';
import { collectionRun, collectionRunDevice, dcu, meter, obisItem, plan } from '../../db/schema';
import { fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { registerOperation } from '../../http/operation';
import { GRID_TREE, gridScope, scopeOf } from '../../rbac/scope';
import type { CollectionRuns, RunRow } from './run.service';
import { ITEM_KINDS } from './run-items';
import type { TaskService } from './task.service';

const DAY_MS = 86_400_000;

export function registerRunRoutes(
  app: FastifyInstance,
  deps: { db: Db; runs: CollectionRuns; tasks: TaskService },
): void {
  const { db, runs, tasks } = deps;

  /** A task the caller sees, as taskMGT decides it (404 otherwise). */
  const visibleTask = async (planid: string, session: SessionContext) => {
    await tasks.detail(planid, session);
    const [task] = await db.select().from(plan).where(eq(plan.id, planid));
    if (!task) throw notFound();
    return task;
  };

  /** A run the caller sees: its task's, or a gap re-collection with a device in the caller's scope. */
  const visibleRun = async (runId: string, session: SessionContext): Promise<RunRow> => {
    const [run] = await db.select().from(collectionRun).where(eq(collectionRun.id, runId));
    if (!run) throw notFound();
    if (run.planId) await visibleTask(run.planId, session);
    else {
      const scope = await scopeOf(db, session);
      const [reached] = await db
        .select({ id: collectionRunDevice.meterId })
        .from(collectionRunDevice)
        .where(and(eq(collectionRunDevice.runId, run.id), gridScope(scope, collectionRunDevice.gridId)))
        .limit(1);
      if (!reached && !(scope.all || run.requestedBy === session.username)) throw notFound();
    }
    return run;
  };

  registerOperation(app, runApi.runnow, async ({ body, session }) => {
    const task = await visibleTask(body.planid, session);
    return runs.runNow(task, session.username);
  });

  registerOperation(app, runApi.runs, async ({ body, session }) => {
    await visibleTask(body.planid, session);
    const where = and(eq(collectionRun.planId, body.planid), ne(collectionRun.status, 'pending'));
    const [rows, [count]] = await Promise.all([
      db
        .select()
        .from(collectionRun)
        .where(where)
        .orderBy(desc(collectionRun.dueAt), desc(collectionRun.createTime))
        .limit(body.pageSize)
        .offset((body.curPage - 1) * body.pageSize),
      db.select({ n: countAll() }).from(collectionRun).where(where),
    ]);
    return { list: rows.map(toRun), total: count?.n ?? 0, curPage: body.curPage, pageSize: body.pageSize };
  });

  registerOperation(app, runApi.run, async ({ body, session }) => toRun(await visibleRun(body.runId, session)));

  registerOperation(app, runApi.runDevices, async ({ body, session }) => {
    const run = await visibleRun(body.runId, session);
    const scope = await scopeOf(db, session);
    const where = and(
      eq(collectionRunDevice.runId, run.id),
      gridScope(scope, collectionRunDevice.gridId),
      body.failedOnly
        ? or(
            ne(collectionRunDevice.resultCode, RESULT_CODES.success),
            sql`${collectionRunDevice.received} < ${collectionRunDevice.expected}`,
          )
        : undefined,
    );
    const [rows, [count]] = await Promise.all([
      db
        .select()
        .from(collectionRunDevice)
        .where(where)
        .orderBy(collectionRunDevice.devAddr)
        .limit(body.pageSize)
        .offset((body.curPage - 1) * body.pageSize),
      db.select({ n: countAll() }).from(collectionRunDevice).where(where),
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
      curPage: body.curPage,
      pageSize: body.pageSize,
    };
  });

  registerOperation(app, runApi.gapCollect, async ({ body, session }) => {
    const from = new Date(body.startTime);
    const to = new Date(body.endTime);
    if (from >= to) throw fieldError(RESULT.badRequest, 'startTime', 'timeRangeInvalid');
    const endOfToday = new Date();
    endOfToday.setUTCHours(23, 59, 59, 999);
    if (to > endOfToday) throw fieldError(RESULT.badRequest, 'endTime', 'afterToday');
    if (to.getTime() - from.getTime() > MAX_GAP_DAYS * DAY_MS)
      throw fieldError(RESULT.badRequest, 'endTime', 'timeRangeTooLong');
    const known = await db
      .select({ cgName: obisItem.cgName, obis: obisItem.obis })
      .from(obisItem)
      .where(
        inArray(
          sql`lower(${obisItem.cgName})`,
          body.items.map((i) => i.toLowerCase()),
        ),
      );
    const readable = new Set(known.filter((k) => ITEM_KINDS[k.obis]).map((k) => k.cgName.toLowerCase()));
    const unknown = body.items.findIndex((i) => !readable.has(i.toLowerCase()));
    if (unknown >= 0) throw fieldError(RESULT.badRequest, `items.${unknown}`, 'unknownCollectionItem');
    const scope = await scopeOf(db, session);
    const [reached] = await db
      .select({ id: meter.id })
      .from(meter)
      .leftJoin(dcu, eq(dcu.id, meter.dcuId))
      .where(
        and(
          body.targetType === 'meter'
            ? eq(sql`lower(${meter.devAddr})`, body.target.toLowerCase())
            : body.targetType === 'dcu'
              ? eq(sql`lower(${dcu.dcuNo})`, body.target.toLowerCase())
              : inSubtree(meter.gridId, GRID_TREE, body.target),
          gridScope(scope, meter.gridId),
        ),
      )
      .limit(1);
    // A target outside the caller's scope reads as one that does not exist (or has no meters).
    if (!reached) throw fieldError(RESULT.badRequest, 'target', 'deviceNotFound');
    return runs.gapCollect(
      { kind: body.targetType, key: body.target },
      { from, to: new Date(Math.min(to.getTime(), Date.now())) },
      body.items,
      { username: session.username, priority: 5, timeoutSeconds: 30 },
    );
  });
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
