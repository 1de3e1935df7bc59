import {
  type CommandRecord,
  DCU_OPERATIONS,
  type DeviceKind,
  METER_OPERATIONS,
  OBIS,
  type OperationName,
  type Plan,
  type PlanProgress,
  progressTopic,
  RELAY_STATES,
} from '@meterdesk/contracts';
import { type Simulator, startSimulator } from '@meterdesk/simulator';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../db/ids';
import { consumer, dcu, meter, meterType, obisItem, paramTemplate, poc, supplier } from '../db/schema';
import { gridNode, userOfGrid } from '../test/archive-fixtures';
import { EVENTUALLY } from '../test/constants';
import { createTestApp, type TestApp } from '../test/harness';
import { buildFleet } from './fleet';

/*
 * The head-end against the simulator on a real broker: the embedded one (devices log in with their
 * credentials on its TCP listener), or the machine's Mosquitto when TEST_MQTT_URL names it.
 */

const BUTTONS = [
  ...new Set(
    [...METER_OPERATIONS, ...DCU_OPERATIONS].map((op) =>
      op.startsWith('dcu') ? '/parameterSetting/dcuOperating/execute' : `/serviceRequest/batchOperation/${op}`,
    ),
  ),
];
const external = process.env.TEST_MQTT_URL;

let t: TestApp;
let sim: Simulator;
let operator: string;
const dcuNo = `D${newId().slice(0, 9)}`.toUpperCase();
const meters: string[] = [];
const direct = `M${newId().slice(0, 11)}`.toUpperCase();
/** Every meter is of this type, which the template applied here is for. */
const typeId = newId();
const templateId = newId();

/** Parameters each operation is run with here. */
const PARAMS: Partial<Record<OperationName, object>> = {
  clockSync: { source: 'custom', time: '2026-11-25T08:00:00+08:00' },
  paramSync: { mode: 'all' },
  applyParamTemplate: { templateId },
  read: { obis: ['1-0:32.7.0.255', '1-0:1.8.0.255', '0-0:1.0.0.255'] },
  dcuSetParameters: { heartbeatSeconds: 120 },
  dcuSetTaskParameters: { enabled: true, collectPeriodMinutes: 15 },
  dcuSetBlacklist: { meters: [] },
  dcuSetClock: { source: 'system' },
  dcuFrame: { frame: '68 01 02 16' },
};

beforeAll(async () => {
  t = await createTestApp({}, { headEnd: true, deviceListener: !external });
  const gridId = await gridNode(t);
  const dcuId = newId();
  await t.db.insert(dcu).values({ id: dcuId, dcuNo, gridId });
  for (let i = 0; i < 32; i++) meters.push(`${dcuNo}M${String(i).padStart(2, '0')}`);
  const supplierId = newId();
  await t.db.insert(supplier).values({ id: supplierId, supplierCode: dcuNo, supplierName: dcuNo });
  await t.db.insert(meterType).values({ id: typeId, modelName: dcuNo, supplierId, wiring: '1P2W', side: 'secondary' });
  await t.db.insert(paramTemplate).values({
    id: templateId,
    templateName: dcuNo,
    meterTypeId: typeId,
    items: [
      { obis: OBIS.demandPeriod, value: 1800 },
      { obis: OBIS.voltageSagThreshold, value: 1980 },
    ],
    createdBy: 'admin',
  });
  const rows = [
    ...meters.map((devAddr) => ({ id: newId(), devAddr, gridId, dcuId, meterTypeId: typeId })),
    { id: newId(), devAddr: direct, gridId, meterTypeId: typeId },
  ];
  await t.db.insert(meter).values(rows);
  // Operations need the consumer each meter supplies (spec §5).
  const consumers = rows.map((r) => ({
    id: newId(),
    consumerCode: `C${r.devAddr}`,
    consumerName: r.devAddr,
    consumerType: 'residential',
    paymentMode: 'postpay',
    gridId,
  }));
  await t.db.insert(consumer).values(consumers);
  await t.db.insert(poc).values(
    rows.map((r, i) => ({
      id: newId(),
      pocNo: `P${r.devAddr}`,
      nature: 1,
      consumerId: consumers[i]?.id,
      meterId: r.id,
      gridId,
    })),
  );
  operator = await userOfGrid(t, gridId, BUTTONS);
  const fleet = await buildFleet(t.db, t.app.deviceCredentials);
  sim = startSimulator({
    url: external ?? `mqtt://127.0.0.1:${t.broker.tcpPort}`,
    fleet,
    seed: 11,
    knobs: { latency: { min: 20, median: 50, max: 200 }, rebootSec: 1 },
  });
  await sim.ready;
  await until(() => online([...meters, direct]));
}, 120_000);
afterAll(async () => {
  await sim?.stop();
  await t?.close();
});

/** Waits (outside a test, where expect.poll is not available) until `check` holds. */
async function until(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('the simulated fleet did not come online');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function online(keys: string[], kind: DeviceKind = 'meter'): Promise<boolean> {
  const states = await t.app.headEnd.onlineStates(
    keys.map((key) => ({ kind, key, viaDcu: kind === 'meter' && key !== direct ? dcuNo : null })),
  );
  return [...states.values()].every(Boolean);
}

const plan = (cmd: OperationName, devList: string[], extra: object = {}) =>
  t.call<{ planid: string; jobId: string }>(
    '/plan/createplan',
    {
      planName: cmd,
      devs: { itemType: cmd.startsWith('dcu') ? 1 : 0, devList },
      orders: [{ cmd, params: PARAMS[cmd] ?? {} }],
      ...extra,
    },
    operator,
  );

async function outcome(planid: string): Promise<Plan> {
  await expect
    .poll(async () => (await t.call<Plan>('/plan/detail', { planid }, operator)).body.data.planStatus, {
      timeout: 60_000,
      interval: 100,
    })
    .toBe('finished');
  return (await t.call<Plan>('/plan/detail', { planid }, operator)).body.data;
}

describe('every operation against the simulator', () => {
  it.each(METER_OPERATIONS)('%s succeeds on an online meter behind a DCU and on a direct meter', async (op) => {
    const res = await plan(op, [meters[0] as string, direct]);
    expect(res.status).toBe(200);
    expect((await outcome(res.body.data.planid)).byCode).toEqual({ '00': 2 });
  });

  it.each(DCU_OPERATIONS)('%s succeeds on an online DCU', async (op) => {
    // A reboot takes the DCU away for a moment; the next operation waits until the head-end has seen it
    // come back. Asking whether it is online is not enough: the reply can be handled before the offline
    // status sent with it (a DCU's link change runs triggers over its meters), so the DCU would look
    // online while it reboots, and the next test's command would go to a DCU that is not listening.
    let back = false;
    const stop = t.app.headEnd.onLinkChange((change) => {
      if (change.kind === 'dcu' && change.key === dcuNo && change.online) back = true;
    });
    try {
      const res = await plan(op, [dcuNo]);
      expect(res.status).toBe(200);
      expect((await outcome(res.body.data.planid)).byCode).toEqual({ '00': 1 });
      if (op === 'dcuReboot') await expect.poll(() => back, { timeout: 30_000, interval: 100 }).toBe(true);
    } finally {
      stop();
    }
  });

  it('a disconnect leaves the relay disconnected and a connect closes it: target states, not toggles', async () => {
    const addr = meters[1] as string;
    for (let i = 0; i < 2; i++) {
      const res = await plan('relayDisconnect', [addr]);
      expect((await outcome(res.body.data.planid)).byCode).toEqual({ '00': 1 });
    }
    expect(sim.device(addr).state().mainRelay).toBe(RELAY_STATES.disconnected);
    const res = await plan('relayConnect', [addr]);
    await outcome(res.body.data.planid);
    expect(sim.device(addr).state().mainRelay).toBe(RELAY_STATES.connected);
  });
});

describe('parameter templates', () => {
  it("sets a template's items; one the meter lacks fails alone (01); a meter of another type is refused", async () => {
    const addr = meters[5] as string;
    const own = '0-0:96.50.1.255';
    await t.db.insert(obisItem).values({
      id: newId(),
      obis: own,
      classId: 1,
      attribute: 2,
      description: "An operator's own setting",
      cgName: `own_${dcuNo}`,
      settingChannel: true,
    });
    const partial = newId();
    await t.db.insert(paramTemplate).values({
      id: partial,
      templateName: `${dcuNo} partial`,
      meterTypeId: typeId,
      items: [
        { obis: OBIS.demandPeriod, value: 300 },
        { obis: own, value: 'on' },
      ],
      createdBy: 'admin',
    });
    const res = await plan('applyParamTemplate', [addr], {
      orders: [{ cmd: 'applyParamTemplate', params: { templateId: partial } }],
    });
    expect((await outcome(res.body.data.planid)).byCode).toEqual({ '01': 1 });
    const results = await t.call<{ list: CommandRecord[] }>(
      '/plan/results',
      { planid: res.body.data.planid },
      operator,
    );
    expect(results.body.data.list[0]?.items.map((i) => [i.obis, i.code])).toEqual([
      [OBIS.demandPeriod, '00'],
      [own, '02'],
    ]);
    expect(sim.device(addr).state().settings.demandPeriodSec).toBe(300);

    // A template for another meter type is refused on these meters, and nothing is sent.
    const otherType = newId();
    const [type] = await t.db.select().from(meterType).where(eq(meterType.id, typeId));
    await t.db.insert(meterType).values({ ...type!, id: otherType, modelName: `${dcuNo} other` });
    await t.db.update(paramTemplate).set({ meterTypeId: otherType }).where(eq(paramTemplate.id, partial));
    const other = await plan('applyParamTemplate', [addr, direct], {
      orders: [{ cmd: 'applyParamTemplate', params: { templateId: partial } }],
    });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ msg: 'paramTemplateMeterType' });
    expect((other.body as unknown as { data: { devices: string[] } }).data.devices.sort()).toEqual(
      [addr, direct].sort(),
    );
  });
});

describe('faults', () => {
  it('an offline meter is refused with MThasOffline; one that drops before its turn ends with 90', async () => {
    const addr = meters[2] as string;
    sim.device(addr).setOnline(false);
    await expect.poll(() => online([addr]), EVENTUALLY).toBe(false);
    const refused = await plan('relayConnect', [addr]);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ msg: 'MThasOffline', data: { devices: [addr] } });
    sim.device(addr).setOnline(true);
    await expect.poll(() => online([addr]), EVENTUALLY).toBe(true);

    const later = await plan('relayConnect', [addr], {
      crontab: { starttime: Math.ceil(Date.now() / 1000) + 3, count: 1 },
    });
    expect(later.status).toBe(200);
    sim.device(addr).setOnline(false);
    expect((await outcome(later.body.data.planid)).byCode).toEqual({ '90': 1 });
    sim.device(addr).setOnline(true);
    await expect.poll(() => online([addr]), EVENTUALLY).toBe(true);
  });

  it('a silent meter ends with 99', async () => {
    const addr = meters[3] as string;
    sim.device(addr).setFault({ silent: true });
    const res = await plan('relayConnect', [addr], { timeout: 5 });
    expect((await outcome(res.body.data.planid)).byCode).toEqual({ '99': 1 });
    sim.device(addr).setFault({ silent: false });
  });

  it('a busy meter answers 91, and the retry succeeds', async () => {
    const addr = meters[4] as string;
    sim.device(addr).setFault({ busyNext: 1 });
    const res = await plan('clockSync', [addr]);
    expect((await outcome(res.body.data.planid)).byCode).toEqual({ '00': 1 });
    const results = await t.call<{ list: { attempts: { code: string }[] }[] }>(
      '/plan/results',
      { planid: res.body.data.planid },
      operator,
    );
    expect(results.body.data.list[0]?.attempts.map((a) => a.code)).toEqual(['91', '00']);
  });
});

it('a batch clock sync on 30 meters reports each result live on progress/{jobId}', async () => {
  const batch = meters.slice(2, 32);
  const res = await plan('clockSync', batch, { crontab: { starttime: Math.ceil(Date.now() / 1000) + 2, count: 1 } });
  expect(res.status).toBe(200);
  const seen = new Map<string, string | null>();
  let last: PlanProgress | null = null;
  const stop = await t.broker.subscribe(progressTopic(res.body.data.jobId), (_topic, payload) => {
    last = JSON.parse(payload.toString()) as PlanProgress;
    for (const r of last.results) seen.set(r.deviceKey, r.resultCode);
  });
  try {
    await expect.poll(() => (last as PlanProgress | null)?.done, { timeout: 60_000, interval: 100 }).toBe(30);
    expect(seen.size).toBe(30);
    expect([...seen.values()].every((code) => code === '00')).toBe(true);
  } finally {
    await stop();
  }
  expect(sim.stats().duplicateSends).toBe(0);
  expect(sim.stats().executedTwice).toBe(0);
}, 90_000);
