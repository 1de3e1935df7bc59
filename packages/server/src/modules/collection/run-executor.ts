import { COLLECT_CMD, RESULT_CODES, type TaskDevs } from '@meterdesk/contracts';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/driver';
import { inSubtree } from '../../db/list';
import { collectionRun, collectionRunDevice, dcu, meter, plan, sysUser } from '../../db/schema';
import type { HeadEnd, NewCommand } from '../../headend/head-end';
import { untilDone } from '../../jobs/wait-for-wake';
import { GRID_TREE, gridScope, type Scope, scopeFields, toScope } from '../../rbac/scope';
import { TASK_RUN_SCOPE, type TaskMeter, taskMeters } from './device-set';
import { CLOCK_ITEM, type RunAnswers } from './run-answers';
import {
  DEVICES_PER_STATEMENT,
  expectedCount,
  type RunBookkeeping,
  type RunProgress,
  type RunRow,
  readPeriod,
} from './run-bookkeeping';
import { captureTimes, gapRanges, type Period, type Range, type RunItem, rangeValue } from './run-items';
import type { GapTarget, RunScheduler } from './run-scheduler';
import { storedTimes } from './stored-readings';

const TIMEOUT_RETRIES = 2;
const BUSY_RETRIES = 3;
/** How long a read waits for its offline device when no repair follows. */
const DEFAULT_WAIT_SECONDS = 1800;
const MAX_WAIT_SECONDS = 6 * 3600;

interface Ask {
  obis: string;
  range: Range;
}

/**
 * A run's job: expands the run once (its device set, and one read per meter queued through the head-end
 * with the task's priority, time-out and concurrency; a repair or gap re-collection asks only what the
 * store misses), then has each answer stored as it arrives until every read is done.
 */
export class RunExecutor {
  constructor(
    private readonly db: Db,
    private readonly headEnd: HeadEnd,
    private readonly scheduler: RunScheduler,
    private readonly answers: RunAnswers,
    private readonly bookkeeping: RunBookkeeping,
  ) {}

  /**
   * Executes a run: expands it (once: a run past `queued` is not expanded again), then stores each
   * answer as it arrives until every read is done. Everything is in the database, so after a restart
   * the job runs again and continues where it stopped; a reading stored twice is kept once.
   */
  async execute(runId: string, progress: (p: RunProgress) => Promise<void>, signal: AbortSignal) {
    await this.expand(runId);
    let last = '';
    return untilDone(
      signal,
      (wake) =>
        this.headEnd.onDone((row) => {
          if (row.runId === runId) wake();
        }),
      async () => {
        const [run] = await this.db.select().from(collectionRun).where(eq(collectionRun.id, runId));
        if (run?.status !== 'running') return { done: run ? summary(run) : null };
        const stored = await this.answers.store(run);
        const state = await this.bookkeeping.progress(run);
        const signature = JSON.stringify(state);
        if (signature !== last) await progress(state);
        last = signature;
        if (state.done >= state.total) {
          const finished = await this.bookkeeping.finish(run);
          // A repair that fell due while this run was reading starts now rather than at the next tick.
          await this.scheduler.startDueRepairs();
          return { done: summary(finished) };
        }
        return stored ? 'again' : 'wait';
      },
    );
  }

  /** The device set, what each meter is expected to deliver and what it is asked for, in one transaction. */
  private async expand(runId: string): Promise<void> {
    const queued = await this.db.transaction(async (tx) => {
      const [run] = await tx.select().from(collectionRun).where(eq(collectionRun.id, runId)).for('update');
      if (run?.status !== 'queued') return false;
      const meters = await this.runMeters(tx, run);
      const items = run.items as RunItem[];
      const period = readPeriod(run, items);
      const expectedPerMeter = expectedCount(items, period);
      let requests = 0;
      let ranges = 0;
      const waitSeconds = await this.waitSeconds(tx, run);
      for (let i = 0; i < meters.length; i += DEVICES_PER_STATEMENT) {
        const chunk = meters.slice(i, i + DEVICES_PER_STATEMENT);
        const asks =
          run.kind === 'scheduled' || run.kind === 'manual'
            ? new Map(chunk.map((m) => [m.id, fullRead(items, period)]))
            : await this.gapReads(tx, run, items, period, chunk);
        const commands: NewCommand[] = [];
        const rows = chunk.map((m) => {
          const ask = asks.get(m.id) ?? [];
          if (ask.length) {
            requests++;
            ranges += ask.length;
            commands.push(this.readCommand(run, m, ask, waitSeconds));
          }
          return {
            runId: run.id,
            meterId: m.id,
            devAddr: m.serial,
            dcuId: m.dcuId,
            dcuNo: m.dcuNo,
            gridId: m.gridId,
            expected: expectedPerMeter,
            requested: ask.length > 0,
          };
        });
        if (rows.length) await tx.insert(collectionRunDevice).values(rows).onConflictDoNothing();
        await this.headEnd.enqueue(tx, commands);
      }
      await tx
        .update(collectionRun)
        .set({
          status: 'running',
          startedAt: sql`now()`,
          devices: meters.length,
          expected: meters.length * expectedPerMeter,
          requests,
          ranges,
        })
        .where(eq(collectionRun.id, run.id));
      if (run.planId)
        await tx
          .update(plan)
          .set({ planStatus: 'executing', updateTime: sql`now()` })
          .where(and(eq(plan.id, run.planId), eq(plan.planStatus, 'waiting')));
      return true;
    });
    if (queued) this.headEnd.kick();
  }

  /** The run's meters: the task's device set, or the gap target's meters in the scope of who asked. */
  private async runMeters(tx: Executor, run: RunRow): Promise<TaskMeter[]> {
    if (run.parentRunId)
      return tx
        .select({
          id: collectionRunDevice.meterId,
          serial: collectionRunDevice.devAddr,
          dcuId: collectionRunDevice.dcuId,
          dcuNo: collectionRunDevice.dcuNo,
          gridId: collectionRunDevice.gridId,
        })
        .from(collectionRunDevice)
        .where(eq(collectionRunDevice.runId, run.parentRunId));
    if (run.planId) {
      // A task's stored device set carries its grid nodes: it expands alike whoever starts the run.
      const [task] = await tx.select({ devs: plan.devs }).from(plan).where(eq(plan.id, run.planId));
      return task ? taskMeters(tx, task.devs as TaskDevs, TASK_RUN_SCOPE) : [];
    }
    const [user] = await tx.select(scopeFields).from(sysUser).where(eq(sysUser.username, run.requestedBy));
    return targetMeters(tx, run.target as GapTarget, toScope(user));
  }

  /**
   * A read may wait for its offline device until the next repair would ask again (a minute at least,
   * also when that repair is overdue: it starts as soon as this run ends), else half an hour.
   */
  private async waitSeconds(tx: Executor, run: RunRow): Promise<number> {
    const [next] = await tx
      .select({ dueAt: collectionRun.dueAt })
      .from(collectionRun)
      .where(and(eq(collectionRun.parentRunId, run.parentRunId ?? run.id), eq(collectionRun.status, 'pending')))
      .orderBy(asc(collectionRun.dueAt))
      .limit(1);
    let seconds = next ? (next.dueAt.getTime() - Date.now()) / 1000 : DEFAULT_WAIT_SECONDS;
    if (!next && run.parentRunId) {
      // The last repair waits one repair interval past its own time, as each repair before it did.
      const [previous] = await tx
        .select({ dueAt: sql<Date>`max(${collectionRun.dueAt})` })
        .from(collectionRun)
        .where(
          and(
            sql`(${collectionRun.id} = ${run.parentRunId} or ${collectionRun.parentRunId} = ${run.parentRunId})`,
            sql`${collectionRun.dueAt} < ${run.dueAt}`,
          ),
        );
      const spacing = previous?.dueAt ? run.dueAt.getTime() - new Date(previous.dueAt).getTime() : 0;
      seconds = (run.dueAt.getTime() + spacing - Date.now()) / 1000;
    }
    return Math.round(Math.min(MAX_WAIT_SECONDS, Math.max(60, seconds)));
  }

  /**
   * Per meter, the ranges of capture times the store misses; the event log only for a meter whose last
   * read failed, or for every meter of a run standing in for a task's (GapTarget.asTask).
   */
  private async gapReads(tx: Executor, run: RunRow, items: RunItem[], period: Period, meters: TaskMeter[]) {
    const ids = meters.map((m) => m.id);
    const asks = new Map<string, Ask[]>(ids.map((id) => [id, []]));
    for (const item of items) {
      if (item.kind === 'events') continue;
      const expected = captureTimes(item.kind, period);
      if (!expected.length) continue;
      const stored = await storedTimes(tx, item.kind, ids, expected);
      for (const id of ids)
        for (const range of gapRanges(expected, stored.get(id) ?? new Set()))
          asks.get(id)?.push({ obis: item.obis, range });
    }
    const events = items.find((i) => i.kind === 'events');
    const whole = events && { obis: events.obis, range: { from: period.from.getTime(), to: period.to.getTime() } };
    if (whole && (run.target as GapTarget | null)?.asTask) for (const id of ids) asks.get(id)?.push(whole);
    else if (whole && run.parentRunId) {
      const failed = await tx
        .select({ meterId: collectionRunDevice.meterId })
        .from(collectionRunDevice)
        .where(
          and(
            inArray(
              collectionRunDevice.runId,
              sql`(select ${collectionRun.id} from ${collectionRun} where ${collectionRun.id} = ${run.parentRunId} or ${collectionRun.parentRunId} = ${run.parentRunId})`,
            ),
            inArray(collectionRunDevice.meterId, ids),
            eq(collectionRunDevice.requested, true),
          ),
        )
        .groupBy(collectionRunDevice.meterId)
        .having(sql`bool_and(coalesce(${collectionRunDevice.resultCode}, '') <> ${RESULT_CODES.success})`);
      for (const { meterId } of failed) asks.get(meterId)?.push(whole);
    }
    return asks;
  }

  private readCommand(run: RunRow, m: TaskMeter, asks: Ask[], waitSeconds: number): NewCommand {
    return {
      planId: null,
      runId: run.id,
      deviceKind: 'meter',
      deviceKey: m.serial,
      viaDcu: m.dcuNo,
      meterId: m.id,
      dcuId: m.dcuId,
      gridId: m.gridId,
      operation: COLLECT_CMD,
      command: {
        op: 'get',
        items: [
          ...asks.map((a) => ({ obis: a.obis, classId: 7, attribute: 2, value: rangeValue(a.range) })),
          ...((run.target as GapTarget | null)?.asTask ? [CLOCK_ITEM] : []),
        ],
      },
      priority: run.priority,
      bulk: true,
      routeLimit: run.concurrency,
      timeoutSeconds: run.timeoutSeconds,
      expiresInSeconds: waitSeconds,
      // Offline: wait for the device to come back rather than fail at once; time-outs back off.
      waitOnline: true,
      maxTimeoutRetries: TIMEOUT_RETRIES,
      maxBusyRetries: BUSY_RETRIES,
      requestedBy: run.requestedBy,
      audited: false,
    };
  }
}

const summary = (run: RunRow) => ({
  runId: run.id,
  status: run.status,
  devices: run.devices,
  expected: run.expected,
  received: run.received,
  byCode: run.byCode,
});

/** A scheduled run asks each meter for the whole period of each item. */
function fullRead(items: RunItem[], period: Period): Ask[] {
  return items.flatMap((item) => {
    if (item.kind === 'events')
      return [{ obis: item.obis, range: { from: period.from.getTime(), to: period.to.getTime() } }];
    const times = captureTimes(item.kind, period);
    const first = times[0];
    const last = times.at(-1);
    return first !== undefined && last !== undefined ? [{ obis: item.obis, range: { from: first, to: last } }] : [];
  });
}

/** A gap re-collection's meters: the meter, a DCU's meters or a grid node's subtree, within the scope. */
export function targetMeters(db: Executor, target: GapTarget, scope: Scope) {
  const where =
    target.kind === 'meter'
      ? eq(sql`lower(${meter.devAddr})`, target.key.toLowerCase())
      : target.kind === 'dcu'
        ? eq(sql`lower(${dcu.dcuNo})`, target.key.toLowerCase())
        : inSubtree(meter.gridId, GRID_TREE, target.key);
  return db
    .select({ id: meter.id, serial: meter.devAddr, dcuId: meter.dcuId, dcuNo: dcu.dcuNo, gridId: meter.gridId })
    .from(meter)
    .leftJoin(dcu, eq(dcu.id, meter.dcuId))
    .where(and(where, gridScope(scope, meter.gridId)));
}
