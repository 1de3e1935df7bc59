import {
  GRID_RES,
  MAX_OPTIONS,
  METER_RES,
  type Option,
  type OptionsAnswer,
  PLAN_RES,
  POC_RES,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { commModule, consumer, dcu, meter, meterType, poc, supplier } from '../../db/schema';
import { gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';

type Answer<O = Option> = OptionsAnswer<O & Option>;

/** Every picker of archive records searches through these calls (contracts ARCHIVE_PICKERS). */
describe('archive pickers (options calls)', () => {
  let t: TestApp;
  let admin: string;
  /** A node of the scoped user's group, a node below it and a node of another branch. */
  let gridA: string;
  let belowA: string;
  let gridB: string;
  /** Holds every page that picks archive records, scoped to gridA. */
  let scoped: string;

  const options = <O = Option>(entity: string, body: object, cookie = admin) =>
    t.call<Answer<O>>(`/${entity}/options`, body, cookie);
  const labels = async (entity: string, body: object, cookie = admin) => {
    const res = await options(entity, body, cookie);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.list.map((option) => option.label);
  };

  /** One record of each grid-scoped picked entity at `gridId`, its key starting with `key`. */
  const place: Record<string, (gridId: string, key: string) => Promise<string>> = {
    meter: async (gridId, key) => (await meterAt(t, gridId, key)).id,
    module: async (gridId, moduleNo) => {
      const id = newId();
      await t.db.insert(commModule).values({ id, moduleNo, deviceType: 2, workingMode: 'client', gridId });
      return id;
    },
    dcu: async (gridId, dcuNo) => {
      const id = newId();
      await t.db.insert(dcu).values({ id, dcuNo, gridId });
      return id;
    },
    consumer: async (gridId, consumerCode) => {
      const id = newId();
      await t.db.insert(consumer).values({
        id,
        consumerCode,
        consumerName: 'Picked',
        consumerType: 'residential',
        paymentMode: 'prepay',
        gridId,
      });
      return id;
    },
    poc: async (gridId, pocNo) => {
      const id = newId();
      await t.db.insert(poc).values({ id, pocNo, nature: 3, gridId });
      return id;
    },
  };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    gridA = await gridNode(t);
    belowA = await gridNode(t, gridA);
    gridB = await gridNode(t);
    scoped = await userOfGrid(t, gridA, [
      POC_RES.add,
      POC_RES.edit,
      POC_RES.replace,
      METER_RES.page,
      METER_RES.add,
      METER_RES.edit,
      GRID_RES.edit,
    ]);
  });
  afterAll(() => t.close());

  it.each(Object.keys(place))(
    '%s: offers records under the caller’s grid nodes and below, never one of another branch, even named by id',
    async (entity) => {
      const key = `SC${entity.slice(0, 3).toUpperCase()}`;
      const make = place[entity] as (gridId: string, key: string) => Promise<string>;
      await make(gridA, `${key}A1`);
      await make(belowA, `${key}A2`);
      const outside = await make(gridB, `${key}B1`);

      expect(await labels(entity, { keyword: key }, scoped)).toEqual(
        [`${key}A1`, `${key}A2`].map((label) => expect.stringContaining(label)),
      );
      const named = await options(entity, { keyword: key, ids: [outside] }, scoped);
      expect(named.body.data.list.map((option) => option.id)).not.toContain(outside);
      expect(await labels(entity, { keyword: key })).toHaveLength(3);
    },
  );

  it('narrows by the keyword, case-insensitively, in the key and the name', async () => {
    await t.db.insert(supplier).values([
      { id: newId(), supplierCode: 'KWS01', supplierName: 'Kestrel Metering' },
      { id: newId(), supplierCode: 'KWS02', supplierName: 'Falcon Instruments' },
    ]);
    expect(await labels('supplier', { keyword: 'kestrel' }, scoped)).toEqual(['Kestrel Metering (KWS01)']);
    expect(await labels('supplier', { keyword: 'kws0' }, scoped)).toEqual([
      'Falcon Instruments (KWS02)',
      'Kestrel Metering (KWS01)',
    ]);
    await place.consumer?.(gridA, 'KWC0001');
    expect(await labels('consumer', { keyword: 'picK' }, scoped)).toContain('KWC0001 Picked');
    // LIKE wildcards are what they are: text.
    expect(await labels('consumer', { keyword: 'KW_0001' }, scoped)).toEqual([]);
  });

  it(`answers at most ${MAX_OPTIONS} matches in key order and says more match; named records come first`, async () => {
    const ids: string[] = [];
    for (let n = 1; n <= MAX_OPTIONS + 5; n++)
      ids.push((await meterAt(t, gridA, `CAPM${String(n).padStart(3, '0')}`)).id);

    const first = await options('meter', { keyword: 'capm' }, scoped);
    expect(first.body.data.more).toBe(true);
    expect(first.body.data.list.map((o) => o.label)).toEqual(
      Array.from({ length: MAX_OPTIONS }, (_, i) => `CAPM${String(i + 1).padStart(3, '0')}`),
    );
    const narrowed = await options('meter', { keyword: 'capm02' }, scoped);
    expect(narrowed.body.data).toEqual({
      list: ['CAPM020', 'CAPM021', 'CAPM022', 'CAPM023', 'CAPM024', 'CAPM025'].map((label) =>
        expect.objectContaining({ label }),
      ),
      more: false,
    });
    // The edited record's meter lies past the first page: its label comes whatever the keyword.
    const last = ids.at(-1) as string;
    const edited = await options('meter', { keyword: 'capm', ids: [last] }, scoped);
    expect(edited.body.data.list[0]).toEqual({ id: last, label: 'CAPM025' });
    expect(edited.body.data.list).toHaveLength(MAX_OPTIONS + 1);
    const other = await options('meter', { keyword: 'nothing-like-it', ids: [last] }, scoped);
    expect(other.body.data).toEqual({ list: [{ id: last, label: 'CAPM025' }], more: false });
  });

  it('applies each picker’s own filters: free meters and modules, POCs of a nature at a node', async () => {
    const atPoc = await meterAt(t, gridA, 'FREEM1');
    await meterAt(t, gridA, 'FREEM2');
    await t.db.insert(poc).values({ id: newId(), pocNo: 'FREEP1', nature: 1, gridId: gridA, meterId: atPoc.id });
    expect(await labels('meter', { keyword: 'freem', free: true }, scoped)).toEqual(['FREEM2']);
    expect(await labels('meter', { keyword: 'freem' }, scoped)).toEqual(['FREEM1', 'FREEM2']);
    expect(await labels('meter', { keyword: 'freem', free: true, ids: [atPoc.id] }, scoped)).toEqual([
      'FREEM1',
      'FREEM2',
    ]);

    const used = await place.module?.(gridA, 'FREEMOD1');
    await place.module?.(gridA, 'FREEMOD2');
    await t.db.insert(meter).values({ id: newId(), devAddr: 'FREEMODM', gridId: gridA, moduleId: used });
    expect(await labels('module', { keyword: 'freemod', free: true }, scoped)).toEqual(['FREEMOD2']);

    await t.db.insert(poc).values([
      { id: newId(), pocNo: 'NATP1', nature: 3, gridId: belowA },
      { id: newId(), pocNo: 'NATP2', nature: 1, gridId: belowA },
      { id: newId(), pocNo: 'NATP3', nature: 3, gridId: gridA },
    ]);
    expect(await labels('poc', { keyword: 'natp', nature: 3, gridId: belowA }, scoped)).toEqual(['NATP1']);
    expect(await labels('poc', { keyword: 'natp', nature: 3 }, scoped)).toEqual(['NATP1', 'NATP3']);
    expect((await options('poc', { nature: 7 }, scoped)).status).toBe(400);
    expect((await options('meter', { kind: 'module' }, scoped)).status).toBe(400);
  });

  it('gives a meter type’s option its supplier, which the meter form follows', async () => {
    const supplierId = newId();
    await t.db.insert(supplier).values({ id: supplierId, supplierCode: 'MTS01', supplierName: 'Type Maker' });
    const typeId = newId();
    await t.db
      .insert(meterType)
      .values({ id: typeId, modelName: 'MT-PICK-1', supplierId, wiring: '1P2W', side: 'secondary' });
    const answer = await options<{ supplierId: string }>('metertype', { keyword: 'mt-pick' }, scoped);
    expect(answer.body.data.list).toEqual([{ id: typeId, label: 'MT-PICK-1 · Type Maker', supplierId }]);
  });

  it('gives a DCU its number, which DCU operating addresses it by, and lets the operation pages pick', async () => {
    const dcuId = await place.dcu?.(gridA, 'OPDCU01');
    await t.db
      .update(dcu)
      .set({ dcuName: 'North' })
      .where(eq(dcu.id, dcuId as string));
    const operating = await userOfGrid(t, gridA, [PLAN_RES.dcuOperating]);
    const answer = await options<{ dcuNo: string }>('dcu', { keyword: 'opdcu' }, operating);
    expect(answer.body.data.list).toEqual([{ id: dcuId, label: 'OPDCU01 North', dcuNo: 'OPDCU01' }]);

    // Batch operation filters the meter list by grid node, meter type and DCU.
    const behind = await meterAt(t, gridA, 'OPDCUM1');
    await meterAt(t, gridA, 'OPDCUM2');
    await t.db.update(meter).set({ dcuId }).where(eq(meter.id, behind.id));
    const batch = await userOfGrid(t, gridA, [PLAN_RES.batch]);
    expect((await options('dcu', {}, batch)).status).toBe(200);
    expect((await options('metertype', {}, batch)).status).toBe(200);
    expect((await t.call('/powergrid/tree', {}, batch)).status).toBe(200);
    const listed = await t.call<{ list: { devAddr: string }[] }>('/meter/list', { devAddr: 'OPDCUM', dcuId }, batch);
    expect(listed.body.data.list.map((m) => m.devAddr)).toEqual(['OPDCUM1']);
  });

  it('is open to the pages that pick, not to everyone', async () => {
    const meterPageOnly = await userOfGrid(t, gridA, [METER_RES.page, METER_RES.detail]);
    expect((await options('metertype', {}, meterPageOnly)).status).toBe(200);
    expect((await options('module', {}, meterPageOnly)).status).toBe(403);
    expect((await options('poc', {}, meterPageOnly)).status).toBe(403);
    // A meter's detail picks meters (a virtual meter's members), its list alone does not.
    expect((await options('meter', {}, meterPageOnly)).status).toBe(200);
    const meterListOnly = await userOfGrid(t, gridA, [METER_RES.page]);
    expect((await options('meter', {}, meterListOnly)).status).toBe(403);
  });
});
