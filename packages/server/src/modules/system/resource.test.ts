import { flattenResourceTree, type Page, RES, type Resource, type ResourceNode } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sysLog, sysResource } from '../../db/schema';
import { resourceIdOf } from '../../db/seeded-ids';
import { createTestApp, type TestApp } from '../../test/harness';

const SYS = resourceIdOf('/sysMGT');
const RESOURCE_PAGE = resourceIdOf(RES.resourceMGT);

const valid = (over: Record<string, unknown> = {}) => ({
  parentId: RESOURCE_PAGE,
  resourceType: 3,
  resourceName: '导出资源',
  resourceNameEn: 'Export resources',
  resourceUri: '/sysMGT/resourceMGT/export',
  perms: 'resource:export',
  icon: '',
  orderNum: 5,
  ...over,
});

describe('resource management', () => {
  let t: TestApp;
  let admin: string;
  const total = flattenResourceTree().length;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  const list = (body: Record<string, unknown>) =>
    t.call<Page<Resource>>('/sysresource/getsysresourcelist', body, admin);
  const count = async () => (await t.db.select().from(sysResource)).length;

  describe('list', () => {
    it('pages on the server with the total', async () => {
      const first = await list({ pageSize: 20, curPage: 1 });
      expect(first.body.data).toMatchObject({ total, curPage: 1, pageSize: 20 });
      expect(first.body.data.list).toHaveLength(20);
      const last = await list({ pageSize: 20, curPage: Math.ceil(total / 20) });
      expect(last.body.data.list).toHaveLength(total % 20 || 20);
      const ids = new Set([...first.body.data.list, ...last.body.data.list].map((r) => r.id));
      expect(ids.size).toBe(first.body.data.list.length + last.body.data.list.length);
    });

    it('filters by name, English name and type, and shows the parent name', async () => {
      const byName = await list({ resourceName: '资源管理' });
      expect(byName.body.data.list.map((r) => r.resourceUri)).toEqual([RES.resourceMGT]);
      expect(byName.body.data.list[0]).toMatchObject({
        parentName: '系统管理',
        parentNameEn: 'System',
        resourceType: 1,
      });
      const byEn = await list({ resourceNameEn: 'power grid', pageSize: 50 });
      expect(byEn.body.data.list.map((r) => r.resourceUri)).toEqual(['/archiveSetting/powerGrid']);
      const areas = await list({ resourceType: 0, pageSize: 50 });
      expect(areas.body.data.list.every((r) => r.resourceType === 0)).toBe(true);
      expect(areas.body.data.total).toBe(flattenResourceTree().filter((n) => n.seed.type === 0).length);
      const wildcard = await list({ resourceNameEn: '%' });
      expect(wildcard.body.data.total).toBe(0);
    });

    it('sorts by a declared column and refuses any other', async () => {
      const asc = await list({ resourceType: 0, sortField: 'orderNum', sortOrder: 'ascend', pageSize: 50 });
      const orders = asc.body.data.list.map((r) => r.orderNum);
      expect(orders).toEqual([...orders].sort((a, b) => a - b));
      const desc = await list({ resourceType: 0, sortField: 'resourceNameEn', sortOrder: 'descend', pageSize: 50 });
      const names = desc.body.data.list.map((r) => r.resourceNameEn);
      expect(names).toEqual([...names].sort((a, b) => b.localeCompare(a)));
      const bad = await list({ sortField: 'passwordHash' });
      expect(bad.body).toMatchObject({ code: 400, data: { issues: [{ field: 'sortField' }] } });
    });

    it('refuses bad paging and unknown fields', async () => {
      expect((await list({ pageSize: 0 })).body.data).toMatchObject({
        issues: [{ field: 'pageSize', key: 'outOfRange' }],
      });
      expect((await list({ pageSize: 501 })).status).toBe(400);
      expect((await list({ colour: 'red' })).body.data).toMatchObject({
        issues: [{ field: 'colour', key: 'unknownField' }],
      });
    });
  });

  describe('save', () => {
    it('adds a resource, returns its 32-hex id, and logs the operation', async () => {
      const res = await t.call<{ id: string }>('/sysresource/savesysresource', valid(), admin);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toMatch(/^[0-9a-f]{32}$/);
      const detail = await t.call<Resource>('/sysresource/getsysresourcedetail', { id: res.body.data.id }, admin);
      expect(detail.body.data).toMatchObject({ ...valid(), parentName: '资源管理' });
      const [log] = await t.db.select().from(sysLog).where(eq(sysLog.operatingType, 'add'));
      expect(log).toMatchObject({
        username: 'admin',
        logType: 'operation',
        result: 200,
        requestUrl: '/apis/sysresource/savesysresource',
      });
      expect(log!.content).toContain('Export resources');
    });

    it('names every invalid field, and writes nothing', async () => {
      const before = await count();
      const res = await t.call(
        '/sysresource/savesysresource',
        valid({ resourceName: '  ', resourceUri: 'no-slash', orderNum: -1, resourceType: 7 }),
        admin,
      );
      expect(res.status).toBe(400);
      const issues = (res.body.data as { issues: { field: string; key: string }[] }).issues;
      expect(issues).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'resourceName', key: 'mandatory' }),
          expect.objectContaining({ field: 'resourceUri', key: 'formalError' }),
          expect.objectContaining({ field: 'orderNum', key: 'outOfRange' }),
          expect.objectContaining({ field: 'resourceType', key: 'invalidValue' }),
        ]),
      );
      const missing = await t.call('/sysresource/savesysresource', { resourceType: 1 }, admin);
      expect((missing.body.data as { issues: { field: string }[] }).issues.map((i) => i.field)).toEqual(
        expect.arrayContaining(['resourceName', 'resourceNameEn', 'resourceUri', 'parentId']),
      );
      expect(await count()).toBe(before);
      const failedLog = await t.db.select().from(sysLog).where(eq(sysLog.result, 400));
      expect(failedLog.some((l) => l.operatingType === 'add')).toBe(true);
    });

    it('refuses a name used by a sibling with existed, but allows it under another parent', async () => {
      const dup = await t.call(
        '/sysresource/savesysresource',
        valid({ resourceName: '新增', resourceUri: '/sysMGT/resourceMGT/xa' }),
        admin,
      );
      expect(dup.status).toBe(409);
      expect(dup.body).toMatchObject({ msg: 'existed', data: { issues: [{ field: 'resourceName', key: 'existed' }] } });
      const dupEn = await t.call(
        '/sysresource/savesysresource',
        valid({ resourceName: '唯一', resourceNameEn: 'ADD', resourceUri: '/sysMGT/resourceMGT/xb' }),
        admin,
      );
      expect(dupEn.body.data).toMatchObject({ issues: [{ field: 'resourceNameEn', key: 'existed' }] });
      const elsewhere = await t.call(
        '/sysresource/savesysresource',
        valid({
          parentId: resourceIdOf('/sysMGT/sysJournal'),
          resourceName: '新增',
          resourceNameEn: 'Add',
          resourceUri: '/sysMGT/sysJournal/add',
          resourceType: 2,
        }),
        admin,
      );
      expect(elsewhere.status).toBe(200);
    });

    it('refuses a used uri, a missing parent, and a type that cannot sit under its parent', async () => {
      expect(
        (await t.call('/sysresource/savesysresource', valid({ resourceName: 'a1', resourceNameEn: 'a1' }), admin)).body,
      ).toMatchObject({
        code: 409,
        msg: 'resourceUriExisted',
      });
      expect(
        (
          await t.call(
            '/sysresource/savesysresource',
            valid({ resourceName: 'a2', resourceNameEn: 'a2', parentId: 'f'.repeat(32) }),
            admin,
          )
        ).body.msg,
      ).toBe('parentNotFound');
      expect(
        (
          await t.call(
            '/sysresource/savesysresource',
            valid({ resourceName: 'a3', resourceNameEn: 'a3', resourceType: 0 }),
            admin,
          )
        ).body.msg,
      ).toBe('parentTypeMismatch');
      expect(
        (
          await t.call(
            '/sysresource/savesysresource',
            valid({ resourceName: 'a4', resourceNameEn: 'a4', parentId: '0' }),
            admin,
          )
        ).body.msg,
      ).toBe('parentTypeMismatch');
      const underButton = valid({
        resourceName: 'a5',
        resourceNameEn: 'a5',
        resourceUri: '/a/b',
        parentId: resourceIdOf('/sysMGT/userMGT/delete'),
      });
      expect((await t.call('/sysresource/savesysresource', underButton, admin)).body.msg).toBe('parentTypeMismatch');
      expect((await t.call('/sysresource/savesysresource', valid({ parentId: 'xyz' }), admin)).body.data).toMatchObject(
        { issues: [{ field: 'parentId', key: 'invalidId' }] },
      );
    });
  });

  describe('check name', () => {
    it('tells whether a name is taken among the siblings, ignoring the record being edited', async () => {
      const check = (body: Record<string, unknown>) =>
        t.call<{ existed: boolean }>('/sysresource/checkresourcename', body, admin);
      expect((await check({ type: 2, resourceName: '资源管理', parentId: SYS })).body.data.existed).toBe(true);
      expect((await check({ type: 1, resourceName: 'resource', parentId: SYS })).body.data.existed).toBe(true);
      expect((await check({ type: 1, resourceName: 'Resource', parentId: '0' })).body.data.existed).toBe(false);
      expect(
        (await check({ id: RESOURCE_PAGE, type: 1, resourceName: 'Resource', parentId: SYS })).body.data.existed,
      ).toBe(false);
      expect((await check({ type: 3, resourceName: 'x', parentId: SYS })).status).toBe(400);
    });
  });

  describe('update', () => {
    it('edits a resource and keeps its place in the tree', async () => {
      const detail = await t.call<Resource>('/sysresource/getsysresourcedetail', { id: RESOURCE_PAGE }, admin);
      const { id, resourceName, resourceNameEn, resourceType, resourceUri, perms, icon, parentId } = detail.body.data;
      const res = await t.call(
        '/sysresource/updatesysresource',
        {
          id,
          resourceName,
          resourceNameEn: `${resourceNameEn} tree`,
          resourceType,
          resourceUri,
          perms,
          icon,
          parentId,
          orderNum: 42,
        },
        admin,
      );
      expect(res.status).toBe(200);
      const after = await t.call<Resource>('/sysresource/getsysresourcedetail', { id }, admin);
      expect(after.body.data).toMatchObject({ resourceNameEn: 'Resource tree', orderNum: 42 });
      const tree = await t.call<ResourceNode[]>('/sysresource/getsysresourcetree', {}, admin);
      const sys = tree.body.data.find((n) => n.resourceUri === '/sysMGT')!;
      expect(sys.children.at(-1)!.resourceUri).toBe(RES.resourceMGT);
    });

    it('refuses a cycle, an unknown id, and a button type for a node with children', async () => {
      const base = valid({
        resourceType: 1,
        resourceName: '系统管理',
        resourceNameEn: 'System',
        resourceUri: '/sysMGT',
        icon: 'TeamOutlined',
        orderNum: 1,
      });
      const cycle = await t.call(
        '/sysresource/updatesysresource',
        { ...base, id: SYS, parentId: RESOURCE_PAGE },
        admin,
      );
      expect(cycle.body.msg).toBe('parentCycle');
      const unknown = await t.call(
        '/sysresource/updatesysresource',
        { ...base, id: 'a'.repeat(32), parentId: SYS },
        admin,
      );
      expect(unknown.status).toBe(404);
      const detail = (await t.call<Resource>('/sysresource/getsysresourcedetail', { id: RESOURCE_PAGE }, admin)).body
        .data;
      const toButton = await t.call(
        '/sysresource/updatesysresource',
        {
          id: detail.id,
          resourceName: detail.resourceName,
          resourceNameEn: detail.resourceNameEn,
          resourceType: 3,
          resourceUri: detail.resourceUri,
          perms: '',
          icon: '',
          parentId: SYS,
          orderNum: 1,
        },
        admin,
      );
      expect(toButton.body).toMatchObject({ code: 400, data: { issues: [{ field: 'resourceType' }] } });
    });
  });

  describe('permitted tree', () => {
    it('gives the admin the whole tree and a limited user only their branch', async () => {
      const full = await t.call<ResourceNode[]>('/sysresource/getuserresourcelist', {}, admin);
      const walk = (nodes: ResourceNode[]): number => nodes.reduce((n, x) => n + 1 + walk(x.children), 0);
      expect(walk(full.body.data)).toBe(await count());

      const role = await t.createRole('resources-only', [
        '/sysMGT',
        RES.resourceMGT,
        RES.resourceAdd,
        '/archiveSetting/meter',
      ]);
      await t.createUser({ username: 'limited', password: 'Secret1', roleIds: [role] });
      const cookie = await t.login('limited', 'Secret1');
      const mine = (await t.call<ResourceNode[]>('/sysresource/getuserresourcelist', {}, cookie)).body.data;
      expect(mine.map((n) => n.resourceUri)).toEqual(['/sysMGT']);
      expect(mine[0]!.children.map((n) => n.resourceUri)).toEqual([RES.resourceMGT]);
      expect(mine[0]!.children[0]!.children.map((n) => n.resourceUri)).toEqual([RES.resourceAdd]);
      expect((await t.call('/sysresource/updatesysresource', valid({ id: RESOURCE_PAGE }), cookie)).status).toBe(403);
    });
  });

  describe('no escalation through resources', () => {
    it('keeps the uri of a built-in node, so a held node cannot be re-pointed at a guarded path', async () => {
      const role = await t.createRole('resource-editor', ['/sysMGT', RES.resourceMGT, RES.resourceEdit]);
      await t.createUser({ username: 'res.editor', password: 'Editor1', roleIds: [role] });
      const editor = await t.login('res.editor', 'Editor1');
      const edit = (
        await t.call<Resource>('/sysresource/getsysresourcedetail', { id: resourceIdOf(RES.resourceEdit) }, admin)
      ).body.data;
      const { parentName: _p, parentNameEn: _pe, createTime: _c, updateTime: _u, ...editable } = edit;
      const repointed = await t.call(
        '/sysresource/updatesysresource',
        { ...editable, resourceUri: RES.userDelete },
        editor,
      );
      expect(repointed.body).toMatchObject({ code: 409, msg: 'builtInResource' });
      expect((await t.call('/sysuser/deletesysuser', { id: 'a'.repeat(32), username: 'x' }, editor)).status).toBe(403);
      const renamed = await t.call('/sysresource/updatesysresource', { ...editable, resourceNameEn: 'Change' }, editor);
      expect(renamed.status).toBe(200);
    });

    it("refuses a new node on a guarded path or outside its parent's path", async () => {
      const guarded = await t.call(
        '/sysresource/savesysresource',
        valid({ resourceName: 'g1', resourceNameEn: 'g1', resourceUri: RES.resourceAdd }),
        admin,
      );
      expect(guarded.body).toMatchObject({
        code: 400,
        data: { issues: [{ field: 'resourceUri', key: 'resourceUriGuarded' }] },
      });
      const outside = await t.call(
        '/sysresource/savesysresource',
        valid({ resourceName: 'g2', resourceNameEn: 'g2', resourceUri: '/sysMGT/userMGT/purge' }),
        admin,
      );
      expect(outside.body).toMatchObject({
        data: { issues: [{ field: 'resourceUri', key: 'resourceUriOutsideParent' }] },
      });
    });

    it('deletes a node an administrator added, never a built-in one or one with children', async () => {
      const parent = await t.call<{ id: string }>(
        '/sysresource/savesysresource',
        valid({ resourceType: 2, resourceName: 'd1', resourceNameEn: 'd1', resourceUri: '/sysMGT/resourceMGT/d1' }),
        admin,
      );
      const child = await t.call<{ id: string }>(
        '/sysresource/savesysresource',
        valid({
          parentId: parent.body.data.id,
          resourceName: 'd2',
          resourceNameEn: 'd2',
          resourceUri: '/sysMGT/resourceMGT/d1/d2',
        }),
        admin,
      );
      const del = (id: string) => t.call('/sysresource/deletesysresource', { id }, admin);
      expect((await del(RESOURCE_PAGE)).body).toMatchObject({ code: 409, msg: 'builtInResource' });
      expect((await del(parent.body.data.id)).body).toMatchObject({ code: 409, msg: 'resourceHasChildren' });
      expect((await del(child.body.data.id)).status).toBe(200);
      expect((await del(parent.body.data.id)).status).toBe(200);
      expect((await del(parent.body.data.id)).status).toBe(404);
    });
  });
});
