import { TRANSFORMER_AREA } from '@meterdesk/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { DEMO_ROOT_GRID_ID } from '../../db/demo-archive';
import { DEMO_TASK_ID, DEMO_TEMPLATE_ID } from '../../db/demo-collection';
import type { Db } from '../../db/driver';
import { stableId } from '../../db/ids';
import { inSubtree } from '../../db/list';
import { rowsOf } from '../../db/rows';
import { collectionRun, planTemplate, powerGrid } from '../../db/schema';
import { defineJob, type JobSystem } from '../../jobs/job-system';
import { GRID_TREE } from '../../rbac/scope';
import { foldPending } from '../../readings/rollups';
import { type CollectionRuns, runJobId } from './run.service';

export const DEMO_HISTORY_JOB = 'demo-history';
/** The job's one id: queued at the demo's first start, it is never queued twice. */
export const DEMO_HISTORY_JOB_ID = runJobId(stableId('job:demo-history'));

const DAY_MS = 86_400_000;
const POLL_MS = 1000;
/** How long the job waits for the simulated fleet to log in before it reads whatever is there. */
const FLEET_WAIT_MS = 3 * 60_000;
/** Areas read at the same time: a PLC area's reads queue on its DCU, so one alone leaves the server idle. */
const AREAS_AT_ONCE = 2;
/** Background work: any operator's command goes first. */
const PRIORITY = 1;
const TIMEOUT_SECONDS = 30;

/**
 * Queues the demo's history (`DEMO_HISTORY_DAYS`): sent by main.ts once the demo archive was added
 * and the simulator started, so the pages have a month to show on the first day.
 */
export function queueDemoHistory(jobs: JobSystem, days: number): Promise<string> {
  return jobs.send(DEMO_HISTORY_JOB, { days }, { id: DEMO_HISTORY_JOB_ID });
}

/**
 * Fills the demo's past `days` days (and today so far) through the real path: gap re-collections by
 * admin, so every reading is a device's answer stored through the readings ingest, with whatever the
 * devices fail to answer left missing; the rollups are folded after each run rather than at the next
 * minute. One run per transformer area, two at a time: a single run of the demo grid's root had
 * all 222 meters answer a month at once, and storing those answers queued on PGlite's one connection
 * ahead of anyone's login for 13–18 s. (The spare meters in the central store, on no area, get none.)
 * Each run's id follows from the job's, so a retry (the server stopped in the middle) waits for the
 * same runs instead of starting others. Then the days read are recorded as runs of the demo's daily task.
 */
export const demoHistoryJob = (db: Db, runs: CollectionRuns, log: FastifyBaseLogger) =>
  defineJob<{ days: number }>({
    name: DEMO_HISTORY_JOB,
    policy: 'singleton',
    retryLimit: 3,
    retryDelaySeconds: 5,
    expireInSeconds: 8 * 3600,
    handler: async ({ days }, context) => {
      const started = Date.now();
      const [template] = await db
        .select({ orders: planTemplate.orders })
        .from(planTemplate)
        .where(eq(planTemplate.id, DEMO_TEMPLATE_ID));
      const items = ((template?.orders as { cgcode: string }[] | undefined) ?? []).map((o) => o.cgcode);
      if (!items.length) {
        log.warn('demo history: the demo collection template is gone; nothing collected');
        return null;
      }
      const fleet = await fleetOnline(db, context.signal);
      const areas = await db
        .select({ id: powerGrid.id })
        .from(powerGrid)
        .where(and(eq(powerGrid.gridType, TRANSFORMER_AREA), inSubtree(powerGrid.id, GRID_TREE, DEMO_ROOT_GRID_ID)))
        .orderBy(powerGrid.gridCode);
      const now = new Date();
      const period = { from: new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - days * DAY_MS), to: now };
      const totals = { runs: 0, devices: 0, expected: 0, received: 0, byCode: {} as Record<string, number>, folded: 0 };
      const next = [...areas];
      const runIds: string[] = [];
      const worker = async () => {
        for (let area = next.shift(); area; area = next.shift()) {
          const runId = stableId(`demo-history:${context.jobId}:${area.id}`);
          runIds.push(runId);
          await runs.gapCollect({ kind: 'grid', key: area.id }, period, items, {
            username: 'admin',
            priority: PRIORITY,
            timeoutSeconds: TIMEOUT_SECONDS,
            runId,
          });
          const run = await finished(db, runId, context.signal);
          totals.runs++;
          totals.devices += run.devices;
          totals.expected += run.expected;
          totals.received += run.received;
          for (const [code, n] of Object.entries((run.byCode ?? {}) as Record<string, number>))
            totals.byCode[code] = (totals.byCode[code] ?? 0) + n;
          // The area just read shows on the dashboard now, not at the next minute's fold.
          totals.folded += await foldPending(db);
        }
      };
      await Promise.all(Array.from({ length: AREAS_AT_ONCE }, worker));
      // The demo's daily task shows these days as its runs, and task analysis counts them.
      const taskRuns = await runs.recordHistory(DEMO_TASK_ID, runIds, days);
      const summary = {
        days,
        connected: fleet,
        ...totals,
        taskRuns,
        seconds: Math.round((Date.now() - started) / 100) / 10,
      };
      log.info(summary, 'demo history collected');
      return summary;
    },
  });

/**
 * Waits until every device of the archive that logs in on its own (DCUs, meters without one) is online,
 * at most FLEET_WAIT_MS. Reads sent while the fleet is still logging in would compete with the logins for
 * the server (on PGlite its one connection): on a busy machine the devices' CONNECTs then timed out
 * for a minute and a half. Answers how many were online and of how many.
 */
async function fleetOnline(db: Db, signal: AbortSignal) {
  const until = Date.now() + FLEET_WAIT_MS;
  for (;;) {
    if (signal.aborted) throw new Error('the job system stopped; the demo history resumes at the next start');
    const [counts] = await rowsOf<{ online: number; devices: number }>(
      db,
      sql`with devices as (
          select 'dcu' as kind, dcu_no as key from dcu
          union all select 'meter', dev_addr from meter where dcu_id is null)
        select count(*)::int as devices,
          count(*) filter (where exists (select 1 from device_link l
            where l.device_kind = d.kind and l.device_key = d.key and l.online))::int as online
        from devices d`,
    );
    const state = { online: counts?.online ?? 0, of: counts?.devices ?? 0 };
    if (state.online >= state.of || Date.now() >= until) return state;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The run once finished; a stop of the job system ends the wait (the job runs again after the next start). */
async function finished(db: Db, runId: string, signal: AbortSignal) {
  for (;;) {
    if (signal.aborted) throw new Error('the job system stopped; the demo history resumes at the next start');
    const [run] = await db.select().from(collectionRun).where(eq(collectionRun.id, runId));
    if (!run) throw new Error(`demo history: run ${runId} is not recorded`);
    if (run.status === 'finished' || run.status === 'cancelled') return run;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
