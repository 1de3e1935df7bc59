import { noticeUnreadTopic, progressTopic, RES, SESSION_COOKIE } from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sysSession } from '../db/schema';
import { createTestApp, type TestApp } from '../test/harness';
import { connectOnce } from '../test/mqtt-client';
import { uniqueName } from '../test/unique';

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
  // Every topic below carries a name of this run: with TEST_MQTT_URL all test files share one Mosquitto.
  const viewer = uniqueName('viewer');
  const viewerJob = uniqueName('job');
  let t: TestApp;
  let base: string;
  let adminCookie: string;
  let viewerCookie: string;
  let subscriberRole: string;

  beforeAll(async () => {
    t = await createTestApp({ browserSessionCheckMs: 200 });
    // Who started which job is the job system's to say (tested there); here only the broker's use of it.
    t.app.jobs.jobOwner = async (id: string) => (id === viewerJob ? viewer : null);
    await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.http.server.address();
    base = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    adminCookie = await t.loginAdmin();
    subscriberRole = await t.createRole('subscriber', [RES.dashboard, RES.noticeSubscribe]);
    await t.createUser({ username: viewer, password: 'Secret1', roleIds: [subscriberRole] });
    viewerCookie = await t.login(viewer, 'Secret1');
  });
  afterAll(() => t.close());

  it('tells the browser where the broker is and which topic carries its unread count', async () => {
    const res = await fetch(`http://${base}/static-config/mqtt.json`);
    const body = (await res.json()) as { url: string | null; topics: { unread: string } };
    expect(body.topics.unread).toBe('notice/{username}/unread');
    expect(body.url).toBe(externalUrl ? null : '/mqtt');
  });

  describe.skipIf(externalUrl)('embedded broker over WebSocket', () => {
    const connect = (cookie?: string, options: { clientId?: string; headers?: Record<string, string> } = {}) =>
      connectOnce(`ws://${base}/mqtt`, {
        ...(options.clientId ? { clientId: options.clientId } : {}),
        wsOptions: { headers: { ...options.headers, ...(cookie ? { cookie } : {}) } },
      });

    it('refuses a browser without a session', async () => {
      await expect(connect()).rejects.toThrow();
      await expect(connect(`${SESSION_COOKIE}=forged`)).rejects.toThrow();
    });

    it("delivers a user's own unread count and refuses another user's topic", async () => {
      const client = await connect(viewerCookie);
      const own = await client.subscribeAsync(noticeUnreadTopic(viewer));
      expect(own[0]?.qos).toBe(0);
      // The broker negates these (SUBACK 128), which mqtt.js reports as a subscribe error.
      await expect(client.subscribeAsync(noticeUnreadTopic('admin'))).rejects.toThrow(/Subscribe error/);
      await expect(client.subscribeAsync('notice/#')).rejects.toThrow(/Subscribe error/);

      const received = nextMessage(client);
      await t.broker.publish(noticeUnreadTopic('admin'), { count: 9 });
      await t.broker.publish(noticeUnreadTopic(viewer), { count: 3 });
      expect(await received).toEqual({ topic: `notice/${viewer}/unread`, payload: { count: 3 } });
      await client.endAsync();
    });

    const closed = (client: mqtt.MqttClient) =>
      new Promise<void>((resolve) => (client.connected ? client.once('close', () => resolve()) : resolve()));
    const freshUser = async (username: string, roles = [subscriberRole]) => {
      const id = await t.createUser({ username, password: 'Secret1', roleIds: roles });
      return { id, cookie: await t.login(username, 'Secret1') };
    };

    it('closes a browser connection as soon as its session ends, however it ends', async () => {
      const ender = uniqueName('ender');
      const a = await freshUser(ender);
      const loggedOut = await connect(a.cookie);
      await loggedOut.subscribeAsync(noticeUnreadTopic(ender));
      const other = await connect(await t.login(ender, 'Secret1'));
      const logout = closed(loggedOut);
      await t.call('/sysuser/loginout', {}, a.cookie);
      await logout;
      // Only that session's connection: the user's other session keeps its own.
      expect(other.connected).toBe(true);

      const changing = await connect(await t.login(ender, 'Secret1'));
      const cookie = await t.login(ender, 'Secret1');
      const changed = Promise.all([closed(changing), closed(other)]);
      expect(
        (await t.call('/sysuser/updatepassword', { rawPassword: 'Secret1', newPassword: 'Better22' }, cookie)).status,
      ).toBe(200);
      await changed;

      // Time-outs need no request and no purge: the connected sessions are checked.
      const expiring = await connect(await t.login(ender, 'Better22'));
      const expiry = closed(expiring);
      await t.db
        .update(sysSession)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(sysSession.userId, a.id));
      await expiry;
      const idling = await connect(await t.login(ender, 'Better22'));
      const idle = closed(idling);
      await t.db
        .update(sysSession)
        .set({ lastSeenAt: new Date(Date.now() - t.config.sessionIdleMs - 1000) })
        .where(eq(sysSession.userId, a.id));
      await idle;

      const deleted = await connect(await t.login(ender, 'Better22'));
      const deletion = closed(deleted);
      expect((await t.call('/sysuser/deletesysuser', { id: a.id, username: ender }, adminCookie)).status).toBe(200);
      await deletion;
    });

    it('closes the connections of a user who is disabled or locked', async () => {
      const u = await freshUser(uniqueName('disabled-later'));
      const client = await connect(u.cookie);
      const gone = closed(client);
      // Even a change made straight in the database is noticed by the sweep.
      await t.db.execute(sql`update sys_user set status = 'disabled' where id = ${u.id}`);
      await gone;
    });

    it("refuses a client id another session uses, and keeps the first one's connection", async () => {
      const clientId = uniqueName('browser');
      const owner = await connect(viewerCookie, { clientId });
      await expect(connect(adminCookie, { clientId })).rejects.toThrow();
      expect(owner.connected).toBe(true);
      // The same session may reconnect under its own id.
      const again = await connect(viewerCookie, { clientId });
      expect(again.connected).toBe(true);
      await again.endAsync();
      await owner.endAsync(true);
    });

    it('refuses notices to a user without the subscribe permission', async () => {
      const plainRole = await t.createRole('dashboard only', [RES.dashboard]);
      const plain = uniqueName('plain');
      const u = await freshUser(plain, [plainRole]);
      const client = await connect(u.cookie);
      await expect(client.subscribeAsync(noticeUnreadTopic(plain))).rejects.toThrow(/Subscribe error/);
      await client.endAsync();
    });

    it("lets only the job's starter follow its progress", async () => {
      const starter = await connect(viewerCookie);
      expect((await starter.subscribeAsync(progressTopic(viewerJob)))[0]?.qos).toBe(0);
      await expect(starter.subscribeAsync(progressTopic(uniqueName('job')))).rejects.toThrow(/Subscribe error/);
      await expect(starter.subscribeAsync('progress/+')).rejects.toThrow(/Subscribe error/);
      const admin = await connect(adminCookie);
      await expect(admin.subscribeAsync(progressTopic(viewerJob))).rejects.toThrow(/Subscribe error/);
      const heard = nextMessage(starter);
      await t.broker.publish(progressTopic(viewerJob), { done: 3, total: 10 });
      expect(await heard).toEqual({ topic: `progress/${viewerJob}`, payload: { done: 3, total: 10 } });
      await starter.endAsync();
      await admin.endAsync();
    });

    it('refuses an upgrade sent from another site', async () => {
      await expect(connect(viewerCookie, { headers: { origin: 'http://evil.example' } })).rejects.toThrow();
      const same = await connect(viewerCookie, { headers: { origin: `http://${base}` } });
      await same.endAsync();
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

  it('lets server code subscribe with wildcards, and stop', async () => {
    const heard: { topic: string; payload: unknown }[] = [];
    const root = uniqueName('test');
    const stop = await t.broker.subscribe(`${root}/devices/+/up`, (topic, payload) => {
      heard.push({ topic, payload: JSON.parse(payload.toString()) });
    });
    const probe = `${root}/devices/m1/up`;
    await t.broker.publish(probe, { v: 1 });
    await t.broker.publish(`${root}/devices/other/down`, { v: 2 });
    await expect.poll(() => heard).toEqual([{ topic: probe, payload: { v: 1 } }]);
    await stop();
    await t.broker.publish(probe, { v: 3 });
    await t.broker.publish(`${root}/sentinel`, {});
    expect(heard).toHaveLength(1);
  });

  describe.runIf(externalUrl)('external broker', () => {
    it('publishes through the configured broker', async () => {
      const client = await mqtt.connectAsync(externalUrl!, { protocolVersion: 4 });
      const topic = noticeUnreadTopic(uniqueName('probe'));
      await client.subscribeAsync(topic);
      const received = nextMessage(client);
      await t.broker.publish(topic, { count: 1 });
      expect(await received).toEqual({ topic, payload: { count: 1 } });
      await client.endAsync();
    });
  });
});
