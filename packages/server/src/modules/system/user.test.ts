import { type Page, RES, type User } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { sysNotice, sysOrg, sysUser } from '../../db/schema';
import { ADMIN_ROLE_ID, OPERATOR_ROLE_ID, ROOT_ORG_ID } from '../../db/seeded-ids';
import { createTestApp, type TestApp } from '../../test/harness';

const user = (over: Record<string, unknown> = {}) => ({
  username: 'meter.reader',
  password: 'Reader@1',
  fullName: 'Meter Reader',
  orgId: ROOT_ORG_ID,
  roleIdList: [OPERATOR_ROLE_ID],
  groupCodeList: [],
  status: 'enabled',
  expiryDate: '',
  gender: 1,
  birthday: '1990-02-03',
  phone: '+86 138 0000 0000',
  email: 'reader@example.com',
  address: '',
  remark: '',
  ...over,
});

describe('users', () => {
  let t: TestApp;
  let admin: string;
  let readerId: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  const login = (username: string, password: string) =>
    t.call<{ mustChangePassword: boolean }>('/sysuser/login', { username, password, code: 'x', codeFill: 'x' });

  it('adds a user who must change the given password at the first login', async () => {
    const saved = await t.call<{ id: string }>('/sysuser/savesysuser', user(), admin);
    expect(saved.status).toBe(200);
    readerId = saved.body.data.id;
    const first = await login('meter.reader', 'Reader@1');
    expect(first.body.data.mustChangePassword).toBe(true);
    const detail = await t.call<User>('/sysuser/getsysuserdetail', { id: readerId }, admin);
    expect(detail.body.data).toMatchObject({
      username: 'meter.reader',
      orgName: 'Meterdesk',
      roleNames: 'operator',
      birthday: '1990-02-03',
      gender: 1,
    });
    const [row] = await t.db.select().from(sysUser).where(eq(sysUser.id, readerId));
    expect(row!.passwordHash).toMatch(/^\$argon2id\$/);

    // Until the password is changed only self-service calls answer.
    const cookie = first.cookie!;
    expect((await t.call('/sysresource/getuserresourcelist', {}, cookie)).status).toBe(200);
    expect((await t.call('/sysresource/getsysresourcetree', {}, cookie)).body).toMatchObject({
      code: 403,
      msg: 'mustChangePassword',
    });
    expect(
      (await t.call('/sysuser/updatepassword', { rawPassword: 'Reader@1', newPassword: 'Mine@123' }, cookie)).status,
    ).toBe(200);
    const again = await login('meter.reader', 'Mine@123');
    expect(again.body.data.mustChangePassword).toBe(false);
    expect((await t.call('/sysresource/getsysresourcetree', {}, again.cookie)).status).toBe(403);
    await t.call('/sysuser/resetsysuserpassword', { id: readerId, newPassword: 'Reader@1' }, admin);
    await t.db.update(sysUser).set({ mustChangePassword: false }).where(eq(sysUser.id, readerId));
  });

  it('validates fields with the spec messages and keeps usernames unique', async () => {
    const bad = await t.call(
      '/sysuser/savesysuser',
      user({ username: 'a/b', password: '123', phone: 'call me', email: 'x@' }),
      admin,
    );
    const keys = (bad.body.data as { issues: { field: string; key: string }[] }).issues.map(
      (i) => `${i.field}:${i.key}`,
    );
    expect(keys).toEqual(
      expect.arrayContaining([
        'username:formalError',
        'password:passwordLength',
        'phone:formalError',
        'email:emailFormat',
      ]),
    );
    expect((await t.call('/sysuser/checkusername', { username: 'METER.READER' }, admin)).body.data).toEqual({
      existed: true,
    });
    expect(
      (await t.call('/sysuser/checkusername', { id: readerId, username: 'meter.reader' }, admin)).body.data,
    ).toEqual({ existed: false });
    expect((await t.call('/sysuser/savesysuser', user(), admin)).body).toMatchObject({ code: 409, msg: 'existed' });
    const ghostRole = await t.call(
      '/sysuser/savesysuser',
      user({ username: 'x1', roleIdList: ['f'.repeat(32)] }),
      admin,
    );
    expect(ghostRole.body.data).toMatchObject({ issues: [{ field: 'roleIdList', key: 'roleNotFound' }] });
  });

  it('lists with filters, an organisation subtree, sorting and paging', async () => {
    const list = (body: Record<string, unknown>) => t.call<Page<User>>('/sysuser/getsysuserlist', body, admin);
    expect((await list({ username: 'reader' })).body.data.list.map((u) => u.username)).toEqual(['meter.reader']);
    const branch = newId();
    await t.db.insert(sysOrg).values({ id: branch, orgName: 'Branch', orgCode: 'BR', pid: ROOT_ORG_ID });
    await t.createUser({ username: 'far.away', password: 'Far1234', orgId: branch, status: 'disabled' });
    const names = async (body: Record<string, unknown>) =>
      (await list({ pageSize: 50, ...body })).body.data.list.map((u) => u.username);
    expect(await names({ status: 'enabled' })).not.toContain('far.away');
    expect(await names({ status: 'disabled' })).toEqual(['far.away']);
    expect(await names({ orgId: branch })).toEqual(['far.away']);
    expect(await names({ orgId: ROOT_ORG_ID })).toHaveLength(4);
    await t.db.delete(sysUser).where(eq(sysUser.username, 'far.away'));
    const sorted = (await list({ sortField: 'username', sortOrder: 'descend' })).body.data.list.map((u) => u.username);
    expect(sorted).toEqual([...sorted].sort().reverse());
    expect((await list({ sortField: 'passwordHash' })).status).toBe(400);
    expect((await list({ pageSize: 1, curPage: 2 })).body.data).toMatchObject({ total: 3, curPage: 2, pageSize: 1 });
  });

  it("disabling a user ends the user's sessions at once; enabling lets them back", async () => {
    await t.db.update(sysUser).set({ mustChangePassword: false }).where(eq(sysUser.id, readerId));
    const session = (await login('meter.reader', 'Reader@1')).cookie!;
    expect((await t.call('/sysuser/auth', {}, session)).status).toBe(200);
    const { password: _p, ...editable } = user();
    expect(
      (await t.call('/sysuser/updatesysuser', { ...editable, id: readerId, status: 'disabled' }, admin)).status,
    ).toBe(200);
    expect((await t.call('/sysuser/auth', {}, session)).status).toBe(401);
    expect((await login('meter.reader', 'Reader@1')).body.msg).toBe('userDisabled');
    await t.call('/sysuser/updatesysuser', { ...editable, id: readerId, status: 'enabled' }, admin);
    expect((await login('meter.reader', 'Reader@1')).status).toBe(200);
  });

  it('an administrator locks and unlocks; the lock holds until lifted', async () => {
    const { password: _p, ...editable } = user();
    await t.call('/sysuser/updatesysuser', { ...editable, id: readerId, status: 'locking' }, admin);
    expect((await login('meter.reader', 'Reader@1')).body.msg).toBe('userLocked');
    expect((await t.call('/sysuser/unlocksysuser', { id: readerId }, admin)).status).toBe(200);
    expect((await login('meter.reader', 'Reader@1')).status).toBe(200);
  });

  it('resets a password: sessions end and the user must change it', async () => {
    const session = (await login('meter.reader', 'Reader@1')).cookie!;
    expect(
      (await t.call('/sysuser/resetsysuserpassword', { id: readerId, newPassword: 'Fresh@12' }, admin)).status,
    ).toBe(200);
    expect((await t.call('/sysuser/auth', {}, session)).status).toBe(401);
    expect((await login('meter.reader', 'Reader@1')).body.msg).toBe('wrongCredentials');
    expect((await login('meter.reader', 'Fresh@12')).body.data.mustChangePassword).toBe(true);
  });

  it('keeps notices with a renamed user', async () => {
    await t.call('/systemparameter/sendnoticebath', { noticeTitle: 'Hello', recUsernameList: ['meter.reader'] }, admin);
    const { password: _p, ...editable } = user();
    const renamed = await t.call(
      '/sysuser/updatesysuser',
      { ...editable, id: readerId, username: 'meter.reader2' },
      admin,
    );
    expect(renamed.status).toBe(200);
    const [row] = await t.db.select().from(sysNotice).where(eq(sysNotice.noticeTitle, 'Hello'));
    expect(row!.recUsername).toBe('meter.reader2');
    await t.call('/sysuser/updatesysuser', { ...editable, id: readerId }, admin);
  });

  it('refuses to disable or delete oneself, and deletes another user with their sessions', async () => {
    const [me] = await t.db.select().from(sysUser).where(eq(sysUser.username, 'admin'));
    const self = await t.call('/sysuser/deletesysuser', { id: me!.id, username: 'admin' }, admin);
    expect(self.body.msg).toBe('cannotChangeSelf');
    const selfDisable = await t.call(
      '/sysuser/updatesysuser',
      {
        ...user({ username: 'admin', roleIdList: [ADMIN_ROLE_ID] }),
        password: undefined,
        id: me!.id,
        status: 'disabled',
      },
      admin,
    );
    expect(selfDisable.body.msg).toBe('cannotChangeSelf');
    const wrongName = await t.call('/sysuser/deletesysuser', { id: readerId, username: 'someone' }, admin);
    expect(wrongName.status).toBe(404);
    const session = (await login('meter.reader', 'Fresh@12')).cookie!;
    expect((await t.call('/sysuser/deletesysuser', { id: readerId, username: 'meter.reader' }, admin)).status).toBe(
      200,
    );
    expect((await t.call('/sysuser/auth', {}, session)).status).toBe(401);
  });

  it('gives pickers a simple list, to those with a page that needs it', async () => {
    const simple = await t.call<{ username: string }[]>('/sysuser/getsimplesysuserlist', {}, admin);
    expect(simple.body.data.map((u) => u.username)).toContain('admin');
    expect(Object.keys(simple.body.data[0]!)).toEqual(['id', 'username', 'fullName', 'email']);
    const role = await t.createRole('notice-sender', [RES.dashboard, RES.noticeSend]);
    await t.createUser({ username: 'sender', password: 'Secret1', roleIds: [role] });
    const sender = await t.login('sender', 'Secret1');
    expect((await t.call('/sysuser/getsimplesysuserlist', {}, sender)).status).toBe(200);
    expect((await t.call('/sysuser/getsysuserlist', {}, sender)).status).toBe(403);
  });
});
