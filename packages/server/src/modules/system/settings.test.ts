import { RES } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sysParameter, sysUser } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/harness';
import { startSmtpPeer } from '../../test/smtp-peer';

describe('system settings', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  it('stores the SMTP password sealed, never answers it, and really sends a test e-mail with it', async () => {
    expect((await t.call('/systemparameter/getsmtpconf', {}, admin)).body.data).toBeNull();
    expect((await t.call('/systemparameter/checkifcansendemail', { to: 'ops@example.com' }, admin)).body).toMatchObject(
      {
        code: 400,
        msg: 'reconfigureSmtp',
      },
    );

    const peer = await startSmtpPeer({ username: 'mailer', password: 'p@ss-word' });
    const conf = {
      host: '127.0.0.1',
      port: peer.port,
      sender: 'noreply@meterdesk.test',
      username: 'mailer',
      password: 'p@ss-word',
      secure: false,
    };
    expect((await t.call('/systemparameter/savesmtpconf', conf, admin)).status).toBe(200);
    const [stored] = await t.db.select().from(sysParameter).where(eq(sysParameter.key, 'smtp'));
    expect(JSON.stringify(stored!.value)).not.toContain('p@ss-word');
    const read = await t.call('/systemparameter/getsmtpconf', {}, admin);
    expect(read.body.data).toEqual({
      host: '127.0.0.1',
      port: peer.port,
      sender: 'noreply@meterdesk.test',
      username: 'mailer',
      secure: false,
      passwordSet: true,
    });

    const sent = await t.call('/systemparameter/checkifcansendemail', { to: 'ops@example.com' }, admin);
    expect(sent.body).toMatchObject({ code: 200, data: { to: 'ops@example.com' } });
    expect(peer.received.map((m) => m.to)).toEqual([['ops@example.com']]);

    // Saving again without a password keeps the stored one.
    const { password: _p, ...withoutPassword } = conf;
    await t.call('/systemparameter/savesmtpconf', withoutPassword, admin);
    expect((await t.call('/systemparameter/checkifcansendemail', { to: 'ops@example.com' }, admin)).status).toBe(200);

    await t.call('/systemparameter/savesmtpconf', { ...conf, password: 'wrong' }, admin);
    const refused = await t.call('/systemparameter/checkifcansendemail', { to: 'ops@example.com' }, admin);
    expect(refused.body).toMatchObject({ msg: 'sendFailure', data: { reason: 'smtpAuthFailed' } });
    expect(JSON.stringify(refused.body)).not.toMatch(/535|Invalid username/);
    await peer.close();
    // A short reason, never the socket's own text with its address and error code.
    const unreachable = await t.call('/systemparameter/checkifcansendemail', { to: 'ops@example.com' }, admin);
    expect(unreachable.body).toEqual({
      code: 400,
      msg: 'sendFailure',
      data: { reason: 'smtpUnreachable', message: 'The mail server cannot be reached' },
    });
    expect(JSON.stringify(await t.db.select().from((await import('../../db/schema')).sysLog))).not.toContain(
      'p@ss-word',
    );
  });

  it('sends the test e-mail to the caller when no address is given, and says when there is none', async () => {
    const peer = await startSmtpPeer();
    await t.call(
      '/systemparameter/savesmtpconf',
      { host: '127.0.0.1', port: peer.port, sender: 'noreply@meterdesk.test', password: '' },
      admin,
    );
    expect((await t.call('/systemparameter/checkifcansendemail', {}, admin)).body.data).toMatchObject({
      issues: [{ key: 'noRecipientEmail' }],
    });
    await t.db.update(sysUser).set({ email: 'admin@example.com' }).where(eq(sysUser.username, 'admin'));
    expect((await t.call('/systemparameter/checkifcansendemail', {}, admin)).body.data).toEqual({
      to: 'admin@example.com',
    });
    expect(peer.received).toHaveLength(1);
    await peer.close();
    expect(
      (await t.call('/systemparameter/savesmtpconf', { host: '', port: 70000, sender: 'x' }, admin)).body.data,
    ).toMatchObject({
      issues: expect.arrayContaining([
        expect.objectContaining({ field: 'host' }),
        expect.objectContaining({ field: 'port', key: 'outOfRange', params: { max: 65535 }, message: 'At most 65535' }),
      ]),
    });
  });

  it("keeps each user's own subscription flags", async () => {
    const role = await t.createRole('plain', [RES.dashboard]);
    await t.createUser({ username: 'plain', password: 'Secret1', roleIds: [role] });
    const plain = await t.login('plain', 'Secret1');
    const flags = {
      subMeterEventFlag: true,
      subEmailFlag: true,
      subMsgFlag: false,
      subSpecialUserEventFlag: false,
      subExceptionFlag: true,
    };
    expect((await t.call('/systemparameter/updatesysUsersubscribeconf', flags, plain)).status).toBe(200);
    expect((await t.call('/systemparameter/getsysusersubscribeconf', {}, plain)).body.data).toEqual(flags);
    expect((await t.call('/systemparameter/getsysusersubscribeconf', {}, admin)).body.data).toMatchObject({
      subMeterEventFlag: false,
    });
    expect((await t.call('/systemparameter/getsmtpconf', {}, plain)).status).toBe(403);
  });

  it('enables and orders data items', async () => {
    const items = (
      await t.call<{ id: string; obis: string; enabled: boolean }[]>('/dataitemconf/listdataitemconf', {}, admin)
    ).body.data;
    expect(items.map((i) => i.obis)).toContain('1.0.1.8.0.255');
    const clock = items.find((i) => i.obis === '0.0.1.0.0.255')!;
    expect(
      (
        await t.call(
          '/dataitemconf/savedataitemconf',
          { items: [{ id: clock.id, enabled: false, orderNum: 99 }] },
          admin,
        )
      ).status,
    ).toBe(200);
    const after = (await t.call<{ id: string; enabled: boolean }[]>('/dataitemconf/listdataitemconf', {}, admin)).body
      .data;
    expect(after.at(-1)).toMatchObject({ id: clock.id, enabled: false });
    expect(
      (
        await t.call(
          '/dataitemconf/savedataitemconf',
          { items: [{ id: 'b'.repeat(32), enabled: true, orderNum: 1 }] },
          admin,
        )
      ).status,
    ).toBe(404);
  });

  it('keeps one set of TOU limits within 1-999, and the command time-out', async () => {
    const [config] = (await t.call<{ id: string }[]>('/tariffconfig/gettariffconfiglist', {}, admin)).body.data;
    expect(config).toMatchObject({ tariffDays: 16 });
    const limits = { tariffValidCount: 4, tariffDays: 12, tariffWeeks: 4, tariffSeasons: 4, tariffSpecialDays: 32 };
    expect((await t.call('/tariffconfig/updatetariffconfig', { id: config!.id, ...limits }, admin)).status).toBe(200);
    expect((await t.call('/tariffconfig/gettariffconfiglist', {}, admin)).body.data).toEqual([
      { id: config!.id, ...limits },
    ]);
    expect((await t.call('/tariffconfig/savetariffconfig', limits, admin)).body.msg).toBe('existed');
    expect(
      (await t.call('/tariffconfig/updatetariffconfig', { id: config!.id, ...limits, tariffDays: 1000 }, admin)).body
        .data,
    ).toMatchObject({
      issues: [{ field: 'tariffDays', key: 'outOfRange' }],
    });

    expect((await t.call('/obis/datatype/gettimeout', {}, admin)).body.data).toEqual({ timeout: 30 });
    expect((await t.call('/obis/datatype/updatetimeout', { timeout: 45 }, admin)).status).toBe(200);
    expect((await t.call('/obis/datatype/gettimeout', {}, admin)).body.data).toEqual({ timeout: 45 });
    expect((await t.call('/obis/datatype/updatetimeout', { timeout: 0 }, admin)).status).toBe(400);
  });
});
