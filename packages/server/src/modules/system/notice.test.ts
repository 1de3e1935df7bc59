import { type Notice, noticeUnreadTopic, type Page, RES } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sysNotice, sysUser } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/harness';
import { startSmtpPeer } from '../../test/smtp-peer';
import { uniqueName } from '../../test/unique';

/** Listens in-process on the app's broker, as a browser would, to see what the server pushes. */
async function listen(t: TestApp, username: string) {
  const mqtt = await import('mqtt');
  await t.app.http.listen({ port: 0, host: '127.0.0.1' }).catch(() => undefined);
  const address = t.app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const cookie = await t.login(username, 'Secret1');
  const url = process.env.TEST_MQTT_URL ?? `ws://127.0.0.1:${port}/mqtt`;
  const client = await mqtt.connectAsync(url, {
    protocolVersion: 4,
    reconnectPeriod: 0,
    wsOptions: { headers: { cookie } },
  });
  const counts: number[] = [];
  client.on('message', (_topic, payload) => counts.push((JSON.parse(payload.toString()) as { count: number }).count));
  await client.subscribeAsync(noticeUnreadTopic(username));
  return { counts, close: () => client.endAsync() };
}

const until = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
};

describe('notices', () => {
  // Their unread counts travel on topics named after them, which other test files must not share.
  const alice = uniqueName('alice');
  const bob = uniqueName('bob');
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    const role = await t.createRole('subscriber', [RES.dashboard, RES.noticeSubscribe]);
    await t.createUser({ username: alice, password: 'Secret1', roleIds: [role] });
    await t.createUser({ username: bob, password: 'Secret1', roleIds: [role] });
    await t.db.update(sysUser).set({ email: 'alice@example.com' }).where(eq(sysUser.username, alice));
  });
  afterAll(() => t.close());

  const send = (body: Record<string, unknown>) =>
    t.call<{ noticeBatchId: string; emailFailures: string[] }>(
      '/systemparameter/sendnoticebath',
      { noticeTitle: 'Planned outage', noticeContent: 'Saturday 02:00', recUsernameList: [alice, bob], ...body },
      admin,
    );

  it('sends a batch, pushes each recipient the new unread count, and lowers it when read', async () => {
    const pushed = await listen(t, alice);
    const aliceCookie = await t.login(alice, 'Secret1');
    const res = await send({});
    expect(res.status).toBe(200);
    expect(res.body.data.emailFailures).toEqual([]);
    await until(() => pushed.counts.includes(1));
    expect(pushed.counts).toContain(1);
    expect((await t.call('/systemparameter/countunreadnoticenum', {}, aliceCookie)).body.data).toEqual({ count: 1 });

    const mine = await t.call<Page<Notice>>('/systemparameter/getnoticelogpageforcurrentuser', {}, aliceCookie);
    expect(mine.body.data.list).toHaveLength(1);
    expect(mine.body.data.list[0]).toMatchObject({
      noticeTitle: 'Planned outage',
      sendUsername: 'admin',
      noticeFlag: 0,
    });

    expect((await t.call('/systemparameter/readnotice', { id: mine.body.data.list[0]!.id }, aliceCookie)).status).toBe(
      200,
    );
    await until(() => pushed.counts.at(-1) === 0);
    expect(pushed.counts.at(-1)).toBe(0);
    const unread = await t.call<Page<Notice>>(
      '/systemparameter/getnoticelogpageforcurrentuser',
      { noticeFlag: 0 },
      aliceCookie,
    );
    expect(unread.body.data.total).toBe(0);

    const detail = await t.call<Notice[]>(
      '/systemparameter/getnoticereaddetaillist',
      { noticeBatchId: res.body.data.noticeBatchId },
      admin,
    );
    expect(detail.body.data.map((n) => [n.recUsername, n.noticeFlag])).toEqual([
      [alice, 1],
      [bob, 0],
    ]);
    expect(detail.body.data[0]!.readTime).not.toBe('');
    const batches = await t.call<Page<{ total: number; readCount: number }>>(
      '/systemparameter/getnoticebatchpage',
      {},
      admin,
    );
    expect(batches.body.data.list[0]).toMatchObject({ total: 2, readCount: 1 });
    await pushed.close();
  });

  it("refuses to read another user's notice and to send to an unknown user, writing nothing", async () => {
    const bobCookie = await t.login(bob, 'Secret1');
    const [aliceNotice] = await t.db.select().from(sysNotice).where(eq(sysNotice.recUsername, alice));
    expect((await t.call('/systemparameter/readnotice', { id: aliceNotice!.id }, bobCookie)).status).toBe(404);
    const before = (await t.db.select().from(sysNotice)).length;
    const res = await send({ recUsernameList: [alice, 'nobody'] });
    expect(res.body.data).toMatchObject({ issues: [{ field: 'recUsernameList', key: 'userNotFound' }] });
    expect((await send({ recUsernameList: [] })).status).toBe(400);
    expect((await t.db.select().from(sysNotice)).length).toBe(before);
  });

  it('asks to reconfigure SMTP before sending e-mail without it, and sends real e-mail with it', async () => {
    const before = (await t.db.select().from(sysNotice)).length;
    expect((await send({ sendEmail: true })).body).toMatchObject({ code: 400, msg: 'reconfigureSmtp' });
    expect((await t.db.select().from(sysNotice)).length).toBe(before);

    const peer = await startSmtpPeer();
    await t.call(
      '/systemparameter/savesmtpconf',
      { host: '127.0.0.1', port: peer.port, sender: 'noreply@meterdesk.test', secure: false },
      admin,
    );
    const res = await send({ sendEmail: true });
    expect(res.status).toBe(200);
    expect(res.body.data.emailFailures).toEqual([bob]);
    expect(peer.received).toHaveLength(1);
    expect(peer.received[0]).toMatchObject({ from: 'noreply@meterdesk.test', to: ['alice@example.com'] });
    expect(peer.received[0]!.raw).toContain('Subject: Planned outage');
    await peer.close();
  });

  it('lists the notice templates', async () => {
    const res = await t.call<Page<{ templateName: string }>>('/systemparameter/getnoticetemplatepage', {}, admin);
    expect(res.body.data.total).toBe(3);
    expect(res.body.data.list[0]!.templateName).toBe('Planned maintenance');
  });
});
