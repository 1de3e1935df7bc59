import {
  type AssociatedDevice,
  type Campaign,
  type CampaignProgress,
  FIRMWARE_CMD,
  FIRMWARE_RES,
  IMAGE_TRANSFER,
  type Page,
  progressTopic,
} from '@meterdesk/contracts';
import { type Simulator, startSimulator } from '@meterdesk/simulator';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { dcu, deviceCommand, meter } from '../../db/schema';
import type { StoredCommand } from '../../headend/commands';
import { buildFleet } from '../../headend/fleet';
import { gridNode, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { imageBytes, saveFirmware } from './firmware-testing';

/*
 * Campaigns through HTTP against the simulated fleet (the embedded broker's TCP listener, or the
 * machine's Mosquitto with TEST_MQTT_URL). Meters whose serial ends in F fail image verification.
 */

const external = process.env.TEST_MQTT_URL;
const SETTLED = { timeout: 90_000, interval: 200 };
const prefix = `F${newId().slice(0, 6)}`.toUpperCase();
const dcuNo = `${prefix}D`;
const behindDcu = Array.from({ length: 10 }, (_, i) => `${prefix}M${String(i).padStart(2, '0')}`);
const failing = [`${prefix}M1F`, `${prefix}M2F`];
const direct = `${prefix}X01`;
const outside = `${prefix}OUT`;

let t: TestApp;
let sim: Simulator;
let admin: string;
let operator: string;

beforeAll(async () => {
  t = await createTestApp({}, { headEnd: true, deviceListener: !external });
  admin = await t.loginAdmin();
  // An answer lost across the restart is asked again after this many seconds.
  expect((await t.call('/obis/datatype/updatetimeout', { timeout: 3 }, admin)).status).toBe(200);
  const gridId = await gridNode(t);
  const otherGrid = await gridNode(t);
  const dcuId = newId();
  await t.db.insert(dcu).values({ id: dcuId, dcuNo, gridId });
  await t.db
    .insert(meter)
    .values([
      ...[...behindDcu, ...failing].map((devAddr) => ({ id: newId(), devAddr, gridId, dcuId })),
      { id: newId(), devAddr: direct, gridId },
      { id: newId(), devAddr: outside, gridId: otherGrid },
    ]);
  operator = await userOfGrid(t, gridId, [FIRMWARE_RES.page, FIRMWARE_RES.start, FIRMWARE_RES.associated]);
  sim = startSimulator({
    url: external ?? `mqtt://127.0.0.1:${t.broker.tcpPort}`,
    fleet: await buildFleet(t.db, t.app.deviceCredentials),
    seed: 7,
    knobs: {
      latency: { min: 5, median: 15, max: 40 },
      activationRebootSec: 0.5,
      imageVerifyFails: `^${prefix}M\\dF$`,
      imageBroadcastLoss: 0.2,
      powerOutagesPerDay: 0,
      coverOpensPerDay: 0,
    },
  });
  await sim.ready;
  const keys = [
    ...[...behindDcu, ...failing].map((key) => ({ kind: 'meter' as const, key, viaDcu: dcuNo })),
    { kind: 'meter' as const, key: direct, viaDcu: null },
  ];
  const end = Date.now() + SETTLED.timeout;
  while (![...(await t.app.headEnd.onlineStates(keys)).values()].every(Boolean)) {
    if (Date.now() > end) throw new Error('the simulated fleet did not come online');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 180_000);
afterAll(async () => {
  await sim?.stop();
  await t?.close();
});

const start = async (firmwareId: string, devices: string[], extra: object = {}, cookie = operator) => {
  const res = await t.call<{ campaignId: string; jobId: string }>(
    '/firmware/campaign/start',
    { firmwareId, devices, ...extra },
    cookie,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};
const campaign = async (campaignId: string) =>
  (await t.call<Campaign>('/firmware/campaign/detail', { campaignId }, operator)).body.data;
const settled = (campaignId: string, state: Campaign['state']) =>
  expect.poll(async () => (await campaign(campaignId)).state, SETTLED).toBe(state);
const byKey = (c: Campaign) => Object.fromEntries(c.devices.map((d) => [d.deviceKey, d]));
const activations = (key: string) => sim.device(key).state().image;

describe('firmware campaigns', { timeout: 180_000 }, () => {
  it('refuses more than 30 devices, devices outside the scope, of another kind or offline', async () => {
    const { id } = await saveFirmware(t, admin);
    const tooMany = await t.call(
      '/firmware/campaign/start',
      { firmwareId: id, devices: Array.from({ length: 31 }, (_, i) => `M${i}`) },
      operator,
    );
    expect(tooMany).toMatchObject({
      status: 400,
      body: { data: { issues: [{ field: 'devices', key: 'batchTooLarge' }] } },
    });
    const refusals: [string[], number, string][] = [
      [[behindDcu[0] as string, outside], 400, 'deviceNotFound'],
      [[dcuNo], 400, 'firmwareEquipmentMismatch'],
    ];
    for (const [devices, status, key] of refusals) {
      const res = await t.call('/firmware/campaign/start', { firmwareId: id, devices }, operator);
      expect({ devices: devices.length, status: res.status, msg: res.body.msg }).toMatchObject({ status, msg: key });
    }
    sim.device(direct).setOnline(false);
    await expect
      .poll(
        async () =>
          (await t.app.headEnd.onlineStates([{ kind: 'meter', key: direct, viaDcu: null }])).get(`meter:${direct}`),
        SETTLED,
      )
      .toBe(false);
    const offline = await t.call('/firmware/campaign/start', { firmwareId: id, devices: [direct] }, operator);
    expect(offline.body).toMatchObject({ msg: 'MThasOffline', data: { devices: [direct] } });
    sim.device(direct).setOnline(true);
  });

  it('upgrades meters peer to peer: progress live on the broker, versions read back under Associated, each activated once', async () => {
    const devices = behindDcu.slice(0, 3);
    const { id } = await saveFirmware(t, admin, { targetVersion: 'MT-9.1.0', splitSize: 256 }, imageBytes(5000));
    const heard: CampaignProgress[] = [];
    const { campaignId, jobId } = await start(id, devices, { canaryPercent: 34 });
    const stop = await t.broker.subscribe(progressTopic(jobId), (_topic, payload) => {
      heard.push(JSON.parse(payload.toString()) as CampaignProgress);
    });
    await settled(campaignId, 'finished');
    // The state is stored before its progress is published: the last message may still be on its way.
    await expect.poll(() => heard.at(-1), SETTLED).toMatchObject({ state: 'finished', done: 3 });
    await stop();
    const done = await campaign(campaignId);
    expect(done).toMatchObject({ total: 3, done: 3, failed: 0, canaryCount: 2 });
    for (const d of done.devices) expect(d).toMatchObject({ step: 'done', progress: '00', currentVersion: 'MT-9.1.0' });
    for (const key of devices) {
      expect(sim.device(key).state().firmware).toBe('MT-9.1.0');
      expect(activations(key)).toMatchObject({ activations: 1, activateCalls: 1 });
    }
    expect(heard.some((m) => m.devices.some((d) => d.progress === '66'))).toBe(true);
    const associated = await t.call<Page<AssociatedDevice>>('/firmware/associated', { firmwareId: id }, operator);
    expect(associated.body.data.list.map((d) => [d.deviceKey, d.currentVersion, d.targetVersion, d.progress])).toEqual(
      devices.map((key) => [key, 'MT-9.1.0', 'MT-9.1.0', '00']),
    );
  });

  it('stops at the canary when it fails verification, never activating it, and goes on when resumed', async () => {
    const devices = [failing[0] as string, behindDcu[3] as string, behindDcu[4] as string];
    const { id } = await saveFirmware(t, admin, { targetVersion: 'MT-9.2.0' }, imageBytes(3000));
    const before = sim.device(failing[0] as string).state().firmware;
    const { campaignId } = await start(id, devices, { canaryPercent: 10, maxFailurePercent: 10 });
    await settled(campaignId, 'paused');
    const paused = await campaign(campaignId);
    expect(paused.pausedReason).toBe('canary');
    expect(byKey(paused)[failing[0] as string]).toMatchObject({
      step: 'failed',
      progress: '99',
      reason: 'firmwareVerifyFailed',
    });
    for (const key of devices.slice(1)) expect(byKey(paused)[key]).toMatchObject({ step: 'waiting', progress: '' });
    expect(sim.device(failing[0] as string).state()).toMatchObject({ firmware: before, image: { activateCalls: 0 } });
    const activation = await t.db
      .select({ id: deviceCommand.id, command: deviceCommand.command })
      .from(deviceCommand)
      .where(and(eq(deviceCommand.deviceKey, failing[0] as string), eq(deviceCommand.operation, FIRMWARE_CMD)));
    expect(
      activation.some(
        (c) =>
          (c.command as StoredCommand).op === 'action' &&
          (c.command as StoredCommand).items.some(
            (i) => i.classId === IMAGE_TRANSFER.classId && i.attribute === IMAGE_TRANSFER.methods.activate,
          ),
      ),
    ).toBe(false);

    // A further selection joins the paused campaign, after its canary.
    const added = await t.call('/firmware/campaign/add', { campaignId, devices: [behindDcu[2]] }, operator);
    expect(added.body).toMatchObject({ code: 200, data: { total: 4 } });
    const resumed = await t.call<{ jobId: string }>('/firmware/campaign/resume', { campaignId }, operator);
    expect(resumed.status).toBe(200);
    const again = await t.call('/firmware/campaign/resume', { campaignId }, operator);
    expect(again.body.msg).toBe('campaignNotPaused');
    await settled(campaignId, 'finished');
    const finished = await campaign(campaignId);
    expect(finished).toMatchObject({ done: 3, failed: 1 });
    expect(byKey(finished)[behindDcu[2] as string]).toMatchObject({
      fromVersion: 'MT-9.1.0',
      currentVersion: 'MT-9.2.0',
    });
    const late = await t.call('/firmware/campaign/add', { campaignId, devices: [behindDcu[1]] }, operator);
    expect(late.body.msg).toBe('campaignFinished');
  });

  it('broadcasts through the DCU, pauses when failures pass the threshold, and resumes to the end', async () => {
    const devices = [...behindDcu.slice(5, 9), failing[1] as string];
    const { id } = await saveFirmware(
      t,
      admin,
      { targetVersion: 'MT-9.3.0', upgradeMethod: 'broadcast', splitSize: 128 },
      imageBytes(6000),
    );
    const { campaignId } = await start(id, devices, { canaryPercent: 20, maxFailurePercent: 10 });
    await settled(campaignId, 'paused');
    const paused = await campaign(campaignId);
    expect(paused.pausedReason).toBe('threshold');
    expect(byKey(paused)[failing[1] as string]).toMatchObject({ progress: '99', reason: 'firmwareVerifyFailed' });
    expect(activations(failing[1] as string).activateCalls).toBe(0);
    // The blocks went to the DCU, not to each meter.
    const broadcasts = await t.db
      .select({ id: deviceCommand.id })
      .from(deviceCommand)
      .where(and(eq(deviceCommand.deviceKind, 'dcu'), eq(deviceCommand.deviceKey, dcuNo)));
    expect(broadcasts.length).toBeGreaterThan(0);

    await t.call('/firmware/campaign/resume', { campaignId }, operator);
    await settled(campaignId, 'finished');
    const finished = await campaign(campaignId);
    for (const key of devices.slice(0, 4)) {
      expect(byKey(finished)[key]).toMatchObject({ step: 'done', currentVersion: 'MT-9.3.0' });
      expect(activations(key)).toMatchObject({ activations: 1, activateCalls: 1 });
    }
  });

  it('a restart mid-campaign goes on where each device was, without sending finished devices anything again', async () => {
    const devices = [behindDcu[9] as string, direct];
    // 768 blocks of 64 bytes: 12 commands of 64 blocks each; the second device answers slowly.
    const { id } = await saveFirmware(t, admin, { targetVersion: 'MT-9.4.0', splitSize: 64 }, imageBytes(64 * 64 * 12));
    sim.device(direct).setFault({ latencyMs: 150 });
    const { campaignId } = await start(id, devices, { canaryPercent: 50 });
    await expect
      .poll(async () => {
        const c = byKey(await campaign(campaignId));
        return c[devices[0] as string]?.step === 'done' && (c[direct]?.nextBlock ?? 0) > 0;
      }, SETTLED)
      .toBe(true);
    await t.restart();
    await settled(campaignId, 'finished');
    sim.device(direct).setFault({ latencyMs: null });
    // These two devices take part in no other campaign here.
    const commands = await t.db
      .select({ key: deviceCommand.deviceKey, command: deviceCommand.command, answer: deviceCommand.answer })
      .from(deviceCommand)
      .where(and(eq(deviceCommand.operation, FIRMWARE_CMD), inArray(deviceCommand.deviceKey, devices)))
      .orderBy(deviceCommand.createTime, deviceCommand.id);
    // The finished device got its steps once each: version, initiate, where it is, 12 block commands,
    // verify, activate, version again.
    expect(commands.filter((c) => c.key === devices[0])).toHaveLength(18);
    // The other read where it was after the restart (a first missing block past 0) and went on from there.
    const own = commands.filter((c) => c.key === direct);
    const resumedAt = own.findIndex(
      (c) =>
        (c.command as StoredCommand).op === 'get' &&
        (c.command as StoredCommand).items[0]?.attribute === IMAGE_TRANSFER.attributes.firstNotTransferredBlock &&
        ((c.answer as { items: { value: number }[] } | null)?.items[0]?.value ?? 0) > 0,
    );
    expect(resumedAt).toBeGreaterThan(0);
    const [resumed, next] = [own[resumedAt], own[resumedAt + 1]];
    const firstMissing = (resumed?.answer as { items: { value: number }[] } | undefined)?.items[0]?.value;
    const sent = (next?.command as StoredCommand | undefined)?.items[0]?.value as { block: number } | undefined;
    expect(sent?.block).toBe(firstMissing);
    for (const key of devices) expect(activations(key)).toMatchObject({ activations: 1, activateCalls: 1 });
    expect(sim.stats()).toMatchObject({ executedTwice: 0, image: { activatedTwice: 0, activateRepeated: 0 } });
  }, 180_000);
});
