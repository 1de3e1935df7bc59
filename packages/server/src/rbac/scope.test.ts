import { type OrgNode, type Page, RES, type Role, type User } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../db/ids';
import { sysOrg } from '../db/schema';
import { ROOT_ORG_ID } from '../db/seeded-ids';
import { createTestApp, type TestApp } from '../test/harness';

/** Outside the admin role a user reaches users and organisations only within their own organisation's subtree. */
describe('organisation scope', () => {
  let t: TestApp;
  let admin: string;
  let manager: string;
  const north = newId();
  const northCity = newId();
  const south = newId();
  let southUser: string;
  let cityUser: string;
  let managerRole: string;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    await t.db.insert(sysOrg).values([
      { id: north, orgName: 'North', orgCode: 'N', pid: ROOT_ORG_ID },
      { id: northCity, orgName: 'North City', orgCode: 'NC', pid: north },
      { id: south, orgName: 'South', orgCode: 'S', pid: ROOT_ORG_ID },
    ]);
    const role = await t.createRole('org-manager', [
      '/sysMGT',
      RES.userMGT,
      RES.userAdd,
      RES.userEdit,
      RES.userDetail,
      RES.userDelete,
      RES.userUnlock,
      RES.userResetPassword,
      RES.organizationMGT,
      RES.orgAdd,
      RES.orgEdit,
      RES.orgDetail,
      RES.orgDelete,
      RES.roleMGT,
      RES.roleAssignUser,
      RES.notifyMGT,
      RES.noticeSend,
    ]);
    managerRole = role;
    await t.createUser({ username: 'north.manager', password: 'Manage1', roleIds: [role], orgId: north });
    cityUser = await t.createUser({ username: 'city.clerk', password: 'Clerk12', orgId: northCity, roleIds: [role] });
    southUser = await t.createUser({ username: 'south.clerk', password: 'Clerk12', orgId: south, roleIds: [role] });
    manager = await t.login('north.manager', 'Manage1');
  });
  afterAll(() => t.close());

  it('lists and details only users of the own subtree; others answer 404', async () => {
    const list = await t.call<Page<User>>('/sysuser/getsysuserlist', { pageSize: 50 }, manager);
    expect(list.body.data.list.map((u) => u.username).sort()).toEqual(['city.clerk', 'north.manager']);
    expect((await t.call<Page<User>>('/sysuser/getsysuserlist', { orgId: south }, manager)).body.data.total).toBe(0);
    expect((await t.call('/sysuser/getsysuserdetail', { id: cityUser }, manager)).status).toBe(200);
    expect((await t.call('/sysuser/getsysuserdetail', { id: southUser }, manager)).status).toBe(404);
    const simple = await t.call<{ username: string }[]>('/sysuser/getsimplesysuserlist', {}, manager);
    expect(simple.body.data.map((u) => u.username)).not.toContain('south.clerk');
  });

  it('cannot change, disable, delete, unlock or reset a user outside; nor move one there', async () => {
    const south = (await t.call<User>('/sysuser/getsysuserdetail', { id: southUser }, admin)).body.data;
    const {
      orgName: _o,
      roleNames: _r,
      groupNames: _g,
      lockedUntil: _l,
      createTime: _c,
      updateTime: _u,
      ...rest
    } = south;
    const { mustChangePassword: _m, ...editable } = rest;
    expect((await t.call('/sysuser/updatesysuser', { ...editable, status: 'disabled' }, manager)).status).toBe(404);
    expect((await t.call('/sysuser/deletesysuser', { id: southUser, username: 'south.clerk' }, manager)).status).toBe(
      404,
    );
    expect((await t.call('/sysuser/unlocksysuser', { id: southUser }, manager)).status).toBe(404);
    expect(
      (await t.call('/sysuser/resetsysuserpassword', { id: southUser, newPassword: 'Taken1' }, manager)).status,
    ).toBe(404);
    const city = (await t.call<User>('/sysuser/getsysuserdetail', { id: cityUser }, admin)).body.data;
    const moved = await t.call(
      '/sysuser/updatesysuser',
      {
        id: city.id,
        username: city.username,
        orgId: south.orgId,
        roleIdList: [],
        groupCodeList: [],
      },
      manager,
    );
    expect(moved.body).toMatchObject({ code: 400, data: { issues: [{ field: 'orgId', key: 'orgNotFound' }] } });
    const added = await t.call(
      '/sysuser/savesysuser',
      { username: 'intruder', password: 'Intrude1', orgId: south.orgId, roleIdList: [], groupCodeList: [] },
      manager,
    );
    expect(added.status).toBe(400);
    expect((await t.call<User>('/sysuser/getsysuserdetail', { id: southUser }, admin)).body.data.status).toBe(
      'enabled',
    );
  });

  it('sees and manages only its own organisation subtree', async () => {
    const tree = (await t.call<OrgNode[]>('/sysorg/treesysorg', {}, manager)).body.data;
    expect(tree.map((n) => n.orgName)).toEqual(['North']);
    expect(tree[0]!.children.map((n) => n.orgName)).toEqual(['North City']);
    expect((await t.call('/sysorg/getsysorgdetail', { id: south }, manager)).status).toBe(404);
    const org = (over: Record<string, unknown>) => ({ orgName: 'X', orgCode: 'X1', pid: north, ...over });
    expect(
      (await t.call('/sysorg/updatesysorg', { ...org({ orgName: 'South' }), id: south, pid: ROOT_ORG_ID }, manager))
        .status,
    ).toBe(404);
    expect((await t.call('/sysorg/deletesysorg', { id: south }, manager)).status).toBe(404);
    expect((await t.call('/sysorg/savesysorg', org({ pid: south }), manager)).status).toBe(400);
    expect((await t.call('/sysorg/savesysorg', org({ pid: '0' }), manager)).status).toBe(400);
    expect((await t.call('/sysorg/savesysorg', org({ orgName: 'North Port' }), manager)).status).toBe(200);
    // Its own organisation keeps its parent (outside the scope) while being edited.
    const own = await t.call(
      '/sysorg/updatesysorg',
      { ...org({ orgName: 'North', orgCode: 'N' }), id: north, pid: ROOT_ORG_ID },
      manager,
    );
    expect(own.status).toBe(200);
    expect(
      (
        await t.call(
          '/sysorg/updatesysorg',
          { ...org({ orgName: 'North City', orgCode: 'NC' }), id: northCity, pid: south },
          manager,
        )
      ).status,
    ).toBe(400);
    const adminTree = (await t.call<OrgNode[]>('/sysorg/treesysorg', {}, admin)).body.data;
    expect(adminTree.map((n) => n.orgName)).toEqual(['Meterdesk']);
  });

  it('names only the role members of its own subtree', async () => {
    const detail = await t.call<Role>('/sysrole/getsysroledetail', { id: managerRole }, manager);
    expect(detail.body.data.userIdList).not.toContain(southUser);
    expect(detail.body.data.userIdList).toContain(cityUser);
    expect(detail.body.data.userCount).toBe(2);
    const list = await t.call<Page<Role>>('/sysrole/getsysrolelist', { roleName: 'org-manager' }, manager);
    expect(list.body.data.list[0]?.userIdList).not.toContain(southUser);
    const adminView = await t.call<Role>('/sysrole/getsysroledetail', { id: managerRole }, admin);
    expect(adminView.body.data.userIdList).toContain(southUser);
  });

  it('sends notices only within its subtree and sees only the notices delivered there', async () => {
    const notice = (recUsernameList: string[]) => ({
      noticeType: 0,
      noticeTitle: `scope ${newId()}`,
      noticeContent: 'Meter reading tomorrow',
      recUsernameList,
      sendEmail: false,
    });
    const outside = await t.call('/systemparameter/sendnoticebath', notice(['city.clerk', 'south.clerk']), manager);
    expect(outside.body).toMatchObject({ code: 400, data: { issues: [{ field: 'recUsernameList' }] } });
    expect((await t.call('/systemparameter/sendnoticebath', notice(['city.clerk']), manager)).status).toBe(200);

    const fromAdmin = notice(['city.clerk', 'south.clerk']);
    const sent = await t.call<{ noticeBatchId: string }>('/systemparameter/sendnoticebath', fromAdmin, admin);
    const { noticeBatchId } = sent.body.data;
    const batches = await t.call<Page<{ noticeBatchId: string; total: number }>>(
      '/systemparameter/getnoticebatchpage',
      { noticeTitle: fromAdmin.noticeTitle },
      manager,
    );
    expect(batches.body.data.list).toEqual([expect.objectContaining({ noticeBatchId, total: 1 })]);
    const readers = await t.call<{ recUsername: string }[]>(
      '/systemparameter/getnoticereaddetaillist',
      { noticeBatchId },
      manager,
    );
    expect(readers.body.data.map((n) => n.recUsername)).toEqual(['city.clerk']);

    const southOnly = notice(['south.clerk']);
    const hidden = await t.call<{ noticeBatchId: string }>('/systemparameter/sendnoticebath', southOnly, admin);
    const unseen = await t.call(
      '/systemparameter/getnoticereaddetaillist',
      { noticeBatchId: hidden.body.data.noticeBatchId },
      manager,
    );
    expect(unseen.status).toBe(404);
  });
});
