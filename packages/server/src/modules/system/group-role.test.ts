import { type GridNode, type Group, type Page, RES, type Role } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sysUserGroup } from '../../db/schema';
import { ADMIN_ROLE_ID, OPERATOR_ROLE_ID, ROOT_ORG_ID, resourceIdOf } from '../../db/seeded-ids';
import { createTestApp, type TestApp } from '../../test/harness';

describe('user groups', () => {
  let t: TestApp;
  let admin: string;
  let gridId: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    const grids = (await t.call<GridNode[]>('/powergrid/tree', {}, admin)).body.data;
    gridId = grids[0]!.children[0]!.id;
  });
  afterAll(() => t.close());

  it('offers the seeded grid hierarchy to pick from', async () => {
    const grids = (await t.call<GridNode[]>('/powergrid/tree', {}, admin)).body.data;
    expect(grids.map((g) => g.gridName)).toEqual(['Central Region']);
    expect(grids[0]!.children[0]!.children[0]!.children[0]).toMatchObject({ gridName: 'Transformer T1', gridType: 3 });
  });

  it('adds, lists by the spec filters, edits and deletes by code', async () => {
    const saved = await t.call<{ id: string }>(
      '/sysgroup/savesysgroup',
      { groupName: 'North team', groupCode: 'NT01', gridId, remark: '' },
      admin,
    );
    expect(saved.status).toBe(200);
    await t.call('/sysgroup/savesysgroup', { groupName: 'South team', groupCode: 'ST01', gridId, remark: '' }, admin);
    const list = (body: Record<string, unknown>) => t.call<Page<Group>>('/sysgroup/getsysgrouplist', body, admin);
    expect((await list({ groupName: 'north' })).body.data.list.map((g) => g.groupCode)).toEqual(['NT01']);
    expect((await list({ gridName: 'substation' })).body.data.total).toBe(2);
    expect((await list({ groupCode: 'ST' })).body.data.list[0]).toMatchObject({
      gridName: 'North Substation',
      userCount: 0,
    });

    const dup = await t.call(
      '/sysgroup/savesysgroup',
      { groupName: 'Other', groupCode: 'nt01', gridId, remark: '' },
      admin,
    );
    expect(dup.body).toMatchObject({ code: 409, data: { issues: [{ field: 'groupCode', key: 'existed' }] } });
    const badGrid = await t.call(
      '/sysgroup/savesysgroup',
      { groupName: 'G', groupCode: 'G1', gridId: 'a'.repeat(32), remark: '' },
      admin,
    );
    expect(badGrid.body.data).toMatchObject({ issues: [{ field: 'gridId', key: 'gridNotFound' }] });
    const badCode = await t.call(
      '/sysgroup/savesysgroup',
      { groupName: 'G', groupCode: 'G 1', gridId, remark: '' },
      admin,
    );
    expect(badCode.body.data).toMatchObject({ issues: [{ field: 'groupCode', key: 'codeFormat' }] });

    expect(
      (
        await t.call(
          '/sysgroup/updatesysgroup',
          { id: saved.body.data.id, groupName: 'North crew', groupCode: 'NT01', gridId, remark: 'x' },
          admin,
        )
      ).status,
    ).toBe(200);
    expect((await t.call('/sysgroup/getsysgroupdetail', { id: saved.body.data.id }, admin)).body.data).toMatchObject({
      groupName: 'North crew',
    });
    expect((await t.call('/sysgroup/deletesysgroup', { groupCode: 'ST01' }, admin)).status).toBe(200);
    expect((await list({})).body.data.total).toBe(1);
  });

  it('refuses to delete a group a user belongs to', async () => {
    const saved = await t.call(
      '/sysuser/savesysuser',
      {
        username: 'crew1',
        password: 'Crew@123',
        orgId: ROOT_ORG_ID,
        groupCodeList: ['NT01'],
      },
      admin,
    );
    expect(saved.status).toBe(200);
    const res = await t.call('/sysgroup/deletesysgroup', { groupCode: 'NT01' }, admin);
    expect(res.body).toMatchObject({ code: 409, msg: 'groupHasUsers' });
  });
});

describe('roles', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  const ids = (...uris: string[]) => uris.map(resourceIdOf);

  it('creates a role limited to a few resources, assigns a user, and the user sees only those', async () => {
    const saved = await t.call<{ id: string }>(
      '/sysrole/savesysrole',
      { roleName: 'Log reader', remark: '', resourceIdList: ids('/sysMGT', RES.sysJournal, RES.dashboard) },
      admin,
    );
    expect(saved.status).toBe(200);
    await t.createUser({ username: 'reader', password: 'Secret1' });
    const users = (await t.call<{ id: string; username: string }[]>('/sysuser/getsimplesysuserlist', {}, admin)).body
      .data;
    const readerId = users.find((u) => u.username === 'reader')!.id;
    expect(
      (await t.call('/sysrole/saveuserrole', { roleId: saved.body.data.id, userIdList: [readerId] }, admin)).status,
    ).toBe(200);

    const cookie = await t.login('reader', 'Secret1');
    const tree = (
      await t.call<{ resourceUri: string; children: { resourceUri: string }[] }[]>(
        '/sysresource/getuserresourcelist',
        {},
        cookie,
      )
    ).body.data;
    expect(tree.map((n) => n.resourceUri)).toEqual(['/dashboard', '/sysMGT']);
    expect(tree[1]!.children.map((n) => n.resourceUri)).toEqual([RES.sysJournal]);

    // A changed role applies at the user's next request.
    expect((await t.call('/sysrole/getsysrolelist', {}, cookie)).status).toBe(403);
    await t.call(
      '/sysrole/updatesysrole',
      {
        id: saved.body.data.id,
        roleName: 'Log reader',
        remark: '',
        resourceIdList: ids('/sysMGT', RES.sysJournal, RES.dashboard, RES.roleMGT),
      },
      admin,
    );
    expect((await t.call('/sysrole/getsysrolelist', {}, cookie)).status).toBe(200);

    const detail = await t.call<Role>('/sysrole/getsysroledetail', { id: saved.body.data.id }, admin);
    expect(detail.body.data).toMatchObject({ userIdList: [readerId], userCount: 1 });
    expect(detail.body.data.resourceIdList).toHaveLength(4);
    expect((await t.call('/sysrole/deletesysrole', { id: saved.body.data.id }, admin)).body).toMatchObject({
      code: 409,
      msg: 'roleHasUsers',
    });
    await t.call('/sysrole/saveuserrole', { roleId: saved.body.data.id, userIdList: [] }, admin);
    expect((await t.call('/sysrole/deletesysrole', { id: saved.body.data.id }, admin)).status).toBe(200);
  });

  it('keeps names unique and refuses unknown resources and users', async () => {
    expect((await t.call('/sysrole/checkrolename', { roleName: 'ADMIN' }, admin)).body.data).toEqual({ existed: true });
    expect((await t.call('/sysrole/savesysrole', { roleName: 'admin', resourceIdList: [] }, admin)).body).toMatchObject(
      { code: 409, msg: 'existed' },
    );
    expect(
      (await t.call('/sysrole/savesysrole', { roleName: 'r2', resourceIdList: ['e'.repeat(32)] }, admin)).body.data,
    ).toMatchObject({
      issues: [{ field: 'resourceIdList' }],
    });
    const list = await t.call<Page<Role>>('/sysrole/getsysrolelist', { roleName: 'adm' }, admin);
    expect(list.body.data.list.map((r) => r.roleName)).toEqual(['admin']);
    expect(
      (await t.call('/sysrole/saveuserrole', { roleId: ADMIN_ROLE_ID, userIdList: ['e'.repeat(32)] }, admin)).status,
    ).toBe(400);
  });

  it("words the seeded roles' remarks in the reader's language until someone changes them", async () => {
    const operator = async () =>
      (await t.call<Role>('/sysrole/getsysroledetail', { id: OPERATOR_ROLE_ID }, admin)).body.data;
    const language = (type: number) => t.call('/sysuser/changelanguage', { type }, admin);
    expect((await operator()).remark).toBe('Read-only demo role');
    await language(2);
    const shown = await operator();
    expect(shown.remark).toBe('只读演示角色');
    const list = await t.call<Page<Role>>('/sysrole/getsysrolelist', { pageSize: 50, curPage: 1 }, admin);
    expect(list.body.data.list.find((role) => role.id === ADMIN_ROLE_ID)?.remark).toBe('全部资源');

    const save = (remark: string) =>
      t.call(
        '/sysrole/updatesysrole',
        { id: OPERATOR_ROLE_ID, roleName: shown.roleName, remark, resourceIdList: shown.resourceIdList },
        admin,
      );
    // Saved unchanged from the Chinese form, it is still the seed's remark for every reader.
    expect((await save('只读演示角色')).status).toBe(200);
    await language(1);
    expect((await operator()).remark).toBe('Read-only demo role');
    await save('Meter readers of the north');
    await language(2);
    expect((await operator()).remark).toBe('Meter readers of the north');
    await language(1);
  });

  it('protects the built-in admin role', async () => {
    const detail = (await t.call<Role>('/sysrole/getsysroledetail', { id: ADMIN_ROLE_ID }, admin)).body.data;
    expect(detail.builtIn).toBe(true);
    expect((await t.call('/sysrole/deletesysrole', { id: ADMIN_ROLE_ID }, admin)).body.msg).toBe('builtInRole');
    const shrink = await t.call(
      '/sysrole/updatesysrole',
      { id: ADMIN_ROLE_ID, roleName: 'admin', remark: '', resourceIdList: ids(RES.dashboard) },
      admin,
    );
    expect(shrink.body.msg).toBe('builtInRole');
    expect((await t.call('/sysrole/saveuserrole', { roleId: ADMIN_ROLE_ID, userIdList: [] }, admin)).body.msg).toBe(
      'builtInRole',
    );
    const rename = await t.call(
      '/sysrole/updatesysrole',
      { id: ADMIN_ROLE_ID, roleName: 'administrators', remark: 'all', resourceIdList: detail.resourceIdList },
      admin,
    );
    expect(rename.status).toBe(200);
  });
});

describe("a group's grid", () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  it("gives a group only a grid node within the caller's own grid scope", async () => {
    const tree = (await t.call<GridNode[]>('/powergrid/tree', {}, admin)).body.data;
    const region = tree[0]!.id;
    const feeder = tree[0]!.children[0]!.children[0]!;
    const role = await t.createRole('group-keeper', ['/sysMGT', RES.userGroupMGT, RES.groupAdd, RES.groupEdit]);
    const keeperId = await t.createUser({ username: 'group.keeper', password: 'Keeper1', roleIds: [role] });
    const own = await t.call<{ id: string }>(
      '/sysgroup/savesysgroup',
      { groupName: 'Keeper crew', groupCode: 'KEEP1', gridId: feeder.id, remark: '' },
      admin,
    );
    await t.db.insert(sysUserGroup).values({ userId: keeperId, groupId: own.body.data.id });
    const keeper = await t.login('group.keeper', 'Keeper1');
    const outside = await t.call(
      '/sysgroup/savesysgroup',
      { groupName: 'Whole region', groupCode: 'KEEP2', gridId: region, remark: '' },
      keeper,
    );
    expect(outside.body).toMatchObject({ code: 400, data: { issues: [{ field: 'gridId', key: 'gridNotFound' }] } });
    const inside = await t.call(
      '/sysgroup/savesysgroup',
      { groupName: 'Area crew', groupCode: 'KEEP3', gridId: feeder.children[0]!.id, remark: '' },
      keeper,
    );
    expect(inside.status).toBe(200);
  });
});
