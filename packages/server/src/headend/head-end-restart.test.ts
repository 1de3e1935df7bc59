import { type DeviceCommand, type Plan, RESULT_CODES } from '@meterdesk/contracts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { gridNode, suppliedMeter, userOfGrid } from '../test/archive-fixtures';
import { EVENTUALLY } from '../test/constants';
import { createTestApp, type TestApp } from '../test/harness';
import { type Answer, headEndOnline, scriptedDevice } from '../test/scripted-device';

const CONNECT = '/serviceRequest/batchOperation/relayConnect';

let t: TestApp;
let operator: string;
let gridId: string;

beforeAll(async () => {
  t = await createTestApp({}, { headEnd: true });
  gridId = await gridNode(t);
  operator = await userOfGrid(t, gridId, [CONNECT]);
});
afterAll(() => t?.close());

async function onlineMeter(answers: Answer[]) {
  const m = await suppliedMeter(t, gridId);
  const device = await scriptedDevice(t.broker, 'meter', m.devAddr, answers);
  await device.setOnline(true);
  await expect.poll(() => headEndOnline(t.app.headEnd, 'meter', m.devAddr), EVENTUALLY).toBe(true);
  return { ...m, device };
}

const connect = async (devAddr: string, extra: object = {}) => {
  const res = await t.call<{ planid: string }>(
    '/plan/createplan',
    { planName: 'restart', devs: { itemType: 0, devList: [devAddr] }, orders: [{ cmd: 'relayConnect' }], ...extra },
    operator,
  );
  expect(res.status).toBe(200);
  return res.body.data.planid;
};

const planOf = async (planid: string) => (await t.call<Plan>('/plan/detail', { planid }, operator)).body.data;

it('a restart loses no command and sends none twice: sent ones are answered or retried, queued ones go once', async () => {
  // A: sent before the stop, answered after the restart.
  let held: DeviceCommand | null = null;
  const answeredLate = await onlineMeter([
    (command) => {
      held = command;
      return null;
    },
  ]);
  const planA = await connect(answeredLate.devAddr);
  await expect.poll(() => answeredLate.device.received.length, EVENTUALLY).toBe(1);

  // B: its answer is lost across the stop; it times out after the restart and the retry succeeds.
  const lost = await onlineMeter(['silent', RESULT_CODES.success]);
  const planB = await connect(lost.devAddr, { timeout: 5 });
  await expect.poll(() => lost.device.received.length, EVENTUALLY).toBe(1);

  // C: still queued (due a few seconds from now) when the server stops.
  const queued = await onlineMeter([]);
  const planC = await connect(queued.devAddr, { crontab: { starttime: Math.ceil(Date.now() / 1000) + 4, count: 1 } });
  expect(queued.device.received).toHaveLength(0);

  await t.restart();
  // C leaves only when the restarted dispatcher has run: had it sent A again, A would have it by now.
  await expect.poll(() => queued.device.received.length, { timeout: 30_000, interval: 100 }).toBe(1);

  const late = held as DeviceCommand | null;
  expect(late).not.toBeNull();
  await answeredLate.device.reply({ reqId: late?.reqId, code: RESULT_CODES.success });

  for (const planid of [planA, planB, planC])
    await expect
      .poll(async () => (await planOf(planid)).planStatus, { timeout: 60_000, interval: 200 })
      .toBe('finished');
  expect((await planOf(planA)).byCode).toEqual({ '00': 1 });
  expect((await planOf(planB)).byCode).toEqual({ '00': 1 });
  expect((await planOf(planC)).byCode).toEqual({ '00': 1 });

  // Nothing went twice: A once; B once per attempt, under one reqId; C once.
  expect(answeredLate.device.received).toHaveLength(1);
  expect(lost.device.received.map((c) => c.attempt)).toEqual([1, 2]);
  expect(new Set(lost.device.received.map((c) => c.reqId)).size).toBe(1);
  expect(queued.device.received).toHaveLength(1);
}, 120_000);
