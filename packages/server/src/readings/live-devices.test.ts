import {
  type DeviceEvent,
  deviceTopic,
  gridDevicesTopic,
  type LiveDeviceMessage,
  type Meter,
  POWER_EVENTS,
  RES,
} from '@meterdesk/contracts';
import mqtt from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { gridNode, meterAt, userOfGrid } from '../test/archive-fixtures';
import { EVENTUALLY } from '../test/constants';
import { createTestApp, type TestApp } from '../test/harness';
import { ReadingWriter } from './writer';

const METER_PAGE = '/archiveSetting/meter';

/**
 * Live device changes reach browsers through the embedded broker's subscribe check (an external
 * broker applies its own ACL: docs/operations.md), so this file runs on it in both passes.
 */
describe('live device changes', () => {
  let t: TestApp;
  let base: string;
  let adminCookie: string;

  beforeAll(async () => {
    t = await createTestApp({}, { embeddedBroker: true, headEnd: true });
    await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.http.server.address();
    base = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    adminCookie = await t.loginAdmin();
  });
  afterAll(() => t.close());
  afterEach(() => vi.restoreAllMocks());

  const connect = (cookie: string) =>
    mqtt.connectAsync(`ws://${base}/mqtt`, {
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 3000,
      wsOptions: { headers: { cookie } },
    });
  const collect = (client: mqtt.MqttClient) => {
    const heard: LiveDeviceMessage[] = [];
    client.on('message', (_topic, payload) => heard.push(JSON.parse(payload.toString()) as LiveDeviceMessage));
    return heard;
  };
  const changesOf = (heard: LiveDeviceMessage[]) =>
    heard.flatMap((m) => m.changes.map((c) => `${m.gridId} ${c.key} ${c.change}`));
  const event = (code: number, at: Date): DeviceEvent => ({ code, time: at.toISOString(), level: 'severe' });

  it("delivers the changes of the caller's grid, and never another grid's", async () => {
    const region = await gridNode(t);
    const areaA = await gridNode(t, region);
    const areaB = await gridNode(t, region);
    const a = await meterAt(t, areaA);
    const b = await meterAt(t, areaB);
    const userA = await connect(await userOfGrid(t, areaA, [METER_PAGE]));
    const admin = await connect(adminCookie);

    await userA.subscribeAsync(gridDevicesTopic(areaA));
    // Another area, the node above its own, a wildcard: refused (SUBACK 128).
    await expect(userA.subscribeAsync(gridDevicesTopic(areaB))).rejects.toThrow(/Subscribe error/);
    await expect(userA.subscribeAsync(gridDevicesTopic(region))).rejects.toThrow(/Subscribe error/);
    await expect(userA.subscribeAsync('live/grid/+/devices')).rejects.toThrow(/Subscribe error/);
    await admin.subscribeAsync(gridDevicesTopic(region));
    const heardA = collect(userA);
    const heardAdmin = collect(admin);

    await t.broker.publish(deviceTopic('meter', b.devAddr, 'status'), { online: true });
    await t.broker.publish(deviceTopic('meter', a.devAddr, 'status'), { online: true });
    const down = new Date(Date.now() - 60_000);
    await t.broker.publish(deviceTopic('meter', b.devAddr, 'event'), event(POWER_EVENTS.meter.down, down));
    await t.broker.publish(deviceTopic('meter', a.devAddr, 'event'), event(POWER_EVENTS.meter.down, down));

    // The node above both hears both, on its own topic.
    await expect
      .poll(() => changesOf(heardAdmin).sort(), EVENTUALLY)
      .toEqual(
        [
          `${region} ${a.devAddr} online`,
          `${region} ${a.devAddr} powerDown`,
          `${region} ${b.devAddr} online`,
          `${region} ${b.devAddr} powerDown`,
        ].sort(),
      );
    await expect
      .poll(() => changesOf(heardA).sort(), EVENTUALLY)
      .toEqual([`${areaA} ${a.devAddr} online`, `${areaA} ${a.devAddr} powerDown`]);
    const [powerDown] = heardA.flatMap((m) => m.changes).filter((c) => c.change === 'powerDown');
    expect(powerDown).toMatchObject({ kind: 'meter', id: a.id, gridId: areaA, at: down.toISOString() });

    // The same last gasp again, or an older one, changes nothing and says nothing; the power-up does.
    await t.broker.publish(deviceTopic('meter', a.devAddr, 'event'), event(POWER_EVENTS.meter.down, down));
    await t.broker.publish(
      deviceTopic('meter', a.devAddr, 'event'),
      event(POWER_EVENTS.meter.down, new Date(down.getTime() - 1000)),
    );
    await t.broker.publish(deviceTopic('meter', a.devAddr, 'event'), event(POWER_EVENTS.meter.up, new Date()));
    await expect.poll(() => changesOf(heardA).length, EVENTUALLY).toBe(3);
    expect(changesOf(heardA).at(-1)).toBe(`${areaA} ${a.devAddr} powerUp`);
    expect(changesOf(heardA).some((c) => c.includes(b.devAddr))).toBe(false);
    await userA.endAsync();
    await admin.endAsync();
  });

  it('announces a link change once the meter list shows it, so a list reading again on the news is right', async () => {
    const area = await gridNode(t);
    const m = await meterAt(t, area);
    const client = await connect(adminCookie);
    await client.subscribeAsync(gridDevicesTopic(area));
    const linkStateNow = async () => {
      const res = await t.call<{ list: Meter[] }>(
        '/meter/list',
        { gridId: area, pageSize: 10, curPage: 1 },
        adminCookie,
      );
      return res.body.data.list[0]?.linkState;
    };
    // What the list said at the moment each announcement arrived.
    const seen: string[] = [];
    let announced: () => void = () => undefined;
    const announcement = new Promise<void>((resolve) => {
      announced = resolve;
    });
    client.on('message', (_topic, payload) => {
      const message = JSON.parse(payload.toString()) as LiveDeviceMessage;
      if (!message.changes.some((c) => c.id === m.id && c.change === 'offline')) return;
      void linkStateNow().then((state) => {
        seen.push(String(state));
        announced();
      });
    });
    await t.broker.publish(deviceTopic('meter', m.devAddr, 'status'), { online: true });
    await expect.poll(linkStateNow, EVENTUALLY).toBe('online');

    // The write that brings the meter's row up to date is held back until the news is out, or for a
    // while: news sent before the write (as the head-end's own would be) finds the list still online.
    const write = ReadingWriter.prototype.writeScreened;
    vi.spyOn(ReadingWriter.prototype, 'writeScreened').mockImplementation(async function (this: ReadingWriter, batch) {
      if (batch.linkChanges?.some((c) => c.deviceId === m.id))
        await Promise.race([announcement, new Promise((resolve) => setTimeout(resolve, 1500))]);
      return write.call(this, batch);
    });
    await t.broker.publish(deviceTopic('meter', m.devAddr, 'status'), { online: false });
    await expect.poll(() => seen.length, EVENTUALLY).toBeGreaterThan(0);
    expect(seen).toEqual(['offline']);
    await client.endAsync();
  });

  it('refuses live changes to a user holding no page that shows devices', async () => {
    const area = await gridNode(t);
    const client = await connect(await userOfGrid(t, area, [RES.dashboard]));
    await expect(client.subscribeAsync(gridDevicesTopic(area))).rejects.toThrow(/Subscribe error/);
    await client.endAsync();
  });
});
