import { type CollectionRun, type DeviceCommand, OBIS, type Plan, type RunDevice } from '@meterdesk/contracts';
import { type Simulator, startSimulator } from '@meterdesk/simulator';
import { and, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import {
  collectionRun,
  collectionRunDevice,
  collectionRunKpi,
  dcu,
  deviceCommand,
  plan,
  readingDaily,
  readingProfile,
} from '../../db/schema';
import { buildFleet } from '../../headend/fleet';
import { gridNode, suppliedMeter, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { COLLECTION_RUN_JOB, runJobId } from './run-scheduler';

/*
 * Collection runs against the simulator on a real broker (the embedded one, or TEST_MQTT_URL's):
 * a scheduled occurrence read end to end, repairs that re-read only the gaps, a restart in the
 * middle of a run and an operator's one-off read during a big run.
 */

const external = process.env.TEST_MQTT_URL;
const DAY_MS = 86_400_000;
const LONG = { timeout: 90_000, interval: 200 };

let t: TestApp;
let sim: Simulator;
let admin: string;
let gridId: string;
const dcuNo = `D${newId().slice(0, 9)}`.toUpperCase();
const meters: { id: string; devAddr: string }[] = [];

beforeAll(async () => {
  t = await createTestApp({}, { headEnd: true, deviceListener: !external });
  gridId = await gridNode(t);
  const dcuId = newId();
  await t.db.insert(dcu).values({ id: dcuId, dcuNo, gridId });
  for (let i = 0; i < 24; i++) meters.push(await suppliedMeter(t, gridId, { dcuId }));
  admin = await t.loginAdmin();
  sim = startSimulator({
    url: external ?? `mqtt://127.0.0.1:${t.broker.tcpPort}`,
    fleet: await buildFleet(t.db, t.app.deviceCredentials),
    seed: 7,
    knobs: { latency: { min: 20, median: 60, max: 200 } },
  });
  await sim.ready;
  const end = Date.now() + LONG.timeout;
  for (;;) {
    const states = await t.app.headEnd.onlineStates(
      meters.map((m) => ({ kind: 'meter' as const, key: m.devAddr, viaDcu: dcuNo })),
    );
    if ([...states.values()].every(Boolean)) break;
    if (Date.now() > end) throw new Error('the simulated fleet did not come online');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 180_000);
afterAll(async () => {
  await sim?.stop();
  await t?.close();
});

/** Today's midnight, UTC. */
const today = () => Math.floor(Date.now() / DAY_MS) * DAY_MS;
/**
 * The tasks' first occurrence: a quarter-hour boundary just past, so a run covers the 96 intervals
 * before it and one midnight's frozen row, and its repairs (an hour and two later) are still to come.
 */
const anchor = Math.floor(Date.now() / 900_000) * 900_000 - 900_000;
/** The midnight within a run's period: its frozen row is the day before's. */
const midnight = Math.floor(anchor / DAY_MS) * DAY_MS;

/**
 * A daily collection task as the tasks helper's createplan stores it, already due: its first
 * occurrence is `anchor`, repaired twice an hour apart.
 */
async function dailyTask(devList: string[], extra: Partial<typeof plan.$inferInsert> = {}) {
  const starttime = anchor / 1000;
  const crontab = {
    starttime,
    freq: 1,
    unit: 'day',
    count: 30,
    repairConf: { repairFreq: 1, repairUnit: 'hour', repairCount: 2 },
  };
  const id = newId();
  await t.db.insert(plan).values({
    id,
    kind: 'collection',
    planName: `daily ${id.slice(0, 6)}`,
    planStatus: 'waiting',
    enabled: true,
    devs: { itemType: 0, devList },
    crontab,
    orders: [
      { cgcode: 'loadProfile', cmd: 'collect', params: {}, isCyclePlan: false },
      { cgcode: 'dailyFrozen', cmd: 'collect', params: {}, isCyclePlan: false },
    ],
    pri: 3,
    timeout: 10,
    concurrent: 2,
    createdBy: 'admin',
    nextRunAt: new Date(starttime * 1000),
    ...extra,
  });
  return id;
}

const runOf = async (runId: string) =>
  (await t.call<CollectionRun>('/plan/run', { runId }, admin)).body.data as CollectionRun;

async function finished(runId: string): Promise<CollectionRun> {
  await expect.poll(async () => (await runOf(runId)).status, LONG).toBe('finished');
  return runOf(runId);
}

async function scheduledRun(planid: string): Promise<string> {
  await t.app.runScheduler.tick();
  const [run] = await t.db
    .select({ id: collectionRun.id })
    .from(collectionRun)
    .where(and(eq(collectionRun.planId, planid), eq(collectionRun.kind, 'scheduled')));
  if (!run) throw new Error('no run recorded');
  return run.id;
}

/** Releases a run's next repair (as the tick does when its time comes) and answers its id. */
async function nextRepair(parentRunId: string): Promise<string> {
  const ids = await t.app.runScheduler.tick(new Date(Date.now() + 3 * DAY_MS));
  const [repair] = await t.db
    .select({ id: collectionRun.id })
    .from(collectionRun)
    .where(and(eq(collectionRun.parentRunId, parentRunId), inArray(collectionRun.id, ids)));
  if (!repair) throw new Error('no repair released');
  return repair.id;
}

const profileCount = async (meterIds: string[], from: number, to: number) => {
  const [row] = await t.db
    .select({ n: sql<number>`count(*)::int` })
    .from(readingProfile)
    .where(
      and(
        inArray(readingProfile.meterId, meterIds),
        gt(readingProfile.ts, new Date(from)),
        lte(readingProfile.ts, new Date(to)),
      ),
    );
  return Number(row?.n ?? 0);
};

describe('a scheduled occurrence', () => {
  it('is recorded once with its task advanced, reads every meter and stores what was expected', async () => {
    const group = meters.slice(0, 6);
    const planid = await dailyTask(group.map((m) => m.devAddr));
    const runId = await scheduledRun(planid);
    // A second tick finds nothing due: the occurrence is not run twice.
    await t.app.runScheduler.tick();
    const runs = await t.db.select().from(collectionRun).where(eq(collectionRun.planId, planid));
    expect(runs.filter((r) => r.kind === 'scheduled')).toHaveLength(1);
    expect(runs.filter((r) => r.kind === 'repair' && r.status === 'pending')).toHaveLength(2);
    const [task] = await t.db.select().from(plan).where(eq(plan.id, planid));
    expect(task?.executedCount).toBe(1);
    expect(task?.nextRunAt?.getTime()).toBe(anchor + DAY_MS);

    const run = await finished(runId);
    expect(run).toMatchObject({
      kind: 'scheduled',
      devices: 6,
      expected: 6 * (96 + 1),
      received: 6 * (96 + 1),
      successRate: 100,
      byCode: { '00': 6 },
      requests: 6,
      ranges: 12,
      periodFrom: new Date(anchor - DAY_MS).toISOString(),
      periodTo: new Date(anchor).toISOString(),
    });
    const ids = group.map((m) => m.id);
    expect(await profileCount(ids, anchor - DAY_MS, anchor)).toBe(6 * 96);
    const daily = await t.db.select().from(readingDaily).where(inArray(readingDaily.meterId, ids));
    expect(daily.map((d) => d.day)).toContain(new Date(midnight - DAY_MS).toISOString().slice(0, 10));

    // Reads go as bulk commands with the task's priority, time-out and concurrency.
    const commands = await t.db.select().from(deviceCommand).where(eq(deviceCommand.runId, runId));
    expect(commands).toHaveLength(6);
    for (const c of commands)
      expect(c).toMatchObject({ bulk: true, priority: 3, timeoutSeconds: 10, routeLimit: 2, waitOnline: true });

    const page = await t.call<{ list: RunDevice[] }>('/plan/rundevices', { runId, pageSize: 50 }, admin);
    expect(page.body.data.list).toHaveLength(6);
    expect(page.body.data.list[0]).toMatchObject({
      resultCode: '00',
      expected: 97,
      received: 97,
      items: [
        { cgcode: 'loadProfile', expected: 96, received: 96 },
        { cgcode: 'dailyFrozen', expected: 1, received: 1 },
      ],
    });
    const list = await t.call<{ list: CollectionRun[] }>('/plan/runs', { planid, pageSize: 10 }, admin);
    expect(list.body.data.list.map((r) => r.runId)).toEqual([runId]);
    // Its end wrote what task analysis reads of the occurrence.
    const kpi = await t.db.select().from(collectionRunKpi).where(eq(collectionRunKpi.runId, runId));
    expect(kpi.reduce((n, k) => n + k.devices, 0)).toBe(6);
    expect(kpi.reduce((n, k) => n + k.received, 0)).toBe(6 * 97);
    expect(kpi.every((k) => k.code === '00' && k.failed === 0)).toBe(true);
  }, 120_000);

  it('a server down across several occurrences runs the latest one and counts the others as missed', async () => {
    const planid = await dailyTask([meters[6]?.devAddr as string], {
      crontab: { starttime: (anchor - 3 * DAY_MS) / 1000, freq: 1, unit: 'day', count: 30 },
      nextRunAt: new Date(anchor - 3 * DAY_MS),
    });
    const runId = await scheduledRun(planid);
    const run = await finished(runId);
    expect(run).toMatchObject({ occurrence: 3, missed: 3, periodTo: new Date(anchor).toISOString() });
    const [task] = await t.db.select().from(plan).where(eq(plan.id, planid));
    expect(task?.executedCount).toBe(4);
  }, 120_000);
});

describe('repairs', () => {
  it('re-read only the missing intervals of each meter, as contiguous ranges, and fill them', async () => {
    const group = meters.slice(8, 12);
    const planid = await dailyTask(group.map((m) => m.devAddr));
    const runId = await scheduledRun(planid);
    await finished(runId);
    const a = group[0] as { id: string };
    const b = group[1] as { id: string };
    const start = anchor - DAY_MS;
    const at = (slot: number) => new Date(start + slot * 15 * 60_000);
    // Meter a loses intervals 10–13 and 40; meter b its frozen row. The others miss nothing.
    await t.db.delete(readingProfile).where(
      and(
        eq(readingProfile.meterId, a.id),
        sql`${readingProfile.ts} in (${sql.join(
          [10, 11, 12, 13, 40].map((s) => sql`${at(s).toISOString()}`),
          sql`, `,
        )})`,
      ),
    );
    await t.db.delete(readingDaily).where(eq(readingDaily.meterId, b.id));

    const repairId = await nextRepair(runId);
    const repair = await finished(repairId);
    expect(repair).toMatchObject({ kind: 'repair', devices: 4, requests: 2, ranges: 3, received: 4 * 97 });
    const commands = await t.db.select().from(deviceCommand).where(eq(deviceCommand.runId, repairId));
    const asked = Object.fromEntries(
      commands.map((c) => [c.meterId, (c.command as Pick<DeviceCommand, 'items'>).items.map((i) => i.value)]),
    );
    expect(asked).toEqual({
      [a.id]: [
        { from: at(10).toISOString(), to: at(13).toISOString() },
        { from: at(40).toISOString(), to: at(40).toISOString() },
      ],
      [b.id]: [{ from: new Date(midnight).toISOString(), to: new Date(midnight).toISOString() }],
    });
    expect(await profileCount([a.id], start, anchor)).toBe(96);

    // The second repair finds nothing missing and sends nothing.
    const second = await finished(await nextRepair(runId));
    expect(second).toMatchObject({ requests: 0, received: 4 * 97, expected: 4 * 97 });
  }, 120_000);

  it('an operator re-collects the gaps of a DCU over a period by hand; bad input names its field', async () => {
    const ids = meters.map((m) => m.id);
    const from = today() - 2 * DAY_MS;
    const to = today() - DAY_MS;
    await t.db
      .delete(readingProfile)
      .where(
        and(
          eq(readingProfile.meterId, meters[20]?.id as string),
          gt(readingProfile.ts, new Date(from)),
          lte(readingProfile.ts, new Date(to)),
        ),
      );
    const body = {
      targetType: 'dcu',
      target: dcuNo,
      startTime: new Date(from).toISOString(),
      endTime: new Date(to).toISOString(),
      items: ['loadProfile'],
    };
    const started = await t.call<{ runId: string; jobId: string }>('/plan/gapcollect', body, admin);
    expect(started.status).toBe(200);
    const run = await finished(started.body.data.runId);
    expect(run).toMatchObject({ kind: 'gap', devices: meters.length, expected: meters.length * 96 });
    expect(run.received).toBe(run.expected);
    expect(await profileCount(ids, from, to)).toBe(meters.length * 96);

    const tomorrow = new Date(today() + 2 * DAY_MS).toISOString();
    const late = await t.call('/plan/gapcollect', { ...body, endTime: tomorrow }, admin);
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({ data: { issues: [{ field: 'endTime', key: 'afterToday' }] } });
    const long = await t.call(
      '/plan/gapcollect',
      { ...body, startTime: new Date(from - 40 * DAY_MS).toISOString() },
      admin,
    );
    expect(long.body).toMatchObject({ data: { issues: [{ field: 'endTime', key: 'timeRangeTooLong' }] } });
    const unknown = await t.call('/plan/gapcollect', { ...body, items: ['loadProfile', 'nonsense'] }, admin);
    expect(unknown.body).toMatchObject({ data: { issues: [{ field: 'items.1', key: 'unknownCollectionItem' }] } });
    // A DCU outside the caller's grid scope reads as one that does not exist.
    const other = await userOfGrid(t, await gridNode(t), ['/serviceRequest/scheduledTask/taskMGT/gapCollect']);
    const outside = await t.call('/plan/gapcollect', body, other);
    expect(outside.body).toMatchObject({ data: { issues: [{ field: 'target', key: 'deviceNotFound' }] } });
  }, 120_000);
});

describe('resilience', () => {
  it('a run survives a server restart in its middle: it completes with nothing lost or read twice', async () => {
    const group = meters.slice(12, 20);
    const planid = await dailyTask(
      group.map((m) => m.devAddr),
      { concurrent: 1 },
    );
    const runId = await scheduledRun(planid);
    await expect
      .poll(
        async () =>
          (
            await t.db
              .select({ n: sql<number>`count(*)::int` })
              .from(deviceCommand)
              .where(and(eq(deviceCommand.runId, runId), eq(deviceCommand.state, 'done')))
          )[0]?.n,
        LONG,
      )
      .toBeGreaterThan(0);
    await t.restart();
    const run = await finished(runId);
    expect(run).toMatchObject({ devices: 8, expected: 8 * 97, received: 8 * 97, byCode: { '00': 8 } });
    const commands = await t.db.select().from(deviceCommand).where(eq(deviceCommand.runId, runId));
    expect(commands).toHaveLength(8);
    expect(
      await profileCount(
        group.map((m) => m.id),
        anchor - DAY_MS,
        anchor,
      ),
    ).toBe(8 * 96);
  }, 180_000);

  it("run now starts a manual occurrence, and an operator's one-off read is not starved by it", async () => {
    // Made by a grid user, the task names its grid nodes (as createplan stores them): the operator sees it.
    const planid = await dailyTask(
      meters.map((m) => m.devAddr),
      {
        concurrent: 3,
        enabled: false,
        nextRunAt: null,
        devs: { itemType: 0, devList: meters.map((m) => m.devAddr), devParams: { grid_ids: [gridId] } },
      },
    );
    const target = meters[23]?.devAddr as string;
    // The run's reads hang on silent meters, holding every slot a bulk command may take on the DCU.
    for (const m of meters) if (m.devAddr !== target) sim.device(m.devAddr).setFault({ silent: true });
    const operator = await userOfGrid(t, gridId, [
      '/serviceRequest/batchOperation/read',
      '/serviceRequest/scheduledTask/taskMGT/runNow',
    ]);
    const started = await t.call<{ runId: string; jobId: string }>('/plan/runnow', { planid }, operator);
    expect(started.status).toBe(200);
    const { runId } = started.body.data;
    await expect.poll(async () => (await runOf(runId)).status, LONG).toBe('running');
    const read = await t.call<{ planid: string }>(
      '/plan/createplan',
      {
        planName: 'read',
        devs: { itemType: 0, devList: [target] },
        orders: [{ cmd: 'read', params: { obis: ['1-0:1.8.0.255'] } }],
      },
      operator,
    );
    expect(read.status).toBe(200);
    const detail = async () =>
      (await t.call<Plan>('/plan/detail', { planid: read.body.data.planid }, operator)).body.data;
    await expect.poll(async () => (await detail()).planStatus, LONG).toBe('finished');
    expect((await detail()).byCode).toEqual({ '00': 1 });
    // It came home while the run still had reads queued behind the DCU's busy slots.
    const [queued] = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(deviceCommand)
      .where(and(eq(deviceCommand.runId, runId), eq(deviceCommand.state, 'queued')));
    expect(Number(queued?.n)).toBeGreaterThan(0);

    for (const m of meters) sim.device(m.devAddr).setFault({ silent: false });
    const run = await finished(runId);
    expect(run).toMatchObject({ kind: 'manual', devices: meters.length, periodTo: new Date(anchor).toISOString() });
    expect(run.received).toBe(run.expected);
    const [task] = await t.db.select().from(plan).where(eq(plan.id, planid));
    expect(task?.executedCount).toBe(0);
  }, 240_000);

  it('a run whose job has ended without closing it is closed by the next tick; its silent devices count as 50', async () => {
    const [first, second] = meters.slice(20, 22) as [(typeof meters)[number], (typeof meters)[number]];
    const planid = await dailyTask([first.devAddr, second.devAddr], { enabled: false, nextRunAt: null });
    await t.db.update(plan).set({ planStatus: 'executing' }).where(eq(plan.id, planid));
    // A job that has run to its end: its id is the one a run with this id would be queued under.
    const runId = newId();
    const jobId = await t.app.jobs.send(COLLECTION_RUN_JOB, { runId }, { id: runJobId(runId) });
    await expect.poll(async () => (await t.app.jobs.getJob(jobId))?.state, LONG).toBe('completed');
    const period = { periodFrom: new Date(anchor - DAY_MS), periodTo: new Date(anchor) };
    const items = [{ cgcode: 'loadProfile', obis: OBIS.loadProfile, kind: 'profile' }];
    const common = { planId: planid, dueAt: new Date(anchor), items, requestedBy: 'admin', ...period };
    // One run whose job ended, one whose job is gone altogether (its record purged).
    const goneId = newId();
    await t.db.insert(collectionRun).values([
      { ...common, id: runId, kind: 'scheduled', status: 'running', jobId, devices: 2, expected: 2 * 96 },
      { ...common, id: goneId, kind: 'manual', status: 'queued', jobId: runJobId(newId()) },
    ]);
    await t.db.insert(collectionRunDevice).values(
      [first, second].map((m, i) => ({
        runId,
        meterId: m.id,
        devAddr: m.devAddr,
        gridId,
        expected: 96,
        requested: true,
        resultCode: i === 0 ? '00' : null,
      })),
    );

    await t.app.runScheduler.tick();
    const closed = await runOf(runId);
    expect(closed).toMatchObject({ status: 'finished', byCode: { '00': 1, '50': 1 } });
    expect(closed.finishedAt).not.toBeNull();
    expect((await runOf(goneId)).status).toBe('cancelled');
    const [task] = await t.db.select().from(plan).where(eq(plan.id, planid));
    expect(task?.planStatus).toBe('waiting');
  }, 120_000);
});
