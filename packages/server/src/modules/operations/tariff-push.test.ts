import {
  ACTIVITY_CALENDAR,
  type Page,
  type Poc,
  RESULT_CODES,
  type TariffEvent,
  type TariffPush,
  type TariffPushCreated,
  type TouCalendar,
} from '@meterdesk/contracts';
import { type Simulator, startSimulator } from '@meterdesk/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { dcu, meter, poc, tariffPush } from '../../db/schema';
import { buildFleet } from '../../headend/fleet';
import { gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { EVENTUALLY } from '../../test/constants';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { type Answer, headEndOnline, scriptedDevice } from '../../test/scripted-device';
import { uniqueName } from '../../test/unique';

const ISSUE = '/serviceRequest/tariffConfiguration/issue';
const external = process.env.TEST_MQTT_URL;

const CALENDAR: TouCalendar = {
  seasons: [{ start: '01-01', weekId: 1 }],
  weeks: [{ weekId: 1, days: [1, 1, 1, 1, 1, 2, 2] }],
  days: [
    {
      dayId: 1,
      switches: [
        { time: '00:00', rate: 2 },
        { time: '07:30', rate: 1 },
        { time: '21:00', rate: 2 },
      ],
    },
    { dayId: 2, switches: [{ time: '00:00', rate: 2 }] },
  ],
  specialDays: [{ date: '05-01', dayId: 2 }],
};

let t: TestApp;
let sim: Simulator;
let admin: string;
let operator: string;
let gridId: string;
let tariffId: string;
const simDcu = `D${newId().slice(0, 9)}`.toUpperCase();
const simMeters = [1, 2, 3].map((i) => `${simDcu}M${i}`);

const inAMinute = () => new Date(Date.now() + 60_000).toISOString();
const push = (devList: string[], extra: object = {}, cookie = operator) =>
  t.call<TariffPushCreated>(
    '/tariffitem/createtariffplan',
    { tariffId, devList, activationTime: inAMinute(), ...extra },
    cookie,
  );
const events = async (pushId: string, failedOnly = false) =>
  (await t.call<Page<TariffEvent>>('/tariffevent/listtariffeventlog', { pushId, failedOnly }, operator)).body.data.list;
const pushDetail = async (pushId: string) =>
  (await t.call<TariffPush>('/tariffitem/detail', { pushId }, operator)).body.data;
const answered = (pushId: string, done: number) =>
  expect.poll(async () => (await pushDetail(pushId)).done, EVENTUALLY).toBe(done);
const syncStatus = async (pocId: string) =>
  (await t.call<Poc>('/poc/detail', { id: pocId }, admin)).body.data.syncStatus;

/** A meter of the test's grid at a POC of the tariff, online and answered by a scripted device. */
async function scriptedMeter(answers: Answer[] = []) {
  const m = await meterAt(t, gridId);
  const pocId = newId();
  await t.db.insert(poc).values({ id: pocId, pocNo: uniqueName('P'), nature: 1, meterId: m.id, tariffId, gridId });
  const device = await scriptedDevice(t.broker, 'meter', m.devAddr, answers);
  await device.setOnline(true);
  await expect.poll(() => headEndOnline(t.app.headEnd, 'meter', m.devAddr), EVENTUALLY).toBe(true);
  return { ...m, pocId, device };
}

beforeAll(async () => {
  t = await createTestApp({}, { headEnd: true, deviceListener: !external });
  admin = await t.loginAdmin();
  gridId = await gridNode(t);
  operator = await userOfGrid(t, gridId, [ISSUE, '/serviceRequest/tariffConfiguration']);
  const saved = await t.call<{ id: string }>(
    '/tariff/save',
    { tariffName: uniqueName('Push'), calendar: CALENDAR },
    admin,
  );
  tariffId = saved.body.data.id;
  // The simulated meters, behind a DCU; the scripted ones each test adds are not in the fleet.
  const dcuId = newId();
  await t.db.insert(dcu).values({ id: dcuId, dcuNo: simDcu, gridId });
  await t.db.insert(meter).values(simMeters.map((devAddr) => ({ id: newId(), devAddr, gridId, dcuId, tariffId })));
  sim = startSimulator({
    url: external ?? `mqtt://127.0.0.1:${t.broker.tcpPort}`,
    fleet: await buildFleet(t.db, t.app.deviceCredentials),
    seed: 19,
    knobs: { latency: { min: 20, median: 50, max: 200 } },
  });
  await sim.ready;
  const deadline = Date.now() + 60_000;
  const allOnline = async () => {
    const states = await t.app.headEnd.onlineStates(
      simMeters.map((key) => ({ kind: 'meter' as const, key, viaDcu: simDcu })),
    );
    return [...states.values()].every(Boolean);
  };
  while (!(await allOnline())) {
    if (Date.now() > deadline) throw new Error('the simulated meters did not come online');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 300_000);
afterAll(async () => {
  await sim?.stop();
  await t?.close();
});

describe('tariff push', () => {
  it('writes the passive calendar and special days to simulated meters, which take it', async () => {
    const res = await push(simMeters);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await answered(res.body.data.pushId, 3);
    expect(await pushDetail(res.body.data.pushId)).toMatchObject({ total: 3, succeeded: 3, byCode: { '00': 3 } });
  });

  it('sends one set of class 20 attributes 6–10 and the special days; the POC becomes synchronized, then changed', async () => {
    const m = await scriptedMeter();
    expect(await syncStatus(m.pocId)).toBe(0);
    const activationTime = inAMinute();
    const res = await push([m.devAddr], { activationTime });
    expect(res.status).toBe(200);
    await answered(res.body.data.pushId, 1);
    const [command] = m.device.received;
    expect(command?.op).toBe('set');
    expect(command?.items.map((i) => [i.classId, i.attribute])).toEqual([
      ...[6, 7, 8, 9, 10].map((a) => [ACTIVITY_CALENDAR.classId, a]),
      [11, 2],
    ]);
    expect(command?.items.map((i) => i.value)).toEqual([
      expect.stringMatching(/^Push/),
      CALENDAR.seasons,
      CALENDAR.weeks,
      CALENDAR.days,
      new Date(activationTime).toISOString(),
      CALENDAR.specialDays,
    ]);
    expect(await events(res.body.data.pushId)).toEqual([
      expect.objectContaining({ devAddr: m.devAddr, state: 'done', resultCode: '00', attempts: 1 }),
    ]);
    expect(await syncStatus(m.pocId)).toBe(1);

    // An edit of the tariff's calendar: what the meter holds is no longer the tariff.
    const tariff = (await t.call<Record<string, unknown>>('/tariff/detail', { id: tariffId }, admin)).body.data;
    const edited = structuredClone(CALENDAR);
    edited.days[0]?.switches.push({ time: '23:00', rate: 2 });
    const { tariffName, remark, price1, price2, price3, price4 } = tariff;
    const update = { id: tariffId, tariffName, remark, price1, price2, price3, price4, calendar: edited };
    expect((await t.call('/tariff/update', update, admin)).status).toBe(200);
    expect(await syncStatus(m.pocId)).toBe(2);
    expect((await t.call('/tariff/update', { ...update, calendar: CALENDAR }, admin)).status).toBe(200);
  });

  it('lists a failed meter and re-sends to the failed meters only, which then take it', async () => {
    const good = await scriptedMeter();
    const flaky = await scriptedMeter([RESULT_CODES.failure]);
    const res = await push([good.devAddr, flaky.devAddr]);
    const { pushId } = res.body.data;
    await answered(pushId, 2);
    expect(await events(pushId, true)).toEqual([
      expect.objectContaining({ devAddr: flaky.devAddr, resultCode: '02', attempts: 1 }),
    ]);
    expect(await syncStatus(flaky.pocId)).toBe(0);

    const again = await t.call<TariffPushCreated>('/tariffevent/restarttariffeventlog', { pushId }, operator);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ pushId });
    expect(again.body.data.planid).not.toBe(res.body.data.planid);
    // Waiting again until its answer: neither failed nor succeeded meanwhile.
    await expect.poll(async () => (await pushDetail(pushId)).succeeded, EVENTUALLY).toBe(2);
    expect(await pushDetail(pushId)).toMatchObject({ total: 2, done: 2, failed: 0 });
    expect((await events(pushId)).find((e) => e.devAddr === flaky.devAddr)).toMatchObject({
      attempts: 2,
      resultCode: '00',
    });
    expect(good.device.received).toHaveLength(1);
    expect(flaky.device.received).toHaveLength(2);
    expect(await syncStatus(flaky.pocId)).toBe(1);
    const none = await t.call('/tariffevent/restarttariffeventlog', { pushId }, operator);
    expect(none.body).toMatchObject({ code: 400, msg: 'nothingToRetry' });
  });

  it('refuses an offline meter, one already executing a push, a past activation time and more than 30 meters; nothing is written', async () => {
    const pushes = async () => (await t.db.select({ id: tariffPush.id }).from(tariffPush)).length;
    const before = await pushes();
    const offline = await meterAt(t, gridId);
    const online = await scriptedMeter(['silent']);
    expect((await push([online.devAddr, offline.devAddr])).body).toMatchObject({
      code: 400,
      msg: 'MThasOffline',
      data: { devices: [offline.devAddr] },
    });
    expect(fieldIssues((await push([online.devAddr], { activationTime: '2020-01-01T00:00:00Z' })).body)).toEqual([
      ['activationTime', 'activationTimeNotFuture'],
    ]);
    const many = Array.from({ length: 31 }, (_, i) => `M${i}`);
    expect(fieldIssues((await push(many)).body)).toEqual([['devList', 'batchTooLarge']]);
    expect(await pushes()).toBe(before);

    expect((await push([online.devAddr])).status).toBe(200);
    expect((await push([online.devAddr])).body).toMatchObject({ code: 400, msg: 'MTisExecute' });
    // Pushes go through tariff configuration only, never as a plan's order.
    const asPlan = await t.call(
      '/plan/createplan',
      { planName: 'x', devs: { itemType: 0, devList: [online.devAddr] }, orders: [{ cmd: 'tariffPush' }] },
      admin,
    );
    expect(fieldIssues(asPlan.body)).toEqual([['orders.0.cmd', 'invalidValue']]);
    expect(
      (await push([online.devAddr], {}, await userOfGrid(t, gridId, ['/serviceRequest/tariffConfiguration']))).status,
    ).toBe(403);
  });
});
