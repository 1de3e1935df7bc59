import { type TaskDevs, TaskDevsSchema } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { commModule, consumer, dcu, meter, meterType, poc, supplier } from '../../db/schema';
import type { ApiError } from '../../errors/api-error';
import type { Scope } from '../../rbac/scope';
import { consumerAt, gridNode, meterAt, tariffOf } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { checkTaskDevs, countTaskMeters, taskMeters } from './device-set';

let t: TestApp;
/** The caller's grid node, a node below it, and a node elsewhere. */
let region: string;
let district: string;
let elsewhere: string;
let scope: Scope;
const tag = newId().slice(0, 6).toUpperCase();
const serial = (name: string) => `${tag}${name}`;

let dcuIn: string;
let dcuOut: string;
let supplierId: string;
let tariffId: string;
let typeId: string;

beforeAll(async () => {
  t = await createTestApp();
  region = await gridNode(t);
  district = await gridNode(t, region);
  elsewhere = await gridNode(t);
  scope = { all: false, orgId: null, gridIds: [region] };

  supplierId = newId();
  await t.db.insert(supplier).values({ id: supplierId, supplierCode: `S${tag}`, supplierName: `Maker ${tag}` });
  typeId = newId();
  await t.db
    .insert(meterType)
    .values({ id: typeId, modelName: `Model ${tag}`, supplierId, wiring: '1P2W', side: 'primary' });
  dcuIn = newId();
  dcuOut = newId();
  await t.db.insert(dcu).values([
    { id: dcuIn, dcuNo: serial('DCU1'), gridId: district },
    { id: dcuOut, dcuNo: serial('DCU2'), gridId: elsewhere },
  ]);
  const plc = newId();
  await t.db
    .insert(commModule)
    .values({ id: plc, moduleNo: serial('MOD1'), deviceType: 2, workingMode: 'client', gridId: region });

  // A: in the region, under dcuIn, made by the supplier, of the type, on a PLC module, tariff T1.
  const a = await meterAt(t, district, serial('A'));
  tariffId = (await tariffOf(t, `T1 ${tag}`)).id;
  await t.db
    .update(meter)
    .set({ dcuId: dcuIn, supplierId, meterTypeId: typeId, moduleId: plc, tariffId })
    .where(eq(meter.id, a.id));
  // B: in the region, under dcuIn, measuring a POC of task group 3 for a special consumer.
  const b = await meterAt(t, region, serial('B'));
  await t.db.update(meter).set({ dcuId: dcuIn }).where(eq(meter.id, b.id));
  const c = await consumerAt(t, region);
  await t.db.update(consumer).set({ special: true }).where(eq(consumer.id, c.id));
  await t.db.insert(poc).values({
    id: newId(),
    pocNo: serial('P1'),
    nature: 1,
    taskGroupId: 3,
    consumerId: c.id,
    meterId: b.id,
    gridId: region,
  });
  // C: in the region, no DCU.
  await meterAt(t, region, serial('C'));
  // X: outside the caller's grid, though under dcuIn (a DCU serving meters across grid nodes).
  const x = await meterAt(t, elsewhere, serial('X'));
  await t.db.update(meter).set({ dcuId: dcuIn, supplierId }).where(eq(meter.id, x.id));
  // Y: outside, under dcuOut.
  const y = await meterAt(t, elsewhere, serial('Y'));
  await t.db.update(meter).set({ dcuId: dcuOut }).where(eq(meter.id, y.id));
});
afterAll(() => t?.close());

const devs = (input: object): TaskDevs => TaskDevsSchema.parse(input);
/** Serials of the set, without the test's tag, within this test's meters. */
async function serials(input: object, as: Scope = scope): Promise<string[]> {
  const rows = await taskMeters(t.db, devs(input), as);
  return rows
    .map((r) => r.serial)
    .filter((s) => s.startsWith(tag))
    .map((s) => s.slice(tag.length))
    .sort();
}
const own = (filters: object) => ({ itemType: 0, devParams: { grid_ids: [region, elsewhere], ...filters } });

describe('a task device set', () => {
  it('names meters by serial, case-insensitively, only within the caller grid scope', async () => {
    expect(await serials({ itemType: 0, devList: [serial('a').toLowerCase(), serial('C'), serial('X')] })).toEqual([
      'A',
      'C',
    ]);
  });

  it('takes every meter of the DCUs named, in scope', async () => {
    expect(await serials({ itemType: 1, devList: [serial('DCU1')] })).toEqual(['A', 'B']);
    expect(await serials({ itemType: 1, devList: [serial('DCU1')] }, { all: true, orgId: null, gridIds: [] })).toEqual([
      'A',
      'B',
      'X',
    ]);
    expect(await serials({ itemType: 1, devList: [serial('DCU2')] })).toEqual([]);
  });

  it('filters by each devParams field onto its archive column', async () => {
    expect(await serials(own({ manufacturer: `s${tag}` }))).toEqual(['A']);
    expect(await serials(own({ manufacturer: supplierId }))).toEqual(['A']);
    expect(await serials(own({ models: [`model ${tag}`] }))).toEqual(['A']);
    expect(await serials(own({ models: [typeId] }))).toEqual(['A']);
    expect(await serials(own({ devTypeCode: '2' }))).toEqual(['A']);
    expect(await serials(own({ devTypeCode: '0' }))).toEqual(['B', 'C']);
    expect(await serials(own({ group3: '3' }))).toEqual(['B']);
    expect(await serials(own({ is_major_consumer: true }))).toEqual(['B']);
    expect(await serials(own({ is_major_consumer: false }))).toEqual(['A', 'B', 'C']);
    expect(await serials(own({ tariff_item_id: tariffId }))).toEqual(['A']);
    // A task saved when tariffs were texts names it by name.
    expect(await serials(own({ tariff_item_id: `t1 ${tag}` }))).toEqual(['A']);
    expect(await serials({ itemType: 0, devParams: { grid_ids: [district] } })).toEqual(['A']);
    expect(await serials({ itemType: 0, devParams: { grid_ids: [elsewhere] } })).toEqual([]);
  });

  it('combines a list with filters, and pages as a query', async () => {
    expect(await serials({ itemType: 1, devList: [serial('DCU1')], devParams: { group3: '3' } })).toEqual(['B']);
    const set = devs({ itemType: 0, devParams: { grid_ids: [region] } });
    expect(await countTaskMeters(t.db, set, scope)).toBe(3);
    const page = await taskMeters(t.db, set, scope).orderBy(meter.devAddr).limit(2);
    expect(page.map((r) => r.serial)).toEqual([serial('A'), serial('B')]);
    const [a] = await taskMeters(t.db, devs({ itemType: 0, devList: [serial('A')] }), scope);
    expect(a).toMatchObject({ dcuId: dcuIn, dcuNo: serial('DCU1'), gridId: district });
  });

  it('refuses a device named outside the scope as not found, naming it, and a set that matches nothing', async () => {
    const refusal = (input: object) =>
      checkTaskDevs(t.db, devs(input), scope).then(
        () => null,
        (e: ApiError) => ({ code: e.code, key: e.key, data: e.data }),
      );
    expect(await refusal({ itemType: 0, devList: [serial('A'), serial('X')] })).toMatchObject({
      code: 404,
      key: 'deviceNotFound',
      data: { devices: [serial('X')] },
    });
    expect(await refusal({ itemType: 1, devList: [serial('DCU2')] })).toMatchObject({ code: 404 });
    expect(await refusal(own({ tariff_item_id: 'nothing' }))).toMatchObject({ code: 400, key: 'taskDevicesNone' });
    expect(await refusal({ itemType: 0 })).toMatchObject({ code: 400, key: 'mandatory' });
    expect(await refusal(own({ group3: 'three' }))).toMatchObject({ code: 400, key: 'invalidValue' });
    expect(await checkTaskDevs(t.db, devs({ itemType: 1, devList: [serial('DCU1')] }), scope)).toBe(2);
  });
});
