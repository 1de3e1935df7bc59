import type { GisAnswer } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { consumer, dcu, meter, powerGrid, sysGroup, sysUserGroup } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/harness';

const view = { west: 46.4, south: 24.4, east: 46.8, north: 24.8 };

describe('GIS viewport query', () => {
  let t: TestApp;
  let admin: string;
  const north = newId();
  const south = newId();

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    await t.db.insert(powerGrid).values([
      { id: north, gridCode: 'GISN', gridName: 'GIS north', parentId: '0' },
      { id: south, gridCode: 'GISS', gridName: 'GIS south', parentId: '0' },
    ]);
    // 50 meters packed near one spot in the north, 3 far apart in the south.
    await t.db.insert(meter).values([
      ...Array.from({ length: 50 }, (_, i) => ({
        id: newId(),
        devAddr: `GISN${String(i).padStart(4, '0')}`,
        status: i < 5 ? 3 : 2,
        latitude: 24.7 + i * 0.00001,
        longitude: 46.6 + i * 0.00001,
        gridId: north,
      })),
      ...[46.45, 46.6, 46.75].map((longitude, i) => ({
        id: newId(),
        devAddr: `GISS${i}000`,
        status: 1,
        latitude: 24.45,
        longitude,
        gridId: south,
      })),
      { id: newId(), devAddr: 'GISFAR000', status: 1, latitude: 30, longitude: 50, gridId: south },
    ]);
    await t.db.insert(consumer).values({
      id: newId(),
      consumerCode: 'GISC1',
      consumerName: 'Clinic',
      consumerType: 'commercial',
      paymentMode: 'postpay',
      protected: true,
      latitude: 24.5,
      longitude: 46.5,
      gridId: south,
    });
    await t.db.insert(dcu).values({ id: newId(), dcuNo: 'GISD1', latitude: 24.71, longitude: 46.61, gridId: north });
  });
  afterAll(() => t.close());

  const points = async (body: Record<string, unknown>, cookie = admin) =>
    (await t.call<GisAnswer>('/gis/points', { ...view, ...body }, cookie)).body.data;

  it('clusters what is close at a low zoom and shows single records as points, only inside the view', async () => {
    const far = await points({ zoom: 8, kinds: ['meter'] });
    expect(far.total).toBe(53);
    expect(far.points).toEqual([]);
    expect(far.clusters.map((c) => c.count).reduce((a, b) => a + b, 0)).toBe(53);

    const near = await points({ zoom: 13, kinds: ['meter'] });
    expect(near.total).toBe(53);
    expect(near.clusters).toEqual([expect.objectContaining({ kind: 'meter', count: 50 })]);
    expect(near.points.map((p) => p.label).sort()).toEqual(['GISS0000', 'GISS1000', 'GISS2000']);
    expect(near.points[0]).toMatchObject({ kind: 'meter', status: 1, lat: 24.45 });
  });

  it('filters by kind, grid subtree and meter status; a consumer point says it is protected', async () => {
    const all = await points({ zoom: 13 });
    expect(all.points.find((p) => p.kind === 'consumer')).toMatchObject({ label: 'GISC1', status: 1 });
    expect(all.points.find((p) => p.kind === 'dcu')).toMatchObject({ label: 'GISD1' });
    expect((await points({ zoom: 13, kinds: ['meter'], gridId: south })).total).toBe(3);
    expect((await points({ zoom: 13, kinds: ['meter'], meterStatus: [3] })).total).toBe(5);
  });

  it("answers only the caller's grid scope", async () => {
    const role = await t.createRole('gis-viewer', ['/archiveSetting', '/archiveSetting/gis']);
    const userId = await t.createUser({ username: 'gis.viewer', password: 'Viewer1', roleIds: [role] });
    const group = newId();
    await t.db.insert(sysGroup).values({ id: group, groupName: 'South crew', groupCode: 'SOUTH', gridId: south });
    await t.db.insert(sysUserGroup).values({ userId, groupId: group });
    const viewer = await t.login('gis.viewer', 'Viewer1');
    const seen = await points({ zoom: 13, kinds: ['meter', 'dcu'] }, viewer);
    expect(seen.total).toBe(3);
    expect(seen.points.every((p) => p.label.startsWith('GISS'))).toBe(true);

    const role2 = await t.createRole('gis-nobody', ['/archiveSetting', '/archiveSetting/gis']);
    await t.createUser({ username: 'gis.nobody', password: 'Nobody1', roleIds: [role2] });
    expect((await points({ zoom: 13 }, await t.login('gis.nobody', 'Nobody1'))).total).toBe(0);
  });

  it('refuses a broken viewport with the field named', async () => {
    const bad = await t.call('/gis/points', { ...view, north: 95, zoom: 30 }, admin);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('"field":"north"');
    expect(JSON.stringify(bad.body)).toContain('"field":"zoom"');
    const config = await t.call<{ center: { lat: number; lng: number } }>('/gis/config', {}, admin);
    expect(config.body.data.center).toEqual({ lat: 24.6, lng: 46.6 });
  });
});
