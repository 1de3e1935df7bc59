import { noticeUnreadTopic, RES, SESSION_COOKIE } from '@meterdesk/contracts';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness';

const externalUrl = process.env.TEST_MQTT_URL;

const nextMessage = (client: mqtt.MqttClient, ms = 2000) =>
  new Promise<{ topic: string; payload: unknown } | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    client.once('message', (topic, payload) => {
      clearTimeout(timer);
      resolve({ topic, payload: JSON.parse(payload.toString()) });
    });
  });

describe('message broker', () => {
  let t: TestApp;
  let base: string;
  let adminCookie: string;
  let viewerCookie: string;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.http.server.address();
    base = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    adminCookie = await t.loginAdmin();
    const role = await t.createRole('subscriber', [RES.dashboard, RES.noticeSubscribe]);
    await t.createUser({ username: 'viewer', password: 'Secret1', roleIds: [role] });
    viewerCookie = await t.login('viewer', 'Secret1');
  });
  afterAll(() => t.close());

  it('tells the browser where the broker is and which topic carries its unread count', async () => {
    const res = await fetch(`http://${base}/static-config/mqtt.json`);
    const body = (await res.json()) as { url: string | null; topics: { unread: string } };
    expect(body.topics.unread).toBe('notice/{username}/unread');
    expect(body.url).toBe(externalUrl ? null : '/mqtt');
  });

  describe.skipIf(externalUrl)('embedded broker over WebSocket', () => {
    // Settles on the first of connect, error or close, so a refused upgrade fails fast instead of retrying.
    const connect = (cookie?: string) =>
      new Promise<mqtt.MqttClient>((resolve, reject) => {
        const client = mqtt.connect(`ws://${base}/mqtt`, {
          protocolVersion: 4,
          reconnectPeriod: 0,
          connectTimeout: 3000,
          wsOptions: cookie ? { headers: { cookie } } : {},
        });
        client.once('connect', () => resolve(client));
        const fail = (reason: unknown) => {
          client.end(true);
          reject(reason instanceof Error ? reason : new Error('connection closed'));
        };
        client.once('error', fail);
        client.once('close', () => fail(new Error('connection closed')));
      });

    it('refuses a browser without a session', async () => {
      await expect(connect()).rejects.toThrow();
      await expect(connect(`${SESSION_COOKIE}=forged`)).rejects.toThrow();
    });

    it("delivers a user's own unread count and refuses another user's topic", async () => {
      const client = await connect(viewerCookie);
      const own = await client.subscribeAsync(noticeUnreadTopic('viewer'));
      expect(own[0]?.qos).toBe(0);
      // The broker negates these (SUBACK 128), which mqtt.js reports as a subscribe error.
      await expect(client.subscribeAsync(noticeUnreadTopic('admin'))).rejects.toThrow(/Subscribe error/);
      await expect(client.subscribeAsync('notice/#')).rejects.toThrow(/Subscribe error/);

      const received = nextMessage(client);
      await t.broker.publish(noticeUnreadTopic('admin'), { count: 9 });
      await t.broker.publish(noticeUnreadTopic('viewer'), { count: 3 });
      expect(await received).toEqual({ topic: 'notice/viewer/unread', payload: { count: 3 } });
      await client.endAsync();
    });

    it('ignores what a browser publishes', async () => {
      const spy = await connect(adminCookie);
      await spy.subscribeAsync(noticeUnreadTopic('admin'));
      const heard = nextMessage(spy, 500);
      const forger = await connect(viewerCookie);
      await forger.publishAsync(noticeUnreadTopic('admin'), JSON.stringify({ count: 99 })).catch(() => undefined);
      expect(await heard).toBeNull();
      await forger.endAsync();
      await spy.endAsync();
    });
  });

  describe.runIf(externalUrl)('external broker', () => {
    it('publishes through the configured broker', async () => {
      const client = await mqtt.connectAsync(externalUrl!, { protocolVersion: 4 });
      const topic = noticeUnreadTopic(`probe${Date.now()}`);
      await client.subscribeAsync(topic);
      const received = nextMessage(client);
      await t.broker.publish(topic, { count: 1 });
      expect(await received).toEqual({ topic, payload: { count: 1 } });
      await client.endAsync();
    });
  });
});
