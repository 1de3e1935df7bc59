import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { flattenResourceTree, RES } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/driver';
import { sysResource, sysRole, sysRoleResource, sysUser } from '../db/schema';
import { ADMIN_ROLE_ID, OPERATOR_ROLE_ID, resourceIdOf } from '../db/seeded-ids';
import { FRESH_START } from '../test/constants';
import { seed } from './seed';

describe('start-up on a data directory', FRESH_START, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'meterdesk-seed-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('migrates and seeds on the first start, keeps everything on the second', async () => {
    const first = await openDatabase({ dataDir, holder: 'server' });
    await first.migrate();
    const result = await seed(first.db, {});
    expect(result.generatedAdminPassword).toMatch(/^[A-Za-z0-9_-]{12}$/);

    const flat = flattenResourceTree();
    const rows = await first.db.select().from(sysResource);
    expect(rows).toHaveLength(flat.length);
    for (const { seed: node, parentUri } of flat) {
      const row = rows.find((r) => r.resourceUri === node.uri);
      expect(row, node.uri).toMatchObject({ resourceName: node.zh, resourceNameEn: node.en, resourceType: node.type });
      expect(row!.parentId).toBe(parentUri ? resourceIdOf(parentUri) : '0');
    }
    expect(new Set(rows.map((r) => r.resourceType))).toEqual(new Set([0, 1, 2, 3]));
    expect(rows.some((r) => r.resourceUri === RES.noticeSubscribe && r.resourceType === 3)).toBe(true);

    const adminGrants = await first.db.select().from(sysRoleResource).where(eq(sysRoleResource.roleId, ADMIN_ROLE_ID));
    expect(adminGrants).toHaveLength(flat.length);
    const operatorUris = await first.db
      .select({ uri: sysResource.resourceUri, type: sysResource.resourceType })
      .from(sysRoleResource)
      .innerJoin(sysResource, eq(sysResource.id, sysRoleResource.resourceId))
      .where(eq(sysRoleResource.roleId, OPERATOR_ROLE_ID));
    expect(operatorUris.length).toBeGreaterThan(20);
    expect(operatorUris.some((r) => r.uri.startsWith('/sysMGT'))).toBe(false);
    expect(operatorUris.some((r) => r.type === 3 || r.uri.endsWith('/add') || r.uri.endsWith('/edit'))).toBe(false);
    expect(operatorUris.map((r) => r.uri)).toContain('/archiveSetting/meter/detail');

    await first.db.update(sysUser).set({ fullName: 'Renamed admin' }).where(eq(sysUser.username, 'admin'));
    await first.db
      .update(sysResource)
      .set({ resourceNameEn: 'Home' })
      .where(eq(sysResource.resourceUri, RES.dashboard));
    await first.close();

    const second = await openDatabase({ dataDir, holder: 'server' });
    await second.migrate();
    expect(await seed(second.db, { adminPassword: 'Other@123' })).toEqual({});
    const [admin] = await second.db.select().from(sysUser).where(eq(sysUser.username, 'admin'));
    expect(admin!.fullName).toBe('Renamed admin');
    const [dashboard] = await second.db.select().from(sysResource).where(eq(sysResource.resourceUri, RES.dashboard));
    expect(dashboard!.resourceNameEn).toBe('Home');
    expect(await second.db.select().from(sysRole)).toHaveLength(2);
    expect(await second.db.select().from(sysResource)).toHaveLength(flat.length);
    await second.close();
  });
});
