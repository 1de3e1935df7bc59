import { nextOccurrence, occurrenceAt, RESULT_CODES } from '@meterdesk/contracts';
import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/driver';
import { newId, stableId } from '../../db/ids';
import { collectionRun, collectionRunDevice, obisItem, plan } from '../../db/schema';
import type { JobSystem } from '../../jobs/job-system';
import { expectedCount, type RunBookkeeping, type RunRow, readPeriod, unanswered } from './run-bookkeeping';
import {
  ITEM_KINDS,
  latestOccurrenceIndex,
  occurrencePeriod,
  type Period,
  type RunItem,
  repairTimes,
  type TaskCrontab,
} from './run-items';

export const COLLECTION_RUN_JOB = 'collection-run';

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

/** A queued run whose job has not started after this long is sent again (the send after its commit was lost). */
const RESEND_AFTER_SECONDS = 60;
/** A job in one of these states never runs its handler again. */
const ENDED_JOB_STATES: ReadonlySet<string> = new Set(['completed', 'cancelled', 'failed']);

/** A UUID of a run's 32-hex id: the run's job id, so a run is queued once however often it is sent. */
export const runJobId = (id: string) =>
  `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;

/**
 * Records collection runs and sends their jobs: the due occurrences of enabled tasks (one transaction
 * with the task's advance) with their repairs, run-now and gap re-collection requests, and the demo's
 * history as a task's runs; closes runs whose job ended without closing them.
 */
export class RunScheduler {
  constructor(
    private readonly db: Db,
    private readonly jobs: JobSystem,
    private readonly bookkeeping: RunBookkeeping,
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
      items: await collectionItems(
        tx,
        ((task.orders as { cgcode?: string }[]) ?? []).flatMap((o) => (o.cgcode ? [o.cgcode] : [])),
      ),
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
        .where(unanswered(run.id));
      await this.bookkeeping.finish(run);
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

  /** Starts the due repairs whose chain has no run still open. */
  async startDueRepairs(): Promise<void> {
    for (const next of await this.releaseRepairs(new Date())) await this.send(next, null);
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
          items: await collectionItems(tx, items),
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
      await this.bookkeeping.finish(run);
      recorded++;
    }
    return recorded;
  }
}

function uniqueRuns(runs: RunRow[]): RunRow[] {
  return [...new Map(runs.map((r) => [r.id, r])).values()];
}

const staleQueued = () =>
  and(
    eq(collectionRun.status, 'queued'),
    sql`${collectionRun.createTime} < now() - make_interval(secs => ${RESEND_AFTER_SECONDS})`,
  );

/** The profile objects a run reads named by these collection items (their cgName, case aside); any other is left out. */
export async function collectionItems(db: Executor, cgcodes: readonly string[]): Promise<RunItem[]> {
  if (!cgcodes.length) return [];
  const rows = await db
    .select({ cgcode: obisItem.cgName, obis: obisItem.obis })
    .from(obisItem)
    .where(
      inArray(
        sql`lower(${obisItem.cgName})`,
        cgcodes.map((c) => c.toLowerCase()),
      ),
    );
  return rows.flatMap((r) => {
    const kind = ITEM_KINDS[r.obis];
    return kind ? [{ cgcode: r.cgcode, obis: r.obis, kind }] : [];
  });
}
