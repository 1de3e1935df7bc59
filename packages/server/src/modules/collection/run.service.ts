import {
  COLLECT_CMD,
  DeviceEventSchema,
  DeviceProfileRowSchema,
  nextOccurrence,
  OBIS,
  occurrenceAt,
  RESULT_CODES,
  type TaskDevs,
} from '@meterdesk/contracts';
import { and, asc, eq, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Executor } from '../../db/driver';
import { newId, stableId } from '../../db/ids';
import { inSubtree } from '../../db/list';
import {
  collectionRun,
  collectionRunDevice,
  dcu,
  deviceCommand,
  meter,
  obisItem,
  plan,
  readingDaily,
  readingMonthly,
  readingProfile,
  sysUser,
} from '../../db/schema';
import type { CommandRow, HeadEnd, NewCommand } from '../../headend/head-end';
import type { JobSystem } from '../../jobs/job-system';
import { untilDone } from '../../jobs/wait-for-wake';
import { GRID_TREE, gridScope, type Scope, scopeFields, toScope } from '../../rbac/scope';
import type { ReadingIngest } from '../../readings/ingest';
import {
  type ClockCheckRow,
  dailyRows,
  meterEventRows,
  monthlyRows,
  profileRows,
  type ReadingBatch,
} from '../../readings/rows';
import { TASK_RUN_SCOPE, type TaskMeter, taskMeters } from './device-set';
import {
  captureTimes,
  gapRanges,
  ITEM_KINDS,
  type ItemKind,
  latestOccurrenceIndex,
  MAX_PROFILE_SPAN_MS,
  occurrencePeriod,
  type Period,
  type Range,
  type RunItem,
  rangeValue,
  repairTimes,
  storedKey,
  type TaskCrontab,
} from './run-items';
import { writeRunKpi } from './run-kpi';

export const COLLECTION_RUN_JOB = 'collection-run';
export const COLLECTION_DUE_JOB = 'collection-due';

export type RunRow = typeof collectionRun.$inferSelect;
type RunKind = 'scheduled' | 'repair' | 'manual' | 'gap' | 'history';
type PlanRow = typeof plan.$inferSelect;

/** What a gap re-collection reads from: a meter (serial), a DCU (number) or a grid node (id). */
export interface GapTarget {
  kind: 'meter' | 'dcu' | 'grid';
  key: string;
  /**
   * The run stands in for a task's own runs of the period (the demo's history): it reads every meter's
   * event log over the period as a scheduled run does (a gap re-collection cannot tell what a log misses),
   * and checks each meter's clock in the same read.
   */
  asTask?: true;
}

/** Devices expanded, readings stored and counted per statement. */
const CHUNK = 500;
/**
 * Readings a round of stored answers may hold: a month of a meter's profile is 2,880 rows, and 500 such
 * answers at once were one push of a month of the whole demo fleet that held PGlite (and so every
 * login) for 15 s. A daily run's answers (97 rows) still go 500 at a time.
 */
const ANSWER_ROWS_PER_ROUND = 50_000;
/** A queued run whose job has not started after this long is sent again (the send after its commit was lost). */
const RESEND_AFTER_SECONDS = 60;
const TIMEOUT_RETRIES = 2;
/** A job in one of these states never runs its handler again. */
const ENDED_JOB_STATES: ReadonlySet<string> = new Set(['completed', 'cancelled', 'failed']);
const BUSY_RETRIES = 3;
/** How long a read waits for its offline device when no repair follows. */
const DEFAULT_WAIT_SECONDS = 1800;
const MAX_WAIT_SECONDS = 6 * 3600;

/** A UUID of a run's 32-hex id: the run's job id, so a run is queued once however often it is sent. */
export const runJobId = (id: string) =>
  `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;

/**
 * Collection runs: the scheduler turns due occurrences of enabled tasks into runs (one transaction
 * with the task's advance), each run expands its device set once, queues one read per meter through
 * the head-end (bulk, the task's priority, time-out and concurrency) and stores what comes back
 * through the reading writer. Repairs re-read only what the store still misses of the run's period.
 */
export class CollectionRuns {
  constructor(
    private readonly db: Db,
    private readonly headEnd: HeadEnd,
    private readonly jobs: JobSystem,
    /** Answers go through the one readings pipeline, like pushed values: `push` resolves once they are stored. */
    private readonly ingest: Pick<ReadingIngest, 'push'>,
    /** Asks for the rollups to fold what a finished run stored (readings/rollups.ts foldSoon). */
    private readonly foldSoon: () => void = () => {},
  ) {}

  /**
   * The scheduler's tick. A task due several times over (the server was down) runs its latest due
   * occurrence only; the ones before it are counted as missed on that run, never fired in a storm —
   * their periods are left to repairs and gap re-collection. Then due repairs start, each after the
   * run before it in its chain has finished.
   */
  async tick(now = new Date()): Promise<string[]> {
    const due = await this.db
      .select({ id: plan.id })
      .from(plan)
      .where(and(eq(plan.kind, 'collection'), eq(plan.enabled, true), lte(plan.nextRunAt, now)));
    const queued: RunRow[] = [];
    for (const { id } of due) {
      const run = await this.db.transaction((tx) => this.recordOccurrence(tx, id, now));
      if (run) queued.push(run);
    }
    await this.closeAbandoned();
    queued.push(...(await this.releaseRepairs(now)));
    queued.push(...(await this.db.select().from(collectionRun).where(staleQueued())));
    for (const run of uniqueRuns(queued)) await this.send(run, null);
    return queued.map((r) => r.id);
  }

  private async recordOccurrence(tx: Executor, planId: string, now: Date): Promise<RunRow | null> {
    const [task] = await tx.select().from(plan).where(eq(plan.id, planId)).for('update');
    if (!task?.enabled || !task.nextRunAt || task.nextRunAt > now || task.planStatus === 'deleted') return null;
    const crontab = task.crontab as TaskCrontab;
    let latest = task.executedCount;
    while (crontab.freq > 0 && latest + 1 < crontab.count && occurrenceAt(crontab, latest + 1) <= now) latest++;
    const at = occurrenceAt(crontab, latest);
    const run = await this.insertRun(tx, task, 'scheduled', occurrencePeriod(crontab, latest), at, {
      occurrence: latest,
      missed: latest - task.executedCount,
    });
    await tx
      .update(plan)
      .set({ executedCount: latest + 1, nextRunAt: nextOccurrence(crontab, latest + 1), updateTime: sql`now()` })
      .where(eq(plan.id, planId));
    return run;
  }

  /** What every run of a task carries from the task, for one period. */
  private async runOf(tx: Executor, task: PlanRow, period: Period) {
    return {
      planId: task.id,
      periodFrom: period.from,
      periodTo: period.to,
      items: await this.itemsOf(tx, task.orders),
      priority: task.pri,
      timeoutSeconds: task.timeout,
      concurrency: task.concurrent,
    };
  }

  /** A run of a task with its repairs (pending until due). */
  private async insertRun(
    tx: Executor,
    task: PlanRow,
    kind: RunKind,
    period: Period,
    at: Date,
    extra: { occurrence?: number; missed?: number; requestedBy?: string } = {},
  ): Promise<RunRow> {
    const common = {
      ...(await this.runOf(tx, task, period)),
      requestedBy: extra.requestedBy ?? task.createdBy,
    };
    const [run] = await tx
      .insert(collectionRun)
      .values({
        ...common,
        id: newId(),
        kind,
        status: 'queued',
        dueAt: at,
        occurrence: extra.occurrence ?? null,
        missed: extra.missed ?? 0,
      })
      .returning();
    if (!run) throw new Error('collection run not recorded');
    const repairs = repairTimes(at, (task.crontab as TaskCrontab).repairConf);
    if (repairs.length)
      await tx.insert(collectionRun).values(
        repairs.map((dueAt) => ({
          ...common,
          id: newId(),
          kind: 'repair',
          status: 'pending',
          dueAt,
          parentRunId: run.id,
          requestedBy: task.createdBy,
        })),
      );
    return run;
  }

  /** Collection items of a task's orders: the profile objects named by their cgName. */
  private async itemsOf(tx: Executor, orders: unknown): Promise<RunItem[]> {
    const codes = ((orders as { cgcode?: string }[]) ?? []).map((o) => o.cgcode).filter((c): c is string => !!c);
    if (!codes.length) return [];
    const rows = await tx
      .select({ cgcode: obisItem.cgName, obis: obisItem.obis })
      .from(obisItem)
      .where(
        inArray(
          sql`lower(${obisItem.cgName})`,
          codes.map((c) => c.toLowerCase()),
        ),
      );
    return rows.flatMap((r) => {
      const kind = ITEM_KINDS[r.obis];
      return kind ? [{ cgcode: r.cgcode, obis: r.obis, kind }] : [];
    });
  }

  /**
   * Runs whose job has ended without closing them (its retries spent, or the job gone): nothing would ever move them
   * again, so they are closed with what the store holds and their unanswered devices count as a server
   * time-out (50). Their task leaves "executing" and their repairs, released next, re-read what is missing.
   */
  private async closeAbandoned(): Promise<void> {
    const open = await this.db
      .select()
      .from(collectionRun)
      .where(and(inArray(collectionRun.status, ['queued', 'running']), isNotNull(collectionRun.jobId)));
    for (const run of open) {
      const job = await this.jobs.getJob(run.jobId as string);
      if (job && !ENDED_JOB_STATES.has(job.state)) continue;
      if (run.status === 'queued') {
        await this.db
          .update(collectionRun)
          .set({ status: 'cancelled', finishedAt: sql`now()` })
          .where(and(eq(collectionRun.id, run.id), eq(collectionRun.status, 'queued')));
        continue;
      }
      await this.db
        .update(collectionRunDevice)
        .set({ resultCode: RESULT_CODES.serverTimeout })
        .where(
          and(
            eq(collectionRunDevice.runId, run.id),
            eq(collectionRunDevice.requested, true),
            isNull(collectionRunDevice.resultCode),
          ),
        );
      await this.finish(run);
    }
  }

  /** Due repairs whose chain has no run still open; a repair of a deleted task is cancelled. */
  private async releaseRepairs(now: Date): Promise<RunRow[]> {
    const due = await this.db
      .select()
      .from(collectionRun)
      .where(and(eq(collectionRun.status, 'pending'), lte(collectionRun.dueAt, now)))
      .orderBy(asc(collectionRun.dueAt));
    const released: RunRow[] = [];
    for (const run of due) {
      const [task] = run.planId
        ? await this.db.select({ status: plan.planStatus }).from(plan).where(eq(plan.id, run.planId))
        : [];
      if (!task || task.status === 'deleted') {
        await this.db.update(collectionRun).set({ status: 'cancelled' }).where(eq(collectionRun.id, run.id));
        continue;
      }
      const [open] = await this.db
        .select({ id: collectionRun.id })
        .from(collectionRun)
        .where(
          and(
            sql`(${collectionRun.id} = ${run.parentRunId} or ${collectionRun.parentRunId} = ${run.parentRunId})`,
            sql`${collectionRun.id} <> ${run.id}`,
            sql`(${collectionRun.status} in ('queued', 'running') or (${collectionRun.status} = 'pending' and ${collectionRun.dueAt} < ${run.dueAt}))`,
          ),
        )
        .limit(1);
      if (open) continue;
      const [queued] = await this.db
        .update(collectionRun)
        .set({ status: 'queued' })
        .where(and(eq(collectionRun.id, run.id), eq(collectionRun.status, 'pending')))
        .returning();
      if (queued) released.push(queued);
    }
    return released;
  }

  private async send(run: RunRow, startedBy: string | null): Promise<string> {
    const jobId = await this.jobs.send(
      COLLECTION_RUN_JOB,
      { runId: run.id },
      { id: runJobId(run.id), ...(startedBy ? { startedBy } : {}) },
    );
    if (run.jobId !== jobId) await this.db.update(collectionRun).set({ jobId }).where(eq(collectionRun.id, run.id));
    return jobId;
  }

  /**
   * Run now: a manual occurrence covering the period the task's latest occurrence (at or before now)
   * covers; it does not count as one of the task's executions. Its progress goes to `startedBy`.
   */
  async runNow(task: PlanRow, username: string): Promise<{ runId: string; jobId: string }> {
    const crontab = task.crontab as TaskCrontab;
    const index = latestOccurrenceIndex(crontab, new Date());
    const run = await this.db.transaction((tx) =>
      this.insertRun(tx, task, 'manual', occurrencePeriod(crontab, index), new Date(), { requestedBy: username }),
    );
    return { runId: run.id, jobId: await this.send(run, username) };
  }

  /**
   * An operator's gap re-collection: re-reads only what the store misses of the period for the target's
   * meters. With `runId`, a run of that id already recorded is the one answered (and its job sent again).
   */
  async gapCollect(
    target: GapTarget,
    period: Period,
    items: readonly string[],
    options: { username: string; priority: number; timeoutSeconds: number; runId?: string },
  ): Promise<{ runId: string; jobId: string }> {
    const run = await this.db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(collectionRun)
        .values({
          id: options.runId ?? newId(),
          kind: 'gap',
          status: 'queued',
          dueAt: new Date(),
          periodFrom: period.from,
          periodTo: period.to,
          items: await this.itemsOf(
            tx,
            items.map((cgcode) => ({ cgcode })),
          ),
          target,
          priority: options.priority,
          timeoutSeconds: options.timeoutSeconds,
          requestedBy: options.username,
        })
        .onConflictDoNothing()
        .returning();
      const [known] =
        inserted || !options.runId
          ? [inserted]
          : await tx.select().from(collectionRun).where(eq(collectionRun.id, options.runId));
      if (!known) throw new Error('gap re-collection not recorded');
      return known;
    });
    return { runId: run.id, jobId: await this.send(run, options.username) };
  }

  /**
   * Records what earlier runs (the demo's history fill) stored as a task's runs of kind history: one per
   * occurrence of its crontab in the `days` before its first (negative indices: the task did not exist
   * yet) that is due by now, so the task's runs list and task analysis show the days collected for it.
   * Each run's meters are those the earlier runs read, with the code each answered; its counts are what
   * the store holds for its period, as a finished run's are. Stable ids: recording again adds nothing.
   */
  async recordHistory(planId: string, sourceRunIds: readonly string[], days: number): Promise<number> {
    const [task] = await this.db.select().from(plan).where(eq(plan.id, planId));
    if (!task || !sourceRunIds.length) return 0;
    const crontab = task.crontab as TaskCrontab;
    let recorded = 0;
    for (let index = -days; index < 0; index++) {
      const dueAt = occurrenceAt(crontab, index);
      if (dueAt > new Date()) break;
      const run = await this.db.transaction(async (tx) => {
        const fields = await this.runOf(tx, task, occurrencePeriod(crontab, index));
        const items = fields.items;
        const [inserted] = await tx
          .insert(collectionRun)
          .values({
            ...fields,
            id: stableId(`history:${planId}:${index}`),
            kind: 'history',
            status: 'running',
            occurrence: index,
            dueAt,
            requestedBy: task.createdBy,
            startedAt: sql`now()`,
          })
          .onConflictDoNothing()
          .returning();
        if (!inserted) return null;
        const expected = expectedCount(items, readPeriod(inserted, items));
        await tx.execute(sql`
          insert into ${collectionRunDevice} (run_id, meter_id, dev_addr, dcu_id, dcu_no, grid_id, expected, result_code, requested)
          select distinct on (d.meter_id) ${inserted.id}, d.meter_id, d.dev_addr, d.dcu_id, d.dcu_no, d.grid_id,
            ${expected}, d.result_code, true
          from ${collectionRunDevice} d
          where d.run_id in (${sql.join(
            sourceRunIds.map((id) => sql`${id}`),
            sql`, `,
          )}) and d.requested
          order by d.meter_id`);
        const [counted] = await tx
          .update(collectionRun)
          .set({
            devices: sql`(select count(*)::int from ${collectionRunDevice} where run_id = ${inserted.id})`,
            expected: sql`(select coalesce(sum(expected), 0)::int from ${collectionRunDevice} where run_id = ${inserted.id})`,
          })
          .where(eq(collectionRun.id, inserted.id))
          .returning();
        return counted ?? null;
      });
      if (!run) continue;
      await this.finish(run);
      recorded++;
    }
    return recorded;
  }

  // ---- the run's job ----

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
        const stored = await this.storeAnswers(run);
        const state = await this.progressOf(run);
        const signature = JSON.stringify(state);
        if (signature !== last) await progress(state);
        last = signature;
        if (state.done >= state.total) {
          const finished = await this.finish(run);
          // A repair that fell due while this run was reading starts now rather than at the next tick.
          for (const next of await this.releaseRepairs(new Date())) await this.send(next, null);
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
      for (let i = 0; i < meters.length; i += CHUNK) {
        const chunk = meters.slice(i, i + CHUNK);
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

  /** Answers of finished reads not yet stored: their readings, then their devices' counts and result codes. */
  private async storeAnswers(run: RunRow): Promise<number> {
    const done = await this.db
      .select({ meterId: collectionRunDevice.meterId, command: deviceCommand })
      .from(collectionRunDevice)
      .innerJoin(
        deviceCommand,
        and(
          eq(deviceCommand.runId, collectionRunDevice.runId),
          eq(deviceCommand.meterId, collectionRunDevice.meterId),
          eq(deviceCommand.operation, COLLECT_CMD),
        ),
      )
      .where(
        and(
          eq(collectionRunDevice.runId, run.id),
          eq(collectionRunDevice.requested, true),
          isNull(collectionRunDevice.resultCode),
          eq(deviceCommand.state, 'done'),
        ),
      )
      .limit(answersPerRound(run));
    if (!done.length) return 0;
    // One push per answer: the ingest gathers them into flushes of its own size, whereas one push of the
    // round would be one transaction of up to ANSWER_ROWS_PER_ROUND rows that every other query waits for.
    await Promise.all(
      done.map(({ meterId, command }) => {
        const batch: AnswerBatch = { profile: [], daily: [], monthly: [], meterEvents: [], clockChecks: [] };
        addAnswer(batch, meterId, command);
        return this.ingest.push(batch);
      }),
    );
    await this.recount(
      run,
      done.map((d) => d.meterId),
      new Map(done.map((d) => [d.meterId, d.command.resultCode ?? RESULT_CODES.serverTimeout])),
    );
    return done.length;
  }

  /** Each meter's received count per item from the store, so a value the device pushed counts too. */
  private async recount(run: RunRow, meterIds: string[], codes: Map<string, string> = new Map()): Promise<void> {
    const items = run.items as RunItem[];
    const period = readPeriod(run, items);
    const perItem = new Map<string, Map<string, number>>();
    for (const item of items) {
      if (item.kind === 'events') continue;
      const expected = captureTimes(item.kind, period);
      perItem.set(
        item.cgcode,
        expected.length ? await storedCounts(this.db, item.kind, meterIds, expected) : new Map(),
      );
    }
    const rows = meterIds.map((meterId) => {
      const counted = items.map((item) => ({
        cgcode: item.cgcode,
        expected: item.kind === 'events' ? 0 : captureTimes(item.kind, period).length,
        received: perItem.get(item.cgcode)?.get(meterId) ?? 0,
      }));
      return {
        meter_id: meterId,
        received: counted.reduce((sum, c) => sum + c.received, 0),
        items: counted,
        code: codes.get(meterId) ?? null,
      };
    });
    await this.db.execute(sql`
      update ${collectionRunDevice} d
      set received = v.received, items = v.items, result_code = coalesce(v.code, d.result_code)
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(meter_id text, received int, items jsonb, code text)
      where d.run_id = ${run.id} and d.meter_id = v.meter_id`);
  }

  private async progressOf(run: RunRow): Promise<RunProgress> {
    const [counts] = await this.db
      .select({
        total: sql<number>`count(*) filter (where ${collectionRunDevice.requested})::int`,
        done: sql<number>`count(*) filter (where ${collectionRunDevice.requested} and ${collectionRunDevice.resultCode} is not null)::int`,
        received: sql<number>`coalesce(sum(${collectionRunDevice.received}), 0)::int`,
      })
      .from(collectionRunDevice)
      .where(eq(collectionRunDevice.runId, run.id));
    return {
      runId: run.id,
      done: counts?.done ?? 0,
      total: counts?.total ?? 0,
      expected: run.expected,
      received: counts?.received ?? 0,
    };
  }

  /** Counts every device again (readings pushed meanwhile count), closes the run and settles its task's state. */
  private async finish(run: RunRow): Promise<RunRow> {
    for (let offset = 0; ; offset += CHUNK) {
      const page = await this.db
        .select({ meterId: collectionRunDevice.meterId })
        .from(collectionRunDevice)
        .where(eq(collectionRunDevice.runId, run.id))
        .orderBy(collectionRunDevice.meterId)
        .limit(CHUNK)
        .offset(offset);
      if (!page.length) break;
      await this.recount(
        run,
        page.map((p) => p.meterId),
      );
    }
    const codes = await this.db
      .select({ code: collectionRunDevice.resultCode, n: sql<number>`count(*)::int` })
      .from(collectionRunDevice)
      .where(and(eq(collectionRunDevice.runId, run.id), eq(collectionRunDevice.requested, true)))
      .groupBy(collectionRunDevice.resultCode);
    const [totals] = await this.db
      .select({ received: sql<number>`coalesce(sum(${collectionRunDevice.received}), 0)::int` })
      .from(collectionRunDevice)
      .where(eq(collectionRunDevice.runId, run.id));
    const [finished] = await this.db
      .update(collectionRun)
      .set({
        status: 'finished',
        finishedAt: sql`now()`,
        received: totals?.received ?? 0,
        byCode: Object.fromEntries(codes.map((c) => [c.code ?? '', Number(c.n)])),
      })
      .where(and(eq(collectionRun.id, run.id), eq(collectionRun.status, 'running')))
      .returning();
    // A task's occurrence: what task analysis reads of it, now with this run's reads.
    if (finished && run.planId) await this.db.transaction((tx) => writeRunKpi(tx, run.parentRunId ?? run.id));
    if (finished) this.foldSoon();
    if (run.planId)
      await this.db.execute(sql`
        update ${plan} set plan_status = case
            when ${plan.nextRunAt} is null and ${plan.executedCount} >= coalesce((${plan.crontab} ->> 'count')::int, 0)
            then 'finished' else 'waiting' end,
          update_time = now()
        where ${plan.id} = ${run.planId} and ${plan.planStatus} = 'executing'
          and not exists (select 1 from ${collectionRun} r where r.plan_id = ${run.planId} and r.status = 'running')`);
    return finished ?? run;
  }
}

export interface RunProgress {
  runId: string;
  done: number;
  total: number;
  expected: number;
  received: number;
  [detail: string]: unknown;
}

interface Ask {
  obis: string;
  range: Range;
}

const summary = (run: RunRow) => ({
  runId: run.id,
  status: run.status,
  devices: run.devices,
  expected: run.expected,
  received: run.received,
  byCode: run.byCode,
});

/** Answers stored in one round: as many as keep its readings within ANSWER_ROWS_PER_ROUND. */
function answersPerRound(run: RunRow): number {
  const perMeter = run.devices > 0 ? run.expected / run.devices : 0;
  return Math.max(1, Math.min(CHUNK, Math.floor(ANSWER_ROWS_PER_ROUND / Math.max(1, perMeter))));
}

function uniqueRuns(runs: RunRow[]): RunRow[] {
  return [...new Map(runs.map((r) => [r.id, r])).values()];
}

const staleQueued = () =>
  and(
    eq(collectionRun.status, 'queued'),
    sql`${collectionRun.createTime} < now() - make_interval(secs => ${RESEND_AFTER_SECONDS})`,
  );

/** The period a run reads, intervals limited to the last 31 days of it (what one read may ask). */
function readPeriod(run: RunRow, items: RunItem[]): Period {
  const to = run.periodTo;
  const span = to.getTime() - run.periodFrom.getTime();
  if (items.some((i) => i.kind === 'profile') && span > MAX_PROFILE_SPAN_MS)
    return { from: new Date(to.getTime() - MAX_PROFILE_SPAN_MS), to };
  return { from: run.periodFrom, to };
}

function expectedCount(items: RunItem[], period: Period): number {
  return items.reduce((sum, item) => sum + (item.kind === 'events' ? 0 : captureTimes(item.kind, period).length), 0);
}

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

const TABLES = {
  profile: { table: readingProfile, key: readingProfile.ts, meter: readingProfile.meterId },
  daily: { table: readingDaily, key: readingDaily.day, meter: readingDaily.meterId },
  monthly: { table: readingMonthly, key: readingMonthly.month, meter: readingMonthly.meterId },
} as const;

/** The stored capture times (as the grid's times) of each meter within the expected ones. */
async function storedTimes(db: Executor, kind: Exclude<ItemKind, 'events'>, meterIds: string[], expected: number[]) {
  const { table, key, meter: meterColumn } = TABLES[kind];
  const byKey = new Map(expected.map((ts) => [storedKey(kind, ts), ts]));
  const first = expected[0] as number;
  const last = expected.at(-1) as number;
  const rows = await db
    .select({ meterId: meterColumn, key: sql<string>`${key}` })
    .from(table)
    .where(and(inArray(meterColumn, meterIds), keyBetween(kind, first, last)));
  const out = new Map<string, Set<number>>();
  for (const row of rows) {
    const ts = byKey.get(kind === 'profile' ? new Date(row.key).toISOString() : String(row.key).slice(0, 10));
    if (ts === undefined) continue;
    const set = out.get(row.meterId) ?? new Set<number>();
    set.add(ts);
    out.set(row.meterId, set);
  }
  return out;
}

async function storedCounts(db: Executor, kind: Exclude<ItemKind, 'events'>, meterIds: string[], expected: number[]) {
  const { table, meter: meterColumn } = TABLES[kind];
  const rows = await db
    .select({ meterId: meterColumn, n: sql<number>`count(*)::int` })
    .from(table)
    .where(
      and(
        inArray(meterColumn, meterIds),
        keyBetween(kind, expected[0] as number, expected.at(-1) as number),
        kind === 'profile' ? sql`extract(epoch from ${readingProfile.ts})::bigint % ${15 * 60} = 0` : undefined,
      ),
    )
    .groupBy(meterColumn);
  return new Map(rows.map((r) => [r.meterId, Number(r.n)]));
}

function keyBetween(kind: Exclude<ItemKind, 'events'>, first: number, last: number) {
  if (kind === 'profile')
    return and(
      sql`${readingProfile.ts} >= ${new Date(first).toISOString()}`,
      sql`${readingProfile.ts} <= ${new Date(last).toISOString()}`,
    );
  const { key } = TABLES[kind];
  return and(sql`${key} >= ${storedKey(kind, first)}`, sql`${key} <= ${storedKey(kind, last)}`);
}

const ProfileAnswer = z.array(DeviceProfileRowSchema);
const EventAnswer = z.array(DeviceEventSchema);
/** A meter's clock, read with a run standing in for a task's (GapTarget.asTask): its clock check. */
const CLOCK_ITEM = { obis: OBIS.clock, classId: 8, attribute: 2 };
type AnswerBatch = Required<Pick<ReadingBatch, 'profile' | 'daily' | 'monthly' | 'meterEvents' | 'clockChecks'>>;

/** The readings of a read's answer, item by item; an item that failed or does not parse adds nothing. */
function addAnswer(batch: AnswerBatch, meterId: string, command: CommandRow): void {
  const items = (command.answer as { items?: { obis: string; code?: string; value?: unknown }[] } | null)?.items ?? [];
  for (const item of items) {
    if (item.code && item.code !== RESULT_CODES.success) continue;
    if (item.obis === CLOCK_ITEM.obis) {
      const check = clockCheckOf(meterId, item.value, command);
      if (check) batch.clockChecks.push(check);
      continue;
    }
    const kind = ITEM_KINDS[item.obis];
    if (kind === 'events') {
      const events = EventAnswer.safeParse(item.value);
      if (events.success) batch.meterEvents.push(...meterEventRows(meterId, events.data));
      continue;
    }
    const rows = ProfileAnswer.safeParse(item.value);
    if (!rows.success) continue;
    if (kind === 'profile') batch.profile.push(...profileRows(meterId, rows.data));
    if (kind === 'daily') batch.daily.push(...dailyRows(meterId, rows.data));
    if (kind === 'monthly') batch.monthly.push(...monthlyRows(meterId, rows.data));
  }
}

/**
 * The clock check of a clock read: how far the device's time was from the head-end's when it answered,
 * taken midway between the command leaving and its answer arriving (the answer's trip is unknown).
 */
function clockCheckOf(meterId: string, value: unknown, command: CommandRow): ClockCheckRow | null {
  const device = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(device) || !command.answerTime) return null;
  const answered = command.answerTime.getTime();
  const at = command.sentAt ? (command.sentAt.getTime() + answered) / 2 : answered;
  return { meterId, ts: command.answerTime, deviationSeconds: Math.round((device - at) / 1000) };
}

/** A gap re-collection's meters: the meter, a DCU's meters or a grid node's subtree, within the scope. */
function targetMeters(tx: Executor, target: GapTarget, scope: Scope): Promise<TaskMeter[]> {
  const where =
    target.kind === 'meter'
      ? eq(sql`lower(${meter.devAddr})`, target.key.toLowerCase())
      : target.kind === 'dcu'
        ? eq(sql`lower(${dcu.dcuNo})`, target.key.toLowerCase())
        : inSubtree(meter.gridId, GRID_TREE, target.key);
  return tx
    .select({ id: meter.id, serial: meter.devAddr, dcuId: meter.dcuId, dcuNo: dcu.dcuNo, gridId: meter.gridId })
    .from(meter)
    .leftJoin(dcu, eq(dcu.id, meter.dcuId))
    .where(and(where, gridScope(scope, meter.gridId)));
}
