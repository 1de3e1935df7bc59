import type { OrgNode } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_ORG_ID } from '../../db/seeded-ids';
import { createTestApp, type TestApp } from '../../test/harness';

const org = (over: Record<string, unknown> = {}) => ({
  pid: ROOT_ORG_ID,
  orgName: 'North Depot',
  orgCode: 'ND01',
  remark: '',
  extendInfo: { phoneUser: 'Ann', email: 'ann@example.com', phone: '+1 555 0100', address: '1 Grid St' },
  ...over,
});

describe('organisations', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  it('adds, nests, edits and shows organisations as a tree with user counts', async () => {
    const saved = await t.call<{ id: string }>('/sysorg/savesysorg', org(), admin);
    expect(saved.status).toBe(200);
    const child = await t.call<{ id: string }>(
      '/sysorg/savesysorg',
      org({ pid: saved.body.data.id, orgName: 'Depot A', orgCode: 'DA' }),
      admin,
    );
    expect(child.status).toBe(200);
    const tree = (await t.call<OrgNode[]>('/sysorg/treesysorg', {}, admin)).body.data;
    const root = tree.find((n) => n.id === ROOT_ORG_ID)!;
    expect(root.userCount).toBe(2);
    const north = root.children.find((n) => n.orgName === 'North Depot')!;
    expect(north).toMatchObject({ orgCode: 'ND01', parentName: 'Meterdesk', extendInfo: { phoneUser: 'Ann' } });
    expect(north.children.map((n) => n.orgName)).toEqual(['Depot A']);

    const updated = await t.call(
      '/sysorg/updatesysorg',
      { id: saved.body.data.id, ...org({ remark: 'moved' }) },
      admin,
    );
    expect(updated.status).toBe(200);
    const detail = await t.call('/sysorg/getsysorgdetail', { id: saved.body.data.id }, admin);
    expect(detail.body.data).toMatchObject({ remark: 'moved' });
    const cycle = await t.call(
      '/sysorg/updatesysorg',
      { id: saved.body.data.id, ...org({ pid: child.body.data.id }) },
      admin,
    );
    expect(cycle.body).toMatchObject({ code: 400, data: { issues: [{ field: 'pid', key: 'orgParentCycle' }] } });
  });

  it('keeps names unique and validates the contact fields', async () => {
    const check = await t.call('/sysorg/checkorgname', { orgName: 'north depot' }, admin);
    expect(check.body.data).toEqual({ existed: true });
    const dup = await t.call('/sysorg/savesysorg', org({ orgCode: 'X1' }), admin);
    expect(dup.body).toMatchObject({ code: 409, msg: 'existed', data: { issues: [{ field: 'orgName' }] } });
    const bad = await t.call(
      '/sysorg/savesysorg',
      org({ orgName: 'B', orgCode: 'a-b', extendInfo: { phoneUser: '', email: 'nope', phone: 'abc', address: '' } }),
      admin,
    );
    const keys = (bad.body.data as { issues: { field: string; key: string }[] }).issues.map(
      (i) => `${i.field}:${i.key}`,
    );
    expect(keys).toEqual(
      expect.arrayContaining(['orgCode:codeFormat', 'extendInfo.email:emailFormat', 'extendInfo.phone:formalError']),
    );
  });

  it('refuses to delete an organisation that still has children or users, and deletes an empty one', async () => {
    const tree = (await t.call<OrgNode[]>('/sysorg/treesysorg', {}, admin)).body.data;
    const north = tree[0]!.children.find((n) => n.orgName === 'North Depot')!;
    expect((await t.call('/sysorg/deletesysorg', { id: north.id }, admin)).body).toMatchObject({
      code: 409,
      msg: 'orgHasChildren',
    });
    expect((await t.call('/sysorg/deletesysorg', { id: ROOT_ORG_ID }, admin)).body.msg).toMatch(/orgHas/);
    const leaf = north.children[0]!;
    expect((await t.call('/sysorg/deletesysorg', { id: leaf.id }, admin)).status).toBe(200);
    expect((await t.call('/sysorg/getsysorgdetail', { id: leaf.id }, admin)).status).toBe(404);
  });
});
