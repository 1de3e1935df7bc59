import { type DarkMeter, OUTAGE_RES, type OutageSummary, type Page } from '@meterdesk/contracts';
import { type Simulator, startSimulator } from '@meterdesk/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { dcu, meter, powerGrid } from '../../db/schema';
import { buildFleet } from '../../headend/fleet';
import { userOfGrid } from '../../test/archive-fixtures';
import { EVENTUALLY } from '../../test/constants';
import { createTestApp, type TestApp } from '../../test/harness';

/*
 * The blackout knob end to end: the call tells the simulator (here the library in this process, on
 * the channel main.ts gives the child process), the simulated meters send their last gasps and go
 * offline through the broker, the head-end and the readings ingest, and the outage view goes dark.
 */
const external = process.env.TEST_MQTT_URL;

let t: TestApp;
let sim: Simulator;
const dcuNo = `D${newId().slice(0, 9)}`.toUpperCase();
const meters = [0, 1, 2].map((i) => `${dcuNo}M${i}`);
const direct = `M${newId().slice(0, 11)}`.toUpperCase();
let area: string;
let other: string;

beforeAll(async () => {
  t = await createTestApp({}, { headEnd: true, deviceListener: !external });
  const feeder = newId();
  area = newId();
  other = newId();
  await t.db.insert(powerGrid).values([
    { id: feeder, gridCode: `F${feeder.slice(0, 8)}`, gridName: `F ${feeder.slice(0, 8)}`, gridType: 2, parentId: '0' },
    { id: area, gridCode: `A${area.slice(0, 8)}`, gridName: `A ${area.slice(0, 8)}`, gridType: 3, parentId: feeder },
    { id: other, gridCode: `B${other.slice(0, 8)}`, gridName: `B ${other.slice(0, 8)}`, gridType: 3, parentId: feeder },
  ]);
  const dcuId = newId();
  await t.db.insert(dcu).values({ id: dcuId, dcuNo, gridId: area });
  await t.db
    .insert(meter)
    .values([
      ...meters.map((devAddr) => ({ id: newId(), devAddr, gridId: area, dcuId })),
      { id: newId(), devAddr: direct, gridId: other },
    ]);
  sim = startSimulator({
    url: external ?? `mqtt://127.0.0.1:${t.broker.tcpPort}`,
    fleet: await buildFleet(t.db, t.app.deviceCredentials),
    seed: 7,
    knobs: { latency: { min: 10, median: 20, max: 50 }, powerOutagesPerDay: 0, coverOpensPerDay: 0 },
  });
  await sim.ready;
  t.app.simulatedOutages.attach({
    send: (control) => {
      sim.setPower(control.devices, control.powered);
      return true;
    },
  });
}, 120_000);
afterAll(async () => {
  await sim?.stop();
  await t?.close();
});

const online = async (keys: string[]) =>
  [
    ...(await t.app.headEnd.onlineStates(keys.map((key) => ({ kind: 'meter' as const, key, viaDcu: dcuNo })))).values(),
  ].every(Boolean);

describe('the blackout knob', () => {
  it('blacks out a transformer area in the simulator, which goes dark in the outage view, and restores it', async () => {
    const admin = await t.loginAdmin();
    await expect.poll(() => online(meters), EVENTUALLY).toBe(true);

    const res = await t.call('/simulator/power', { gridId: area, powered: false }, admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ meters: 3, dcus: 1 });
    const summary = async () => (await t.call<OutageSummary>('/outage/summary', { gridId: area }, admin)).body.data;
    await expect
      .poll(async () => (await summary()) as object, EVENTUALLY)
      .toMatchObject({ darkMeters: 3, darkDcus: 1, darkAreas: 1 });
    await expect.poll(() => online(meters), EVENTUALLY).toBe(false);
    // The area's neighbour keeps its supply.
    expect(sim.device(direct).state().powered).toBe(true);
    const list = (await t.call<Page<DarkMeter>>('/outage/meters', { gridId: area }, admin)).body.data;
    expect(list.list.map((m) => m.devAddr).sort()).toEqual([...meters].sort());

    expect((await t.call('/simulator/power', { gridId: area, powered: true }, admin)).status).toBe(200);
    await expect.poll(async () => (await summary()).darkMeters, EVENTUALLY).toBe(0);
    await expect.poll(async () => (await summary()).darkDcus, EVENTUALLY).toBe(0);
    await expect.poll(() => online(meters), EVENTUALLY).toBe(true);
  });

  it('touches only nodes within the caller’s scope', async () => {
    const neighbour = await userOfGrid(t, other, [OUTAGE_RES.simulate]);
    const res = await t.call('/simulator/power', { gridId: area, powered: false }, neighbour);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.data)).toContain('gridNotFound');
    expect(sim.device(meters[0] as string).state().powered).toBe(true);
  });
});
