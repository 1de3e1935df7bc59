import { RES, type User } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../db/ids';
import { sysGroup, sysUser } from '../db/schema';
import { ADMIN_ROLE_ID, OPERATOR_ROLE_ID, ROOT_ORG_ID } from '../db/seeded-ids';
import { addGridNode, loginGridUser } from '../test/grid';
import { createTestApp, type TestApp } from '../test/harness';

const ADMIN_ID_QUERY = eq(sysUser.username, 'admin');

/** The editable fields of a user as the edit form sends them. */
function editable(u: User) {
  return {
    id: u.id,
    username: u.username,
    fullName: u.fullName,
    orgId: u.orgId,
    roleIdList: u.roleIdList,
    groupCodeList: u.groupCodeList,
    status: u.status,
    expiryDate: u.expiryDate,
    gender: u.gender,
    birthday: u.birthday,
    phone: u.phone,
    email: u.email,
    address: u.address,
    remark: u.remark,
  };
}

describe('grants: nobody gives away more than they hold', () => {
  let t: TestApp;
  let admin: string;
  let adminId: string;
  let editor: string;
  let editorId: string;
  let editorRole: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    adminId = (await t.db.select().from(sysUser).where(ADMIN_ID_QUERY))[0]!.id;
    editorRole = await t.createRole('user-editor', [
      '/sysMGT',
      RES.userMGT,
      RES.userEdit,
      RES.userDetail,
      RES.userDelete,
      RES.userUnlock,
      RES.userResetPassword,
      RES.roleMGT,
      RES.roleEdit,
      RES.roleAssignUser,
    ]);
    editorId = await t.createUser({ username: 'editor', password: 'Editor1', roleIds: [editorRole] });
    editor = await t.login('editor', 'Editor1');
  });
  afterAll(() => t.close());

  const detail = async (id: string, as = admin) =>
    (await t.call<User>('/sysuser/getsysuserdetail', { id }, as)).body.data;

  it("refuses changing one's own roles, on the user page or the role page", async () => {
    const me = await detail(editorId);
    const res = await t.call(
      '/sysuser/updatesysuser',
      { ...editable(me), roleIdList: [editorRole, ADMIN_ROLE_ID] },
      editor,
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ msg: 'cannotChangeOwnAccess', data: { issues: [{ field: 'roleIdList' }] } });
    expect((await detail(editorId)).roleIdList).toEqual([editorRole]);
    const viaRole = await t.call(
      '/sysrole/saveuserrole',
      { roleId: ADMIN_ROLE_ID, userIdList: [adminId, editorId] },
      editor,
    );
    expect(viaRole.status).toBe(403);
    expect((await detail(editorId)).roleIdList).toEqual([editorRole]);
    const leave = await t.call('/sysrole/saveuserrole', { roleId: editorRole, userIdList: [] }, editor);
    expect(leave.body).toMatchObject({ code: 403, msg: 'cannotChangeOwnAccess' });
    expect((await detail(editorId)).roleIdList).toEqual([editorRole]);
  });

  it('refuses editing, disabling, deleting, unlocking or resetting a user who holds more', async () => {
    const target = await detail(adminId);
    const strip = await t.call('/sysuser/updatesysuser', { ...editable(target), roleIdList: [] }, editor);
    expect(strip.body).toMatchObject({ code: 403, msg: 'userHoldsMore' });
    const disable = await t.call('/sysuser/updatesysuser', { ...editable(target), status: 'disabled' }, editor);
    expect(disable.body).toMatchObject({ code: 403, msg: 'userHoldsMore' });
    expect((await t.call('/sysuser/deletesysuser', { id: adminId, username: 'admin' }, editor)).status).toBe(403);
    expect((await t.call('/sysuser/unlocksysuser', { id: adminId }, editor)).status).toBe(403);
    expect(
      (await t.call('/sysuser/resetsysuserpassword', { id: adminId, newPassword: 'Taken1!' }, editor)).status,
    ).toBe(403);
    const unassign = await t.call('/sysrole/saveuserrole', { roleId: ADMIN_ROLE_ID, userIdList: [] }, editor);
    expect(unassign.status).toBe(403);
    expect(await detail(adminId)).toMatchObject({ status: 'enabled', roleIdList: [ADMIN_ROLE_ID] });
    expect((await t.call('/sysuser/auth', {}, admin)).status).toBe(200);
  });

  it('lets the editor manage users holding no more than it does', async () => {
    const saved = await t.call<{ id: string }>(
      '/sysuser/savesysuser',
      {
        username: 'reader1',
        password: 'Reader1',
        orgId: ROOT_ORG_ID,
        roleIdList: [OPERATOR_ROLE_ID],
        groupCodeList: [],
      },
      admin,
    );
    const reader = await detail(saved.body.data.id);
    // The operator role is read-only pages the editor does not hold all of: the reader is out of reach.
    const refused = await t.call('/sysuser/updatesysuser', { ...editable(reader), fullName: 'R' }, editor);
    expect(refused.status).toBe(403);
    await t.call('/sysuser/updatesysuser', { ...editable(reader), roleIdList: [] }, admin);
    const beyond = await t.call('/sysuser/updatesysuser', { ...editable(reader), roleIdList: [ADMIN_ROLE_ID] }, editor);
    expect(beyond.body).toMatchObject({
      code: 403,
      msg: 'grantExceedsOwn',
      data: { issues: [{ field: 'roleIdList' }] },
    });
    const edited = await t.call('/sysuser/updatesysuser', { ...editable(reader), roleIdList: [editorRole] }, editor);
    expect(edited.status).toBe(200);
    expect((await detail(reader.id)).roleIdList).toEqual([editorRole]);
  });

  it('refuses widening a role beyond what the caller holds', async () => {
    const role = (
      await t.call<{ resourceIdList: string[]; roleName: string; remark: string }>(
        '/sysrole/getsysroledetail',
        { id: editorRole },
        admin,
      )
    ).body.data;
    const all = (await t.call<{ resourceIdList: string[] }>('/sysrole/getsysroledetail', { id: ADMIN_ROLE_ID }, admin))
      .body.data.resourceIdList;
    const widened = await t.call(
      '/sysrole/updatesysrole',
      { id: editorRole, roleName: role.roleName, remark: role.remark, resourceIdList: all },
      editor,
    );
    expect(widened.body).toMatchObject({ code: 403, msg: 'grantExceedsOwn' });
    expect((await t.call('/sysuser/getsysuserlist', {}, editor)).status).toBe(200);
  });

  describe('a user scoped to one transformer area', () => {
    let clerk: string;
    let clerkId: string;
    /** Group codes: on the clerk's area, on the grid root above it, on a sibling area. */
    const groups = { area: newId(), root: newId(), sibling: newId() };
    beforeAll(async () => {
      const root = await addGridNode(t, 'ROOT');
      const area = await addGridNode(t, 'AREA', root);
      const sibling = await addGridNode(t, 'SIBLING', root);
      const grids = { area, root, sibling };
      for (const [key, code] of Object.entries(groups))
        await t.db
          .insert(sysGroup)
          .values({ id: newId(), groupName: code, groupCode: code, gridId: grids[key as keyof typeof grids] });
      clerk = await loginGridUser(t, 'area.clerk', [area], ['/sysMGT', RES.userMGT, RES.userAdd, RES.userEdit]);
      clerkId = (await t.db.select().from(sysUser).where(eq(sysUser.username, 'area.clerk')))[0]!.id;
    });

    it('assigns another user, or a new one, only user groups whose grid lies in its own scope', async () => {
      const otherId = await t.createUser({ username: 'area.reader', password: 'Reader1' });
      const other = await detail(otherId);
      for (const code of [groups.root, groups.sibling]) {
        const widened = await t.call('/sysuser/updatesysuser', { ...editable(other), groupCodeList: [code] }, clerk);
        expect(widened.status).toBe(403);
        expect(widened.body).toMatchObject({
          msg: 'groupOutsideScope',
          data: { issues: [{ field: 'groupCodeList' }] },
        });
        const added = { username: `new.${code}`, password: 'Reader1', orgId: ROOT_ORG_ID, groupCodeList: [code] };
        expect((await t.call('/sysuser/savesysuser', added, clerk)).status).toBe(403);
      }
      expect((await detail(otherId)).groupCodeList).toEqual([]);
      const within = await t.call(
        '/sysuser/updatesysuser',
        { ...editable(other), groupCodeList: [groups.area] },
        clerk,
      );
      expect(within.status).toBe(200);
      expect((await detail(otherId)).groupCodeList).toEqual([groups.area]);
    });

    it('never changes its own groups, roles or expiry, yet edits the rest of its own record', async () => {
      const me = await detail(clerkId);
      const changes = {
        groupCodeList: [...me.groupCodeList, groups.root],
        roleIdList: [],
        expiryDate: '2099-01-01T00:00:00.000Z',
      };
      for (const [field, value] of Object.entries(changes)) {
        const res = await t.call('/sysuser/updatesysuser', { ...editable(me), [field]: value }, clerk);
        expect(res.status, field).toBe(403);
        expect(res.body).toMatchObject({ msg: 'cannotChangeOwnAccess', data: { issues: [{ field }] } });
      }
      expect(await detail(clerkId)).toMatchObject({
        groupCodeList: me.groupCodeList,
        roleIdList: me.roleIdList,
        expiryDate: '',
      });
      const phone = await t.call('/sysuser/updatesysuser', { ...editable(me), phone: '0123456789' }, clerk);
      expect(phone.status).toBe(200);
      expect((await detail(clerkId)).phone).toBe('0123456789');
    });
  });

  it('keeps one enabled administrator: the last one cannot be disabled, deleted or stripped', async () => {
    const me = await detail(adminId);
    // Nobody strips themselves; another user holding every resource could, were this not the last one.
    const strip = await t.call('/sysuser/updatesysuser', { ...editable(me), roleIdList: [OPERATOR_ROLE_ID] }, admin);
    expect(strip.body).toMatchObject({ code: 403, msg: 'cannotChangeOwnAccess' });
    const emptyRole = await t.call('/sysrole/saveuserrole', { roleId: ADMIN_ROLE_ID, userIdList: [] }, admin);
    expect(emptyRole.status).toBe(409);

    const second = await t.call<{ id: string }>(
      '/sysuser/savesysuser',
      { username: 'boss', password: 'Boss123', orgId: ROOT_ORG_ID, roleIdList: [ADMIN_ROLE_ID], groupCodeList: [] },
      admin,
    );
    expect(second.body).toMatchObject({ code: 200 });
    const bossId = second.body.data.id;
    await t.db.update(sysUser).set({ mustChangePassword: false }).where(eq(sysUser.id, bossId));
    const boss = await t.login('boss', 'Boss123');
    // With a second administrator the first may step down, and then the second is the last.
    expect(
      (await t.call('/sysuser/updatesysuser', { ...editable(me), roleIdList: [OPERATOR_ROLE_ID] }, boss)).status,
    ).toBe(200);
    const bossNow = await detail(bossId, boss);
    expect((await t.call('/sysuser/updatesysuser', { ...editable(bossNow), roleIdList: [] }, boss)).body).toMatchObject(
      { code: 403, msg: 'cannotChangeOwnAccess' },
    );
    expect((await t.call('/sysuser/updatesysuser', { ...editable(bossNow), status: 'disabled' }, admin)).status).toBe(
      403,
    );
    const restored = await t.call('/sysuser/updatesysuser', { ...editable(me), roleIdList: [ADMIN_ROLE_ID] }, boss);
    expect(restored.status).toBe(200);
    expect((await t.call('/sysuser/deletesysuser', { id: bossId, username: 'boss' }, admin)).status).toBe(200);
    expect((await t.call('/sysuser/deletesysuser', { id: adminId, username: 'admin' }, admin)).body.msg).toBe(
      'cannotChangeSelf',
    );
    const disableLast = await t.call('/sysuser/updatesysuser', { ...editable(me), status: 'disabled' }, admin);
    expect(disableLast.body.msg).toBe('cannotChangeSelf');
  });
});
