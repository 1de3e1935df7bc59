import { type BatchDeleteResult, OBIS, type Page, type ParamTemplate } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { meterType, paramTemplate, supplier } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/harness';
import { uniqueName } from '../../test/unique';

type Refusal = { msg: string; data: { issues: { field: string; key: string }[] } };

describe('parameter templates', () => {
  let t: TestApp;
  let admin: string;
  let typeId: string;
  const template = (over: object = {}) => ({
    templateName: uniqueName('Household'),
    meterTypeId: typeId,
    items: [
      { obis: OBIS.demandPeriod, value: 900 },
      { obis: OBIS.voltageSwellThreshold, value: 2530 },
      { obis: OBIS.displayList, value: [OBIS.activeImport, OBIS.voltageL1] },
      { obis: OBIS.pushSetup, value: '00:15' },
    ],
    remark: '',
    ...over,
  });
  const refused = async (body: object) => {
    const res = await t.call<Refusal['data']>('/paramtemplate/save', body, admin);
    expect(res.status).toBe(400);
    return (res.body as unknown as Refusal).data.issues.map((i) => [i.field, i.key]);
  };
  const count = async () => (await t.db.select().from(paramTemplate)).length;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    const supplierId = newId();
    typeId = newId();
    await t.db.insert(supplier).values({ id: supplierId, supplierName: uniqueName('Supplier'), supplierCode: 'S1' });
    await t.db.insert(meterType).values({
      id: typeId,
      modelName: uniqueName('Type'),
      supplierId,
      wiring: '1P2W',
      side: 'secondary',
    });
  });
  afterAll(() => t.close());

  it('saves a template, lists it and shows each item with the catalogue’s unit and scaler, the value scaled', async () => {
    const body = template();
    const saved = await t.call<{ id: string }>('/paramtemplate/save', body, admin);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const id = saved.body.data.id;
    const list = await t.call<Page<ParamTemplate>>(
      '/paramtemplate/list',
      { curPage: 1, pageSize: 10, templateName: body.templateName },
      admin,
    );
    expect(list.body.data.list).toMatchObject([{ id, itemCount: 4, createdBy: 'admin' }]);
    const detail = await t.call<ParamTemplate>('/paramtemplate/detail', { id }, admin);
    expect(detail.body.data.items).toEqual([
      {
        obis: OBIS.demandPeriod,
        value: 900,
        description: 'Demand integration period',
        scaler: 0,
        unit: 's',
        shown: '900 s',
      },
      {
        obis: OBIS.voltageSwellThreshold,
        value: 2530,
        description: 'Threshold for voltage swell',
        scaler: -1,
        unit: 'V',
        shown: '253 V',
      },
      expect.objectContaining({
        value: [OBIS.activeImport, OBIS.voltageL1],
        shown: `${OBIS.activeImport}, ${OBIS.voltageL1}`,
      }),
      expect.objectContaining({ value: '00:15', unit: '', shown: '00:15' }),
    ]);

    // The name is the template's business key, in any case.
    const again = await t.call(
      '/paramtemplate/save',
      template({ templateName: body.templateName.toUpperCase() }),
      admin,
    );
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ msg: 'existed', data: { issues: [{ field: 'templateName', key: 'existed' }] } });
    const check = await t.call<{ existed: boolean }>(
      '/paramtemplate/check',
      { field: 'templateName', value: body.templateName },
      admin,
    );
    expect(check.body.data.existed).toBe(true);

    // An edit keeps who made it; the meter type it is for cannot go while it stands.
    const edited = await t.call('/paramtemplate/update', { ...body, id, items: body.items.slice(0, 1) }, admin);
    expect(edited.status).toBe(200);
    expect((await t.call<ParamTemplate>('/paramtemplate/detail', { id }, admin)).body.data).toMatchObject({
      itemCount: 1,
      createdBy: 'admin',
    });
    const typeGone = await t.call<BatchDeleteResult>('/metertype/delete', { ids: [typeId] }, admin);
    expect(typeGone.body.data.failures).toMatchObject([{ id: typeId, key: 'meterTypeInTemplate' }]);
    const gone = await t.call<BatchDeleteResult>('/paramtemplate/delete', { ids: [id] }, admin);
    expect(gone.body.data.deleted).toBe(1);
  });

  it('refuses an item a template cannot set or a value that does not fit it, naming the field, and writes nothing', async () => {
    const before = await count();
    const withItem = (item: object, at = 1) => {
      const items: object[] = template().items.slice(0, 2);
      items[at] = item;
      return template({ items });
    };
    // Read only (not flagged setting channel); the clock has an operation of its own; no such item.
    expect(await refused(withItem({ obis: OBIS.activeImport, value: 1 }))).toEqual([
      ['items.1.obis', 'obisNotSettable'],
    ]);
    expect(await refused(withItem({ obis: OBIS.clock, value: '2026-01-01T00:00:00Z' }))).toEqual([
      ['items.1.obis', 'obisNotSettable'],
    ]);
    expect(await refused(withItem({ obis: '1-0:99.99.9.255', value: 1 }))).toEqual([['items.1.obis', 'obisNotFound']]);
    // A threshold is a whole number, a transfer time HH:mm, a display list OBIS codes.
    expect(await refused(withItem({ obis: OBIS.voltageSwellThreshold, value: 253.5 }))).toEqual([
      ['items.1.value', 'wholeNumber'],
    ]);
    expect(await refused(withItem({ obis: OBIS.pushSetup, value: '25:00' }))).toEqual([
      ['items.1.value', 'timeFormat'],
    ]);
    expect(await refused(withItem({ obis: OBIS.displayList, value: ['energy'] }))).toEqual([
      ['items.1.value', 'obisFormat'],
    ]);
    // The schema's own checks: an item twice, an object for a value, no items, an unknown meter type.
    expect(await refused(withItem({ obis: OBIS.demandPeriod, value: 60 }))).toEqual([
      ['items', 'paramTemplateDuplicateItem'],
    ]);
    expect(await refused(withItem({ obis: OBIS.demandPeriod, value: { seconds: 60 } }))).toEqual([
      ['items.1.value', 'invalidValue'],
    ]);
    expect(await refused(template({ items: [] }))).toEqual([['items', 'mandatory']]);
    expect(await refused(template({ meterTypeId: newId() }))).toEqual([['meterTypeId', 'meterTypeNotFound']]);
    expect(await count()).toBe(before);
  });
});
