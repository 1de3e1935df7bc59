import { POWER_EVENTS, RESULT_CODES, TRANSFORMER_AREA } from '@meterdesk/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/driver';
import { stableId } from '../db/ids';
import { inSubtree } from '../db/list';
import { rowsOf } from '../db/rows';
import { collectionRun, planTemplate, powerGrid } from '../db/schema';
import { defineJob, type JobSystem } from '../jobs/job-system';
import { type RunScheduler, runJobId } from '../modules/collection/run-scheduler';
import { GRID_TREE } from '../rbac/scope';
import type { ReadingIngest } from '../readings/ingest';
import { rollupOnline } from '../readings/online-rollups';
import { foldPending } from '../readings/rollups';
import type { LinkChangeRow } from '../readings/rows';
import { DEMO_ROOT_GRID_ID } from './demo-archive';
import { DEMO_TASK_ID, DEMO_TEMPLATE_ID } from './demo-collection';

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
export const demoHistoryJob = (db: Db, runs: RunScheduler, ingest: ReadingIngest, log: FastifyBaseLogger) =>
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
      // Before anything of the history is stored, the link changes stored are the fleet's own, since it logged in.
      const firstLogin = await firstLinkChange(db);
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
          await runs.gapCollect({ kind: 'grid', key: area.id, asTask: true }, period, items, {
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
      const linkChanges = await linkHistory(db, ingest, runIds, period.from, firstLogin ?? now);
      // The online pages show the period now, not at the next minute's fold.
      await rollupOnline(db);
      const summary = {
        days,
        connected: fleet,
        ...totals,
        taskRuns,
        linkChanges,
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

/** The earliest link change stored; null before any. */
async function firstLinkChange(db: Db): Promise<Date | null> {
  const [first] = await rowsOf<{ at: string | null }>(
    db,
    sql`select to_char(min(ts) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from link_change`,
  );
  return first?.at ? new Date(first.at) : null;
}

/**
 * Demo data, not collected: the fleet's link history before the server first heard from it (`until`),
 * which no collector can learn after the fact. Told from what the history read: every meter that
 * answered it, and its DCU, online from the period's start, and the meter offline through each power
 * outage its event log recorded (last gasp to power-up), as the simulator's outage model made them.
 * Stored through the readings ingest as a device's link change is, so the online-time rollups fold it
 * like any other; keyed by device and time, so a retry adds nothing. Answers the changes pushed.
 */
async function linkHistory(
  db: Db,
  ingest: ReadingIngest,
  runIds: readonly string[],
  from: Date,
  until: Date,
): Promise<number> {
  if (!runIds.length) return 0;
  const { down, up } = POWER_EVENTS.meter;
  const rows = await rowsOf<{ device_id: string; device_kind: 'meter' | 'dcu'; ts: string; online: boolean }>(
    db,
    sql`with answered as (
        select distinct meter_id, dcu_id from collection_run_device
        where run_id in (${sql.join(
          runIds.map((id) => sql`${id}`),
          sql`, `,
        )}) and result_code = ${RESULT_CODES.success})
      select meter_id as device_id, 'meter' as device_kind, ${from.toISOString()} as ts, true as online from answered
      union all
      select distinct dcu_id, 'dcu', ${from.toISOString()}, true from answered where dcu_id is not null
      union all
      select e.meter_id, 'meter', to_char(e.ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.code = ${up} from meter_event e join answered a on a.meter_id = e.meter_id
      where e.code in (${down}, ${up}) and e.ts > ${from.toISOString()}::timestamptz and e.ts < ${until.toISOString()}::timestamptz`,
  );
  const changes: LinkChangeRow[] = rows.map((r) => ({
    deviceId: r.device_id,
    deviceKind: r.device_kind,
    ts: new Date(r.ts),
    online: r.online,
  }));
  if (changes.length) await ingest.push({ linkChanges: changes });
  return changes.length;
}
