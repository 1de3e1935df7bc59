import type { CollectionRun, Page, TaskKpi } from '@meterdesk/contracts';
import { TRANSFORMER_AREA } from '@meterdesk/contracts';
import { DEFAULT_KNOBS, meterModel, type Simulator, spontaneousEvents, startSimulator } from '@meterdesk/simulator';
import { and, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../crypto/secret-box';
import {
  linkChange,
  meter,
  meterClock,
  meterEvent,
  plan,
  powerGrid,
  readingDaily,
  readingProfile,
  rollupMeterDay,
  rollupMeterEventDay,
  rollupOnlineDay,
} from '../db/schema';
import { buildFleet } from '../headend/fleet';
import { createTestApp, type TestApp } from '../test/harness';
import { seedDemoArchive } from './demo-archive';
import { DEMO_TASK_ID, seedDemoCollection } from './demo-collection';
import { DEMO_HISTORY_JOB_ID, queueDemoHistory } from './demo-history';

/*
 * The demo's history: the job reads the past days from the simulated demo fleet through gap
 * re-collections and the readings ingest (profiles, frozen values, every meter's event log and its
 * clock), writes the fleet's link history before its first login as demo data, and folds their
 * rollups. Shrunk to two days.
 */

const external = process.env.TEST_MQTT_URL;
const DAY_MS = 86_400_000;
const DAYS = 2;

let t: TestApp;
let sim: Simulator;

beforeAll(async () => {
  t = await createTestApp({}, { headEnd: true, deviceListener: !external });
  // The test template holds the demo grid alone; the demo archive brings its own.
  await t.db.transaction(async (tx) => {
    await tx.delete(powerGrid);
    await seedDemoArchive(tx, new SecretBox(t.secretKey));
    await seedDemoCollection(tx);
  });
  sim = startSimulator({
    url: external ?? `mqtt://127.0.0.1:${t.broker.tcpPort}`,
    fleet: await buildFleet(t.db, t.app.deviceCredentials),
    seed: SEED,
    knobs: { latency: { min: 20, median: 60, max: 200 } },
  });
  await sim.ready;
}, 180_000);
afterAll(async () => {
  await sim?.stop();
  await t?.close();
});

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const SEED = 3;

describe('demo history', () => {
  it('stores the past days of every demo meter on a transformer area, as the devices answered, with their rollups', async () => {
    // One meter's clock far off: its clock check says so.
    const [skewed] = await t.db
      .select({ id: meter.id, devAddr: meter.devAddr })
      .from(meter)
      .innerJoin(powerGrid, eq(powerGrid.id, meter.gridId))
      .where(eq(powerGrid.gridType, TRANSFORMER_AREA))
      .orderBy(meter.devAddr)
      .limit(1);
    sim.device(skewed?.devAddr as string).setClockOffset(-300);
    const queuedAt = Date.now();
    // The fleet's own link changes, from its login on (none when another process records them).
    const [first] = await t.db.select({ at: sql<Date | null>`min(${linkChange.ts})` }).from(linkChange);
    const firstLogin = first?.at ? new Date(first.at) : new Date(queuedAt);
    const jobId = await queueDemoHistory(t.app.jobs, DAYS);
    expect(jobId).toBe(DEMO_HISTORY_JOB_ID);
    // Queued once: a second send while it is there is the same job.
    expect(await queueDemoHistory(t.app.jobs, DAYS)).toBe(jobId);
    await expect
      .poll(async () => (await t.app.jobs.getJob(jobId))?.state, { timeout: 150_000, interval: 500 })
      .toBe('completed');

    const installed = await t.db
      .select({ id: meter.id })
      .from(meter)
      .innerJoin(powerGrid, eq(powerGrid.id, meter.gridId))
      .where(eq(powerGrid.gridType, TRANSFORMER_AREA));
    expect(installed).toHaveLength(210);
    const ids = installed.map((m) => m.id);
    const output = (await t.app.jobs.getJob(jobId))?.output;
    expect(output).toMatchObject({ days: DAYS, runs: 10, devices: 210, byCode: { '00': 210 } });
    const { expected, received } = output as { expected: number; received: number };
    expect(received).toBe(expected);

    const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    for (let back = 1; back <= DAYS; back++) {
      const day = midnight - back * DAY_MS;
      const [profile] = await t.db
        .select({
          meters: sql<number>`count(distinct ${readingProfile.meterId})::int`,
          rows: sql<number>`count(*)::int`,
        })
        .from(readingProfile)
        .where(
          and(
            inArray(readingProfile.meterId, ids),
            gte(readingProfile.ts, new Date(day + 15 * 60_000)),
            lt(readingProfile.ts, new Date(day + DAY_MS + 1)),
          ),
        );
      expect(profile, utcDay(day)).toEqual({ meters: 210, rows: 210 * 96 });
      const frozen = await t.db
        .select({ meterId: readingDaily.meterId })
        .from(readingDaily)
        .where(and(inArray(readingDaily.meterId, ids), eq(readingDaily.day, utcDay(day))));
      expect(frozen, utcDay(day)).toHaveLength(210);
      // Folded by the job itself: the dashboard's figures are there without waiting for the minute's fold.
      const rolled = await t.db
        .select({ intervals: rollupMeterDay.intervals })
        .from(rollupMeterDay)
        .where(and(inArray(rollupMeterDay.meterId, ids), eq(rollupMeterDay.day, utcDay(day))));
      expect(rolled, utcDay(day)).toHaveLength(210);
      // A rollup day is (00:00, 24:00], as a run counts it: the oldest day of the period is whole too.
      expect(new Set(rolled.map((r) => r.intervals))).toEqual(new Set([96]));
    }
    // Every meter's event log over the period, as its device keeps it, with the rollups the pages read.
    const periodFrom = midnight - DAYS * DAY_MS;
    const serials = await t.db
      .select({ id: meter.id, devAddr: meter.devAddr })
      .from(meter)
      .where(inArray(meter.id, ids));
    const logged = serials.flatMap((m) =>
      spontaneousEvents(SEED, meterModel(SEED, m.devAddr).key, 'meter', periodFrom + 1, queuedAt, DEFAULT_KNOBS).map(
        (e) => `${m.id}|${Date.parse(e.time)}|${e.code}`,
      ),
    );
    expect(logged.length).toBeGreaterThan(0);
    const events = await t.db
      .select({ meterId: meterEvent.meterId, ts: meterEvent.ts, code: meterEvent.code })
      .from(meterEvent)
      .where(inArray(meterEvent.meterId, ids));
    expect(events.map((e) => `${e.meterId}|${e.ts.getTime()}|${e.code}`)).toEqual(expect.arrayContaining(logged));
    const [rolledEvents] = await t.db
      .select({ n: sql<number>`coalesce(sum(${rollupMeterEventDay.events}), 0)::int` })
      .from(rollupMeterEventDay)
      .where(inArray(rollupMeterEventDay.meterId, ids));
    expect(rolledEvents?.n).toBe(events.length);
    // Each meter's clock checked with the read, the far-off one among them.
    const clocks = await t.db.select().from(meterClock).where(inArray(meterClock.meterId, ids));
    expect(clocks).toHaveLength(210);
    for (const c of clocks) expect(c.checkedAt.getTime()).toBeGreaterThanOrEqual(queuedAt);
    const off = clocks.find((c) => c.meterId === skewed?.id)?.deviationSeconds;
    expect(off).toBeGreaterThanOrEqual(-302);
    expect(off).toBeLessThanOrEqual(-298);
    expect(clocks.filter((c) => Math.abs(c.deviationSeconds) > 60)).toHaveLength(1);
    // The link history before the fleet's first login (demo data): online from the period's start but
    // through each power outage the meter's log holds, rolled up per device and day.
    const links = await t.db
      .select({ deviceId: linkChange.deviceId, ts: linkChange.ts, online: linkChange.online })
      .from(linkChange)
      .where(and(inArray(linkChange.deviceId, ids), lt(linkChange.ts, firstLogin)));
    expect(links.filter((l) => l.ts.getTime() === periodFrom && l.online)).toHaveLength(210);
    const outages = events.filter((e) => e.code === 1 && e.ts < firstLogin);
    expect(outages.length).toBeGreaterThan(0);
    expect(links.filter((l) => !l.online)).toHaveLength(outages.length);
    const online = await t.db
      .select({ deviceId: rollupOnlineDay.deviceId, day: rollupOnlineDay.day, seconds: rollupOnlineDay.onlineSeconds })
      .from(rollupOnlineDay)
      .where(and(inArray(rollupOnlineDay.deviceId, ids), lt(rollupOnlineDay.day, utcDay(midnight))));
    expect(online).toHaveLength(210 * DAYS);
    const [outage] = outages.filter((e) => e.ts.getTime() < midnight);
    const short = online.filter((r) => r.seconds < 86_400);
    expect(short.length).toBeGreaterThan(0);
    if (outage)
      expect(short.map((r) => `${r.deviceId}|${r.day}`)).toContain(`${outage.meterId}|${utcDay(outage.ts.getTime())}`);
    expect(output).toMatchObject({ linkChanges: expect.any(Number) });

    // Nothing before the period was read.
    const [older] = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(readingProfile)
      .where(lt(readingProfile.ts, new Date(midnight - DAYS * DAY_MS)));
    expect(older?.n).toBe(0);

    // The daily task's schedule is untouched: its first run is still the coming day's.
    const [task] = await t.db.select().from(plan).where(eq(plan.id, DEMO_TASK_ID));
    expect(task).toMatchObject({ enabled: true, executedCount: 0, planStatus: 'waiting' });
    expect(task?.nextRunAt?.getTime()).toBeGreaterThan(Date.now());
    // Its runs list shows the days collected, one finished run per day, as the task would have read them.
    const admin = await t.loginAdmin();
    const runs = await t.call<Page<CollectionRun>>(
      '/plan/runs',
      { planid: DEMO_TASK_ID, pageSize: 10, curPage: 1 },
      admin,
    );
    expect(runs.body.data.total).toBe(DAYS);
    for (const [k, run] of runs.body.data.list.entries()) {
      const day = midnight - (k + 1) * DAY_MS;
      expect(run, utcDay(day)).toMatchObject({
        kind: 'history',
        status: 'finished',
        devices: 210,
        successRate: 100,
        byCode: { '00': 210 },
        dueAt: new Date(day + DAY_MS + 5 * 60_000).toISOString(),
        periodFrom: new Date(day + 5 * 60_000).toISOString(),
      });
      expect(run.received).toBe(run.expected);
    }
    // Task analysis counts them as the task's occurrences.
    const analysis = await t.call<Page<TaskKpi>>(
      '/taskanalysis/list',
      {
        pageSize: 10,
        curPage: 1,
        startTime: new Date(midnight - DAYS * DAY_MS).toISOString(),
        endTime: new Date(midnight + DAY_MS - 1).toISOString(),
      },
      admin,
    );
    expect(analysis.body.data.list.find((r) => r.id === DEMO_TASK_ID)).toMatchObject({ runs: DAYS, successRate: 100 });
    // The spare meters in the central store lie on no area: they have no history.
    const [spare] = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(readingProfile)
      .where(inArray(readingProfile.meterId, t.db.select({ id: meter.id }).from(meter).where(eq(meter.status, 0))));
    expect(spare?.n).toBe(0);
  }, 200_000);
});
