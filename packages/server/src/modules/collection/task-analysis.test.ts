import {
  type DcuKpi,
  MAX_ANALYSIS_RANGE_DAYS,
  type Page,
  type RunKpi,
  type TaskAnalysisDetail,
  type TaskKpi,
} from '@meterdesk/contracts';
import { and, eq, inArray, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { collectionRun, collectionRunDevice, plan } from '../../db/schema';
import { exportedRows, gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { uniqueName } from '../../test/unique';
import { writeRunKpi } from './run-kpi';
import { checkPeriod } from './task-analysis.service';

/*
 * Task analysis through the HTTP API. The runs and their meters are written straight into
 * collection_run and collection_run_device (run.test.ts drives real runs against the simulator), so
 * every figure below is known exactly.
 */

const PAGE = '/dataAnalytic/taskAnalysis';
const DAY_MS = 86_400_000;

let t: TestApp;
let admin: string;
let operator: string;
let withoutResource: string;
let prefix: string;
let gridA: string;
let gridB: string;
const ids = { t1: '', t2: '', t3: '', deleted: '', r1: '', r2: '' };

const ago = (days: number) => new Date(Date.now() - days * DAY_MS);
/** The default period of the page: the last 7 days up to the end of today (UTC). */
const period = () => {
  const end = new Date();
  end.setUTCHours(23, 59, 59, 0);
  return { startTime: new Date(end.getTime() - 7 * DAY_MS + 1000).toISOString(), endTime: end.toISOString() };
};

async function task(name: string, gridIds: string[], status = 'waiting'): Promise<string> {
  const id = newId();
  await t.db.insert(plan).values({
    id,
    kind: 'collection',
    planName: `${prefix} ${name}`,
    planStatus: status,
    enabled: status !== 'deleted',
    devs: { itemType: 0, devList: [], devParams: { grid_ids: gridIds } },
    crontab: { starttime: Math.floor(Date.now() / 1000), freq: 1, unit: 'day', count: 30 },
    orders: [{ cgcode: 'loadProfile', cmd: 'collect', params: {}, isCyclePlan: false }],
    pri: 3,
    timeout: 10,
    concurrent: 2,
    createdBy: 'admin',
  });
  return id;
}

interface MeterRow {
  meter: { id: string; devAddr: string; gridId: string };
  dcuNo: string | null;
  expected?: number;
  received: number;
  code: string | null;
}

async function run(
  planId: string,
  kind: string,
  dueAt: Date,
  meters: MeterRow[],
  extra: { status?: string; parentRunId?: string } = {},
): Promise<string> {
  const id = newId();
  await t.db.insert(collectionRun).values({
    id,
    planId,
    kind,
    status: extra.status ?? 'finished',
    parentRunId: extra.parentRunId ?? null,
    dueAt,
    periodFrom: new Date(dueAt.getTime() - DAY_MS),
    periodTo: dueAt,
    items: [],
    devices: meters.length,
    expected: meters.reduce((n, m) => n + (m.expected ?? 97), 0),
    received: meters.reduce((n, m) => n + m.received, 0),
    requestedBy: 'admin',
  });
  if (meters.length)
    await t.db.insert(collectionRunDevice).values(
      meters.map((m) => ({
        runId: id,
        meterId: m.meter.id,
        devAddr: m.meter.devAddr,
        dcuNo: m.dcuNo,
        gridId: m.meter.gridId,
        expected: m.expected ?? 97,
        received: m.received,
        resultCode: m.code,
        requested: m.code !== null,
      })),
    );
  return id;
}

beforeAll(async () => {
  t = await createTestApp();
  prefix = uniqueName('ta');
  gridA = await gridNode(t);
  gridB = await gridNode(t);
  const at = async (gridId: string) => ({ ...(await meterAt(t, gridId)), gridId });
  const [m1, m2, m3, m4] = [await at(gridA), await at(gridA), await at(gridA), await at(gridB)];
  admin = await t.loginAdmin();
  operator = await userOfGrid(t, gridA, [PAGE, `${PAGE}/detail`, `${PAGE}/export`]);
  withoutResource = await userOfGrid(t, gridA, ['/serviceRequest/scheduledTask/taskMGT']);

  ids.t1 = await task('t1', [gridA]);
  ids.t2 = await task('t2', [gridB]);
  ids.t3 = await task('t3', [gridA]);
  ids.deleted = await task('deleted', [gridA], 'deleted');

  // t1, occurrence 1: m1 short, m3 offline; its repair completes m1 and finds m3 offline again.
  ids.r1 = await run(ids.t1, 'scheduled', ago(2), [
    { meter: m1, dcuNo: 'D1', received: 90, code: '99' },
    { meter: m2, dcuNo: 'D1', received: 97, code: '00' },
    { meter: m3, dcuNo: 'D2', received: 0, code: '90' },
    { meter: m4, dcuNo: null, received: 97, code: '00' },
  ]);
  await run(
    ids.t1,
    'repair',
    new Date(ago(2).getTime() + 3_600_000),
    [
      { meter: m1, dcuNo: 'D1', received: 97, code: '00' },
      { meter: m2, dcuNo: 'D1', received: 97, code: null },
      { meter: m3, dcuNo: 'D2', received: 0, code: '90' },
      { meter: m4, dcuNo: null, received: 97, code: null },
    ],
    { parentRunId: ids.r1 },
  );
  // A repair still to come has read nothing and counts for nothing.
  await run(ids.t1, 'repair', new Date(ago(2).getTime() + 7_200_000), [], {
    status: 'pending',
    parentRunId: ids.r1,
  });
  // t1, occurrence 2 (run now): m2 answers half of its readings.
  ids.r2 = await run(ids.t1, 'manual', ago(1), [
    { meter: m1, dcuNo: 'D1', received: 97, code: '00' },
    { meter: m2, dcuNo: 'D1', received: 48, code: '01' },
    { meter: m3, dcuNo: 'D2', received: 97, code: '00' },
    { meter: m4, dcuNo: null, received: 97, code: '00' },
  ]);
  // Outside the period: not counted.
  await run(ids.t1, 'scheduled', ago(20), [{ meter: m1, dcuNo: 'D1', received: 0, code: '99' }]);
  await run(ids.t2, 'scheduled', ago(1), [{ meter: m4, dcuNo: null, received: 97, code: '00' }]);
  await run(ids.deleted, 'scheduled', ago(1), [{ meter: m1, dcuNo: 'D1', received: 0, code: '99' }]);
});
afterAll(() => t?.close());

const list = (body: object, cookie = admin) =>
  t.call<Page<TaskKpi>>('/taskanalysis/list', { planName: prefix, ...period(), ...body }, cookie);

describe('task analysis list', () => {
  it('counts each occurrence once with what its repairs added, worst success rate first', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(3);
    expect(res.body.data.list).toEqual([
      {
        id: ids.t1,
        planName: `${prefix} t1`,
        planStatus: 'waiting',
        runs: 2,
        devices: 4,
        expected: 8 * 97,
        // occurrence 1: 97 + 97 + 0 + 97 after its repair; occurrence 2: 97 + 48 + 97 + 97
        received: 291 + 339,
        successRate: 81.2,
        // m3 (offline through the repair) and m2 (half read)
        failedDevices: 2,
      },
      expect.objectContaining({ id: ids.t2, runs: 1, devices: 1, expected: 97, received: 97, successRate: 100 }),
      expect.objectContaining({ id: ids.t3, runs: 0, devices: 0, expected: 0, successRate: null, failedDevices: 0 }),
    ]);
  });

  it('sorts by any KPI column, an empty rate last either way', async () => {
    const order = async (sortField: string, sortOrder: string) =>
      (await list({ sortField, sortOrder })).body.data.list.map((r) => r.id);
    expect(await order('successRate', 'descend')).toEqual([ids.t2, ids.t1, ids.t3]);
    expect(await order('successRate', 'ascend')).toEqual([ids.t1, ids.t2, ids.t3]);
    expect(await order('runs', 'descend')).toEqual([ids.t1, ids.t2, ids.t3]);
    expect(await order('failedDevices', 'ascend')).toEqual([ids.t2, ids.t3, ids.t1]);
  });

  it('shows a grid user only the tasks of their grid and counts only their meters', async () => {
    const res = await list({}, operator);
    expect(res.body.data.list.map((r) => r.id)).toEqual([ids.t1, ids.t3]);
    expect(res.body.data.list[0]).toMatchObject({
      devices: 3,
      expected: 6 * 97,
      received: 97 + 97 + 0 + (97 + 48 + 97),
      successRate: 74.9,
      failedDevices: 2,
    });
  });

  it('exports the list as filtered and sorted', async () => {
    const rows = await exportedRows(t, 'taskanalysis', operator, { planName: prefix, ...period() });
    expect(rows[0]).toEqual([
      'Task name',
      'State',
      'Runs',
      'Meters',
      'Expected readings',
      'Received readings',
      'Success rate (%)',
      'Failed meter reads',
    ]);
    expect(rows.slice(1).map((r) => r[0])).toEqual([`${prefix} t1`, `${prefix} t3`]);
    expect(rows[1]?.slice(2)).toEqual([2, 3, 582, 436, 74.9, 2]);
  });

  it('refuses a period too long, after today or reversed, and a column that does not sort, naming the field', async () => {
    const { endTime } = period();
    expect(fieldIssues((await list({ startTime: ago(40).toISOString(), endTime })).body)).toEqual([
      ['endTime', 'timeRangeTooLong'],
    ]);
    const late = await list({ endTime: new Date(Date.now() + 2 * DAY_MS).toISOString() });
    expect(late.status).toBe(400);
    expect(fieldIssues(late.body)).toEqual([['endTime', 'afterToday']]);
    expect(fieldIssues((await list({ startTime: endTime, endTime: ago(1).toISOString() })).body)).toEqual([
      ['startTime', 'timeRangeInvalid'],
    ]);
    const sort = await list({ sortField: 'planStatus' });
    expect(sort.status).toBe(400);
    expect(fieldIssues(sort.body)).toEqual([['sortField', 'invalidValue']]);
    expect(fieldIssues((await list({ startTime: 'yesterday' })).body)).toEqual([['startTime', 'invalidValue']]);
    const runs = await t.call('/taskanalysis/runs', { planid: ids.t1, ...period(), sortField: 'kind' }, admin);
    expect(fieldIssues(runs.body)).toEqual([['sortField', 'invalidValue']]);
  });

  it('answers 403 to a user without the page', async () => {
    expect((await list({}, withoutResource)).status).toBe(403);
    const detail = await t.call('/taskanalysis/detail', { planid: ids.t1, ...period() }, withoutResource);
    expect(detail.status).toBe(403);
  });
});

describe('the period', () => {
  // 20:00 UTC: already the next day at +08:00, still this day at -05:00.
  const now = new Date('2031-05-10T20:00:00Z');
  const refusal = (startTime: string, endTime: string) => {
    try {
      checkPeriod({ startTime, endTime }, now);
      return undefined;
    } catch (err) {
      return fieldIssues({ data: (err as { data: unknown }).data });
    }
  };

  it("ends with today 23:59:59 in the offset the period was written in, the caller's day", () => {
    expect(refusal('2031-05-05T00:00:00+08:00', '2031-05-11T23:59:59+08:00')).toBeUndefined();
    expect(refusal('2031-05-05T00:00:00+08:00', '2031-05-12T00:00:00+08:00')).toEqual([['endTime', 'afterToday']]);
    expect(refusal('2031-05-05T00:00:00-05:00', '2031-05-10T23:59:59-05:00')).toBeUndefined();
    expect(refusal('2031-05-05T00:00:00-05:00', '2031-05-11T00:00:00-05:00')).toEqual([['endTime', 'afterToday']]);
    expect(refusal('2031-05-05T00:00:00Z', '2031-05-10T23:59:59Z')).toBeUndefined();
    expect(refusal('2031-05-05T00:00:00Z', '2031-05-11T00:00:00Z')).toEqual([['endTime', 'afterToday']]);
  });

  it(`spans at most ${MAX_ANALYSIS_RANGE_DAYS} days`, () => {
    expect(refusal('2031-04-09T00:00:00Z', '2031-05-10T00:00:00Z')).toBeUndefined();
    expect(refusal('2031-04-09T00:00:00Z', '2031-05-10T00:00:01Z')).toEqual([['endTime', 'timeRangeTooLong']]);
  });
});

describe('task analysis detail', () => {
  const call = <T>(path: string, body: object, cookie = admin) =>
    t.call<T>(`/taskanalysis/${path}`, { planid: ids.t1, ...period(), ...body }, cookie);

  it('gives the KPI and the meters by the code of their last answered read', async () => {
    const res = await call<TaskAnalysisDetail>('detail', {});
    expect(res.body.data.task).toMatchObject({ id: ids.t1, successRate: 81.2, failedDevices: 2 });
    expect(res.body.data.byCode).toEqual([
      { code: '00', devices: 6 },
      { code: '01', devices: 1 },
      { code: '90', devices: 1 },
    ]);
  });

  it('lists the occurrences newest first with their repairs and the share the repairs brought', async () => {
    const res = await call<Page<RunKpi>>('runs', {});
    expect(res.body.data.total).toBe(2);
    expect(res.body.data.list).toEqual([
      {
        runId: ids.r2,
        kind: 'manual',
        status: 'finished',
        dueAt: expect.any(String),
        devices: 4,
        expected: 388,
        received: 339,
        successRate: 87.4,
        repairs: 0,
        repairedShare: 0,
        failedDevices: 1,
      },
      {
        runId: ids.r1,
        kind: 'scheduled',
        status: 'finished',
        dueAt: expect.any(String),
        devices: 4,
        expected: 388,
        received: 291,
        successRate: 75,
        repairs: 1,
        // 7 of the 291 readings came with the repair
        repairedShare: 2.4,
        failedDevices: 1,
      },
    ]);
    const worst = await call<Page<RunKpi>>('runs', { sortField: 'successRate', sortOrder: 'ascend' });
    expect(worst.body.data.list.map((r) => r.runId)).toEqual([ids.r1, ids.r2]);
  });

  it('groups by DCU, worst first, over the meters of the caller', async () => {
    const res = await call<Page<DcuKpi>>('dcus', {});
    expect(res.body.data).toMatchObject({ total: 3 });
    expect(res.body.data.list).toEqual([
      { dcuNo: 'D2', devices: 1, expected: 194, received: 97, successRate: 50, failedDevices: 1 },
      { dcuNo: 'D1', devices: 2, expected: 388, received: 339, successRate: 87.4, failedDevices: 1 },
      { dcuNo: null, devices: 1, expected: 194, received: 194, successRate: 100, failedDevices: 0 },
    ]);
    // The run-now occurrence alone: D1's two meters ended on different codes, and are still its two meters.
    const runNow = await call<Page<DcuKpi>>('dcus', { startTime: ago(1.5).toISOString(), sortField: 'dcuNo' });
    expect(runNow.body.data.list.find((d) => d.dcuNo === 'D1')).toMatchObject({ devices: 2, expected: 194 });
    const mine = await call<Page<DcuKpi>>('dcus', { sortField: 'dcuNo', sortOrder: 'ascend' }, operator);
    expect(mine.body.data.list.map((d) => d.dcuNo)).toEqual(['D1', 'D2']);
    const beyond = await call<Page<DcuKpi>>('dcus', { curPage: 3, pageSize: 2 }, operator);
    expect(beyond.body.data).toMatchObject({ list: [], total: 2 });
  });

  it('answers 404 for a task outside the caller’s grid and for a deleted task', async () => {
    for (const path of ['detail', 'runs', 'dcus']) {
      expect((await call(path, { planid: ids.t2 }, operator)).status, path).toBe(404);
      expect((await call(path, { planid: ids.deleted })).status, path).toBe(404);
    }
    expect((await call('detail', { planid: ids.t2 })).status).toBe(200);
  });
});

describe('settled occurrences', () => {
  // Last in the file: it settles the fixture's occurrences and deletes their device rows.
  it('are read from their KPI rows, written at a run’s end, with the figures their device rows gave', async () => {
    const answers = async () =>
      Promise.all(
        [admin, operator].flatMap((cookie) => [
          list({}, cookie),
          ...['detail', 'runs', 'dcus'].map((path) =>
            t.call(`/taskanalysis/${path}`, { planid: ids.t1, ...period() }, cookie),
          ),
        ]),
      ).then((all) => all.map((res) => res.body));
    const live = await answers();
    const occurrences = await t.db
      .select({ id: collectionRun.id })
      .from(collectionRun)
      .where(and(inArray(collectionRun.kind, ['scheduled', 'manual']), like(plan.planName, `${prefix}%`)))
      .innerJoin(plan, eq(plan.id, collectionRun.planId));
    for (const { id } of occurrences) await t.db.transaction((tx) => writeRunKpi(tx, id));
    const chains = await t.db
      .select({ id: collectionRun.id })
      .from(collectionRun)
      .innerJoin(plan, eq(plan.id, collectionRun.planId))
      .where(like(plan.planName, `${prefix}%`));
    await t.db.delete(collectionRunDevice).where(
      inArray(
        collectionRunDevice.runId,
        chains.map((c) => c.id),
      ),
    );
    expect(await answers()).toEqual(live);
  });
});
