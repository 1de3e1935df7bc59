import { GIS_RES, type GisFound, type GisLocated, type GisSearchAnswer, type Page } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { commModule, consumer, dcu, meter, poc } from '../../db/schema';
import { addGridNode, loginGridUser } from '../../test/grid';
import { createTestApp, type TestApp } from '../../test/harness';

/*
 * Finding records on the map: the search box, "show on map" from a detail page, and the meters the
 * map cannot place by their own coordinates. Two grids: a user of one never finds the other's.
 */
describe('GIS: finding records', () => {
  let t: TestApp;
  let admin: string;
  let eastUser: string;
  const tag = newId().slice(0, 6).toUpperCase();
  const grid = { east: '', west: '' };
  const ids = {
    placed: newId(),
    atConsumer: newId(),
    atDcu: newId(),
    nowhere: newId(),
    west: newId(),
    consumer: newId(),
    dcu: newId(),
    poc: newId(),
    module: newId(),
    lonePoc: newId(),
  };
  const serial = (name: string) => `${tag}${name}`;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    grid.east = await addGridNode(t, `E${tag}`);
    grid.west = await addGridNode(t, `W${tag}`);
    eastUser = await loginGridUser(t, `gis-east-${tag.toLowerCase()}`, [grid.east], [GIS_RES]);
    await t.db.insert(dcu).values({
      id: ids.dcu,
      dcuNo: serial('DCU1'),
      dcuName: 'Olaya kiosk',
      latitude: 24.7,
      longitude: 46.7,
      gridId: grid.east,
    });
    await t.db.insert(consumer).values({
      id: ids.consumer,
      consumerCode: serial('C1'),
      consumerName: 'Nora Bakery',
      consumerType: 'commercial',
      paymentMode: 'prepay',
      latitude: 24.71,
      longitude: 46.71,
      gridId: grid.east,
    });
    await t.db.insert(commModule).values({
      id: ids.module,
      moduleNo: serial('MOD1'),
      deviceType: 2,
      workingMode: 'server',
      gridId: grid.east,
    });
    await t.db.insert(meter).values([
      { id: ids.placed, devAddr: serial('100'), latitude: 24.72, longitude: 46.72, gridId: grid.east, status: 2 },
      { id: ids.atConsumer, devAddr: serial('1001'), gridId: grid.east, status: 2, moduleId: ids.module },
      // Half a position is no position.
      { id: ids.atDcu, devAddr: serial('1002'), latitude: 24.7, gridId: grid.east, dcuId: ids.dcu, status: 1 },
      { id: ids.nowhere, devAddr: serial('1003'), gridId: grid.east, status: 3 },
      { id: ids.west, devAddr: serial('1004'), latitude: 21.5, longitude: 39.2, gridId: grid.west, status: 2 },
    ]);
    await t.db.insert(poc).values([
      {
        id: ids.poc,
        pocNo: serial('P1'),
        nature: 1,
        consumerId: ids.consumer,
        meterId: ids.atConsumer,
        gridId: grid.east,
      },
      { id: ids.lonePoc, pocNo: serial('P2'), nature: 1, consumerId: ids.consumer, gridId: grid.east },
    ]);
  });
  afterAll(() => t.close());

  const search = (keyword: string, cookie = admin, more: object = {}) =>
    t.call<GisSearchAnswer>('/gis/search', { keyword, ...more }, cookie);
  const locate = (kind: string, id: string, cookie = admin) => t.call<GisLocated>('/gis/locate', { kind, id }, cookie);

  it('finds a meter by its full number first, then those holding the keyword, each with where it lies', async () => {
    const res = await search(serial('100').toLowerCase(), admin, { kinds: ['meter'] });
    expect(res.status).toBe(200);
    expect(res.body.data.list.map((f) => [f.label, f.placement])).toEqual([
      [serial('100'), 'own'],
      [serial('1001'), 'consumer'],
      [serial('1002'), 'dcu'],
      [serial('1003'), null],
      [serial('1004'), 'own'],
    ]);
    expect(res.body.data.list[1]).toMatchObject({ lat: 24.71, lng: 46.71 });
    expect(res.body.data.more).toBe(false);
  });

  it('finds consumers and DCUs by name too, and never a record of another grid', async () => {
    const byName = await search('bakery', eastUser);
    expect(byName.body.data.list).toMatchObject([{ kind: 'consumer', label: serial('C1'), name: 'Nora Bakery' }]);
    expect((await search('olaya', eastUser)).body.data.list).toMatchObject([{ kind: 'dcu', placement: 'own' }]);
    const mine = await search(tag, eastUser);
    const labels = mine.body.data.list.map((f: GisFound) => f.label);
    expect(labels).toContain(serial('1003'));
    expect(labels).not.toContain(serial('1004'));
    expect((await search(serial('1004'), eastUser)).body.data.list).toEqual([]);
  });

  it('refuses an empty or too long keyword naming it, and a user without the map', async () => {
    for (const keyword of ['  ', 'x'.repeat(51)]) {
      const res = await search(keyword);
      expect(res.status).toBe(400);
      expect(res.body.data).toMatchObject({ issues: [{ field: 'keyword' }] });
    }
    const other = await loginGridUser(t, `gis-none-${tag.toLowerCase()}`, [grid.east], ['/archiveSetting/meter']);
    expect((await search('x', other)).status).toBe(403);
  });

  it('locates a record from its detail page: itself, a POC’s or module’s meter, a POC without one at its consumer', async () => {
    expect((await locate('meter', ids.atDcu, eastUser)).body.data).toMatchObject({
      label: serial('1002'),
      target: { kind: 'meter', placement: 'dcu', lat: 24.7, lng: 46.7 },
    });
    expect((await locate('poc', ids.poc, eastUser)).body.data.target).toMatchObject({
      id: ids.atConsumer,
      placement: 'consumer',
    });
    expect((await locate('poc', ids.lonePoc, eastUser)).body.data.target).toMatchObject({
      kind: 'consumer',
      id: ids.consumer,
    });
    expect((await locate('module', ids.module, eastUser)).body.data.target).toMatchObject({ id: ids.atConsumer });
    expect((await locate('meter', ids.nowhere, eastUser)).body.data).toMatchObject({ target: { placement: null } });
    expect((await locate('dcu', ids.dcu, eastUser)).body.data.target).toMatchObject({ placement: 'own' });
    // Another grid's meter does not exist for this user.
    expect((await locate('meter', ids.west, eastUser)).status).toBe(404);
    expect((await locate('meter', ids.west)).status).toBe(200);
    expect((await locate('grid', ids.west)).body.data).toMatchObject({ issues: [{ field: 'kind' }] });
  });

  it('lists the meters without coordinates of their own, with their approximate place, under the map’s filters', async () => {
    const unplaced = async (body: object, cookie = eastUser) =>
      (await t.call<Page<GisFound>>('/gis/unplaced', { pageSize: 10, ...body }, cookie)).body.data;
    expect(await unplaced({})).toMatchObject({
      total: 3,
      list: [
        { label: serial('1001'), placement: 'consumer' },
        { label: serial('1002'), placement: 'dcu' },
        { label: serial('1003'), placement: null },
      ],
    });
    expect((await unplaced({ meterStatus: [3] })).list.map((f) => f.label)).toEqual([serial('1003')]);
    expect(await unplaced({ gridId: grid.west }, admin)).toMatchObject({ total: 0, list: [] });
    // Given its coordinates, the meter leaves the list.
    await t.db.update(meter).set({ latitude: 24.7, longitude: 46.7 }).where(eq(meter.id, ids.nowhere));
    expect((await unplaced({})).total).toBe(2);
  });
});
