import { deviceTopic } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import type mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../db/ids';
import { dcu, meter } from '../db/schema';
import { gridNode } from '../test/archive-fixtures';
import { createTestApp, type TestApp } from '../test/harness';
import { connectOnce } from '../test/mqtt-client';
import { uniqueName } from '../test/unique';
import { type Broker, startEmbeddedBroker } from './broker';
import { devicePolicy } from './device-policy';

const silent = { warn: () => {} } as never;

/** A device on the broker's TCP listener. */
const connectDevice = (
  port: number,
  username: string | undefined,
  password: string | undefined,
  options: mqtt.IClientOptions = {},
) =>
  connectOnce(`mqtt://127.0.0.1:${port}`, {
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...options,
  });

const closed = (client: mqtt.MqttClient) =>
  new Promise<void>((resolve) => (client.connected ? client.once('close', () => resolve()) : resolve()));

/** What the server hears devices publish, in order (the commands it sends itself left out). */
async function listen(broker: Broker) {
  const heard: { topic: string; payload: unknown }[] = [];
  const stop = await broker.subscribe('ami/#', (topic, payload) => {
    if (!topic.endsWith('/cmd')) heard.push({ topic, payload: JSON.parse(payload.toString()) });
  });
  return { heard, stop };
}

describe('devices on the embedded broker', () => {
  let t: TestApp;
  let gridId: string;

  /** A DCU with `meters` meters behind it; answers its number, its meters' serials and its password. */
  const addDcu = async (meters: number) => {
    const dcuNo = uniqueName('DCU').toUpperCase();
    const id = newId();
    await t.db.insert(dcu).values({ id, dcuNo, gridId });
    const serials = Array.from({ length: meters }, () => uniqueName('M'));
    for (const devAddr of serials) await t.db.insert(meter).values({ id: newId(), devAddr, gridId, dcuId: id });
    return {
      id,
      dcuNo,
      serials,
      username: `dcu:${dcuNo}`,
      password: await t.app.deviceCredentials.ensure('dcu', dcuNo),
    };
  };
  const addDirectMeter = async () => {
    const devAddr = uniqueName('D');
    await t.db.insert(meter).values({ id: newId(), devAddr, gridId });
    return { devAddr, username: `meter:${devAddr}`, password: await t.app.deviceCredentials.ensure('meter', devAddr) };
  };

  beforeAll(async () => {
    t = await createTestApp();
    gridId = await gridNode(t);
  });
  afterAll(() => t.close());

  describe('with rights read once per test', () => {
    let broker: Broker;
    let port: number;

    beforeAll(async () => {
      broker = await startEmbeddedBroker({ tcpPort: 0, log: silent });
      broker.admitDevices?.(devicePolicy(t.db, t.app.deviceCredentials));
      port = broker.tcpPort as number;
    });
    afterAll(() => broker.close());

    it('admits a device with its password and refuses a wrong one, an unknown device and a meter behind a DCU', async () => {
      const a = await addDcu(1);
      const ok = await connectDevice(port, a.username, a.password);
      expect(ok.connected).toBe(true);
      await ok.endAsync();
      // The archive's spelling of the key is the device's, whatever case it logs in with.
      const lower = await connectDevice(port, a.username.toLowerCase(), a.password);
      await lower.endAsync();

      await expect(connectDevice(port, a.username, `${a.password}x`)).rejects.toMatchObject({ code: 4 });
      await expect(connectDevice(port, a.username, undefined)).rejects.toMatchObject({ code: 4 });
      await expect(connectDevice(port, undefined, undefined)).rejects.toMatchObject({ code: 4 });
      await expect(connectDevice(port, `dcu:${uniqueName('NONE')}`, a.password)).rejects.toMatchObject({ code: 4 });
      // A meter behind a DCU speaks through the DCU: its own password does not let it in.
      const [behind] = a.serials as [string];
      const behindPassword = await t.app.deviceCredentials.ensure('meter', behind);
      await expect(connectDevice(port, `meter:${behind}`, behindPassword)).rejects.toMatchObject({ code: 5 });
      // A DCU deleted from the archive keeps no access.
      const gone = await addDcu(0);
      await t.db.delete(dcu).where(eq(dcu.dcuNo, gone.dcuNo));
      await expect(connectDevice(port, gone.username, gone.password)).rejects.toMatchObject({ code: 5 });
    });

    it("lets a DCU publish its own and its meters' topics, and never another device's", async () => {
      const a = await addDcu(2);
      const b = await addDcu(1);
      const [a1, a2] = a.serials as [string, string];
      const [b1] = b.serials as [string];
      const { heard, stop } = await listen(broker);
      const clientA = await connectDevice(port, a.username, a.password);
      const clientB = await connectDevice(port, b.username, b.password);

      await clientA.publishAsync(deviceTopic('dcu', a.dcuNo, 'heartbeat'), JSON.stringify({ n: 1 }));
      await clientA.publishAsync(deviceTopic('meter', a1, 'data'), JSON.stringify({ n: 2 }));
      await clientA.publishAsync(deviceTopic('meter', a2, 'event'), JSON.stringify({ n: 3 }));
      await clientA.publishAsync(deviceTopic('dcu', a.dcuNo, 'status'), JSON.stringify({ online: true }), {
        retain: true,
      });
      await expect.poll(() => heard.length).toBe(4);

      // Each forgery closes the forger's connection (MQTT 3.1.1 has no refusal to send); a later
      // legitimate message from another device proves the forged one was dropped, not just slow.
      const forgeries: [string, mqtt.IClientPublishOptions?][] = [
        [deviceTopic('dcu', b.dcuNo, 'status')],
        [deviceTopic('meter', b1, 'reply')],
        [deviceTopic('dcu', a.dcuNo, 'cmd')],
        [deviceTopic('meter', a1, 'data'), { retain: true }],
        ['notice/admin/unread'],
      ];
      let forger = clientA;
      for (const [topic, options] of forgeries) {
        const gone = closed(forger);
        await forger.publishAsync(topic, JSON.stringify({ forged: true }), options ?? {}).catch(() => undefined);
        await gone;
        forger = await connectDevice(port, a.username, a.password);
      }
      await clientB.publishAsync(deviceTopic('meter', b1, 'reply'), JSON.stringify({ n: 5 }));
      await expect.poll(() => heard.at(-1)?.payload).toEqual({ n: 5 });
      expect(heard.map((h) => h.topic)).toEqual([
        `ami/dcu/${a.dcuNo}/heartbeat`,
        `ami/meter/${a1}/data`,
        `ami/meter/${a2}/event`,
        `ami/dcu/${a.dcuNo}/status`,
        `ami/meter/${b1}/reply`,
      ]);
      await stop();
      await Promise.all([forger.endAsync(), clientB.endAsync()]);
    });

    it("lets a DCU subscribe to its own and its meters' commands only", async () => {
      const a = await addDcu(1);
      const b = await addDcu(1);
      const [a1] = a.serials as [string];
      const [b1] = b.serials as [string];
      const client = await connectDevice(port, a.username, a.password);
      const received: string[] = [];
      client.on('message', (topic) => received.push(topic));

      expect((await client.subscribeAsync(deviceTopic('dcu', a.dcuNo, 'cmd')))[0]?.qos).toBe(0);
      expect((await client.subscribeAsync(deviceTopic('meter', a1, 'cmd')))[0]?.qos).toBe(0);
      for (const foreign of [
        deviceTopic('dcu', b.dcuNo, 'cmd'),
        deviceTopic('meter', b1, 'cmd'),
        deviceTopic('meter', a1, 'reply'),
        `ami/dcu/${a.dcuNo}/#`,
        'ami/meter/+/cmd',
        '#',
      ]) {
        await expect(client.subscribeAsync(foreign), foreign).rejects.toThrow(/Subscribe error/);
      }
      await broker.publish(deviceTopic('dcu', b.dcuNo, 'cmd'), { reqId: 'b' });
      await broker.publish(deviceTopic('meter', b1, 'cmd'), { reqId: 'b1' });
      await broker.publish(deviceTopic('meter', a1, 'cmd'), { reqId: 'a1' });
      await broker.publish(deviceTopic('dcu', a.dcuNo, 'cmd'), { reqId: 'a' });
      await expect.poll(() => received.length).toBe(2);
      expect(received).toEqual([`ami/meter/${a1}/cmd`, `ami/dcu/${a.dcuNo}/cmd`]);
      expect(client.connected).toBe(true);
      await client.endAsync();
    });

    it('holds a direct meter to its own topics', async () => {
      const d = await addDirectMeter();
      const other = await addDirectMeter();
      const { heard, stop } = await listen(broker);
      const client = await connectDevice(port, d.username, d.password);
      expect((await client.subscribeAsync(deviceTopic('meter', d.devAddr, 'cmd')))[0]?.qos).toBe(0);
      await expect(client.subscribeAsync(deviceTopic('meter', other.devAddr, 'cmd'))).rejects.toThrow(
        /Subscribe error/,
      );
      await client.publishAsync(deviceTopic('meter', d.devAddr, 'data'), JSON.stringify({ n: 1 }));
      const gone = closed(client);
      await client.publishAsync(deviceTopic('meter', other.devAddr, 'data'), JSON.stringify({ forged: true }));
      await gone;
      const otherClient = await connectDevice(port, other.username, other.password);
      await otherClient.publishAsync(deviceTopic('meter', other.devAddr, 'data'), JSON.stringify({ n: 2 }));
      await expect.poll(() => heard.length).toBe(2);
      expect(heard.map((h) => h.payload)).toEqual([{ n: 1 }, { n: 2 }]);
      await stop();
      await otherClient.endAsync();
    });

    it('publishes the last will on the own status topic, and no will on a foreign one', async () => {
      const a = await addDcu(0);
      const b = await addDcu(0);
      const { heard, stop } = await listen(broker);
      const offline = JSON.stringify({ online: false });
      const own = await connectDevice(port, a.username, a.password, {
        will: { topic: deviceTopic('dcu', a.dcuNo, 'status'), payload: Buffer.from(offline), qos: 0, retain: true },
      });
      const forger = await connectDevice(port, b.username, b.password, {
        will: {
          topic: deviceTopic('dcu', a.dcuNo, 'status'),
          payload: Buffer.from('{"forged":true}'),
          qos: 0,
          retain: true,
        },
      });
      // A lost connection (no DISCONNECT) is what publishes a will.
      forger.stream.destroy();
      await closed(forger);
      own.stream.destroy();
      await expect.poll(() => heard.length).toBe(1);
      expect(heard).toEqual([{ topic: `ami/dcu/${a.dcuNo}/status`, payload: { online: false } }]);
      await stop();
    });

    it("refuses a client id another device holds and keeps the holder's connection", async () => {
      const a = await addDcu(0);
      const b = await addDcu(0);
      const clientId = uniqueName('dev');
      const holder = await connectDevice(port, a.username, a.password, { clientId });
      await expect(connectDevice(port, b.username, b.password, { clientId })).rejects.toMatchObject({ code: 2 });
      expect(holder.connected).toBe(true);
      // The same device may take its own id back (a reconnect after a half-open connection).
      const again = await connectDevice(port, a.username, a.password, { clientId });
      await again.endAsync();
    });
  });

  describe('when a meter moves to another DCU', () => {
    let broker: Broker;
    let port: number;

    beforeAll(async () => {
      broker = await startEmbeddedBroker({ tcpPort: 0, log: silent });
      // Rights read again at every check, so the move shows without waiting out a cache.
      broker.admitDevices?.(devicePolicy(t.db, t.app.deviceCredentials, { rightsTtlMs: 0 }));
      port = broker.tcpPort as number;
    });
    afterAll(() => broker.close());

    it('gives its topics to the new DCU and takes them from the old one, commands included', async () => {
      const a = await addDcu(1);
      const b = await addDcu(0);
      const [moved] = a.serials as [string];
      const clientA = await connectDevice(port, a.username, a.password);
      const toA: string[] = [];
      clientA.on('message', (topic) => toA.push(topic));
      await clientA.subscribeAsync([deviceTopic('meter', moved, 'cmd'), deviceTopic('dcu', a.dcuNo, 'cmd')]);

      await t.db.update(meter).set({ dcuId: b.id }).where(eq(meter.devAddr, moved));
      const { heard, stop } = await listen(broker);
      const clientB = await connectDevice(port, b.username, b.password);
      expect((await clientB.subscribeAsync(deviceTopic('meter', moved, 'cmd')))[0]?.qos).toBe(0);
      const toB: string[] = [];
      clientB.on('message', (topic) => toB.push(topic));
      await clientB.publishAsync(deviceTopic('meter', moved, 'data'), JSON.stringify({ by: 'b' }));
      await expect.poll(() => heard.length).toBe(1);

      // A's earlier subscription no longer delivers once A's rights were read again (this refused subscribe reads them).
      await expect(clientA.subscribeAsync(deviceTopic('meter', moved, 'reply'))).rejects.toThrow(/Subscribe error/);
      await broker.publish(deviceTopic('meter', moved, 'cmd'), { reqId: 'moved' });
      await broker.publish(deviceTopic('dcu', a.dcuNo, 'cmd'), { reqId: 'own' });
      await expect.poll(() => toA).toEqual([`ami/dcu/${a.dcuNo}/cmd`]);
      await expect.poll(() => toB).toEqual([`ami/meter/${moved}/cmd`]);

      const gone = closed(clientA);
      await clientA.publishAsync(deviceTopic('meter', moved, 'data'), JSON.stringify({ by: 'a' }));
      await gone;
      await clientB.publishAsync(deviceTopic('meter', moved, 'data'), JSON.stringify({ by: 'b', n: 2 }));
      await expect.poll(() => heard.length).toBe(2);
      expect(heard.map((h) => h.payload)).toEqual([{ by: 'b' }, { by: 'b', n: 2 }]);
      await stop();
      await clientB.endAsync();
    });
  });

  it('tells every TCP client of a broker not yet given its device policy that the server is unavailable (3), so it retries', async () => {
    const broker = await startEmbeddedBroker({ tcpPort: 0, log: silent });
    const a = await addDcu(0);
    await expect(connectDevice(broker.tcpPort as number, a.username, a.password)).rejects.toMatchObject({ code: 3 });
    await broker.close();
  });
});
