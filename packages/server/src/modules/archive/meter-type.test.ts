import {
  type BatchDeleteResult,
  type MeterType,
  type OptionsAnswer,
  type Page,
  ROOT_PARENT_ID,
  type Supplier,
} from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { meter, powerGrid } from '../../db/schema';
import { ADMIN_ROLE_ID } from '../../db/seeded-ids';
import { exportedRows } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';

type Issues = { data: { issues: { field: string; key: string; message: string }[] } };

/** Meter types: a shared parameter (no grid scope) that points at a supplier and that meters point at. */
describe('meter type', () => {
  let t: TestApp;
  let admin: string;
  let hexing: string;
  const meterType = (over: Record<string, unknown> = {}) => ({
    modelName: 'DDS666',
    supplierId: hexing,
    wiring: '1P2W',
    side: 'secondary',
    ratedVoltage: 220,
    ratedCurrent: 5,
    maxCurrent: 60,
    accuracyClass: '1.0',
    commTypes: ['PLC', 'RF'],
    remark: '',
    ...over,
  });

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    const saved = await t.call<{ id: string }>(
      '/supplier/save',
      { supplierCode: 'HX', supplierName: 'Hexing' } satisfies Partial<Supplier>,
      admin,
    );
    hexing = saved.body.data.id;
  });
  afterAll(() => t.close());

  it('adds, lists, details and edits, and refuses a taken model name in any case', async () => {
    const saved = await t.call<{ id: string }>('/metertype/save', meterType(), admin);
    expect(saved.status).toBe(200);
    const id = saved.body.data.id;

    const again = await t.call('/metertype/save', meterType({ modelName: 'dds666' }), admin);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      msg: 'existed',
      data: { issues: [{ field: 'modelName', key: 'existed', message: 'Model name existed' }] },
    });
    expect((await t.call('/metertype/check', { field: 'modelName', value: 'Dds666' }, admin)).body.data).toEqual({
      existed: true,
    });
    expect((await t.call('/metertype/check', { field: 'modelName', value: 'DDS666', id }, admin)).body.data).toEqual({
      existed: false,
    });

    const edited = await t.call(
      '/metertype/update',
      { ...meterType({ wiring: '3P4W', commTypes: ['4G'] }), id },
      admin,
    );
    expect(edited.status).toBe(200);
    const detail = await t.call<MeterType>('/metertype/detail', { id }, admin);
    expect(detail.body.data).toMatchObject({
      modelName: 'DDS666',
      supplierId: hexing,
      supplierName: 'Hexing',
      wiring: '3P4W',
      side: 'secondary',
      ratedVoltage: 220,
      maxCurrent: 60,
      commTypes: ['4G'],
    });

    await t.call('/metertype/save', meterType({ modelName: 'DTS27', wiring: '3P4W', ratedVoltage: null }), admin);
    const list = await t.call<Page<MeterType>>('/metertype/list', { wiring: '3P4W', sortField: 'modelName' }, admin);
    expect(list.body.data.list.map((m) => [m.modelName, m.ratedVoltage])).toEqual([
      ['DDS666', 220],
      ['DTS27', null],
    ]);
    const byName = await t.call<Page<MeterType>>('/metertype/list', { modelName: 'ts2' }, admin);
    expect(byName.body.data.list.map((m) => m.modelName)).toEqual(['DTS27']);
    const bySupplier = await t.call<Page<MeterType>>('/metertype/list', { supplierId: newId() }, admin);
    expect(bySupplier.body.data.total).toBe(0);
    expect((await t.call('/metertype/detail', { id: newId() }, admin)).status).toBe(404);
  });

  it('refuses bad input with the field named, never a 5xx', async () => {
    const bad = await t.call(
      '/metertype/save',
      meterType({
        modelName: ' ',
        wiring: '2P3W',
        side: 'tertiary',
        ratedVoltage: 'high',
      }),
      admin,
    );
    expect(bad.status).toBe(400);
    const issues = (bad.body as unknown as Issues).data.issues.map((i) => [i.field, i.key]);
    expect(issues).toEqual([
      ['modelName', 'mandatory'],
      ['wiring', 'invalidValue'],
      ['side', 'invalidValue'],
      ['ratedVoltage', 'numberFormat'],
    ]);
    const more = await t.call('/metertype/save', meterType({ ratedCurrent: -1, commTypes: ['pigeon'] }), admin);
    expect((more.body as unknown as Issues).data.issues.map((i) => [i.field, i.key])).toEqual([
      ['ratedCurrent', 'outOfRange'],
      ['commTypes.0', 'invalidValue'],
    ]);
    const unknown = await t.call('/metertype/save', meterType({ modelName: 'X1', colour: 'red' }), admin);
    expect(unknown.body).toMatchObject({ data: { issues: [{ field: 'colour', key: 'unknownField' }] } });

    const missing = await t.call('/metertype/save', meterType({ modelName: 'X1', supplierId: undefined }), admin);
    expect(missing.body).toMatchObject({
      data: { issues: [{ field: 'supplierId', key: 'mandatory', message: 'This part is mandatory' }] },
    });
    const ghost = await t.call('/metertype/save', meterType({ modelName: 'X1', supplierId: newId() }), admin);
    expect(ghost.status).toBe(400);
    expect(ghost.body).toMatchObject({
      msg: 'supplierNotFound',
      data: { issues: [{ field: 'supplierId', key: 'supplierNotFound' }] },
    });
    expect((await t.call('/metertype/list', { sortField: 'remark' }, admin)).status).toBe(400);
  });

  it('deletes a batch, keeping a meter type meters still use and saying why', async () => {
    const used = (await t.call<{ id: string }>('/metertype/save', meterType({ modelName: 'USED1' }), admin)).body.data
      .id;
    const free = (await t.call<{ id: string }>('/metertype/save', meterType({ modelName: 'FREE1' }), admin)).body.data
      .id;
    const gridId = newId();
    await t.db.insert(powerGrid).values({ id: gridId, gridCode: 'MTG', gridName: 'MT grid', parentId: ROOT_PARENT_ID });
    await t.db.insert(meter).values({ id: newId(), devAddr: '10000001', meterTypeId: used, gridId });
    const res = await t.call<BatchDeleteResult>('/metertype/delete', { ids: [used, free] }, admin);
    expect(res.body.data).toEqual({ deleted: 1, failures: [{ id: used, name: 'USED1', key: 'meterTypeInUse' }] });
    expect((await t.call('/metertype/detail', { id: free }, admin)).status).toBe(404);
    expect((await t.call('/metertype/detail', { id: used }, admin)).status).toBe(200);
  });

  it("exports the chosen columns as the screen shows them, in the caller's language", async () => {
    await t.call(
      '/metertype/save',
      meterType({ modelName: 'EXP1', wiring: '3P3W', commTypes: ['GPRS', 'Ethernet'] }),
      admin,
    );
    const exported = (cookie: string) =>
      exportedRows(t, 'metertype', cookie, {
        modelName: 'EXP1',
        columns: ['modelName', 'supplierName', 'wiring', 'side', 'commTypes'],
      });
    expect(await exported(admin)).toEqual([
      ['Model name', 'Supplier', 'Wiring', 'Metering side', 'Communication types'],
      ['EXP1', 'Hexing', '3P3W', 'Secondary side', 'GPRS, Ethernet'],
    ]);

    await t.createUser({ username: 'zh-admin', password: 'zh-admin-1', roleIds: [ADMIN_ROLE_ID] });
    const zh = await t.login('zh-admin', 'zh-admin-1');
    await t.call('/sysuser/changelanguage', { type: 2 }, zh);
    expect(await exported(await t.login('zh-admin', 'zh-admin-1'))).toEqual([
      ['型号名称', '供应商', '接线方式', '计量侧', '通信方式'],
      ['EXP1', 'Hexing', '三相三线 (3P3W)', '二次侧', 'GPRS, 以太网'],
    ]);
  });

  it('lets the meter page pick meter types and its forms pick suppliers, and nothing more', async () => {
    const role = await t.createRole('meter clerk', ['/archiveSetting/meter', '/archiveSetting/meter/add']);
    await t.createUser({ username: 'clerk', password: 'clerk-pass-1', roleIds: [role] });
    const clerk = await t.login('clerk', 'clerk-pass-1');
    const types = await t.call<OptionsAnswer>('/metertype/options', {}, clerk);
    expect(types.status).toBe(200);
    expect(types.body.data.list.length).toBeGreaterThan(0);
    expect((await t.call('/supplier/options', {}, clerk)).status).toBe(200);
    expect((await t.call('/metertype/list', {}, clerk)).status).toBe(403);
    expect((await t.call('/supplier/list', {}, clerk)).status).toBe(403);
    expect((await t.call('/metertype/save', meterType({ modelName: 'NOPE' }), clerk)).status).toBe(403);
    expect((await t.call('/metertype/detail', { id: newId() }, clerk)).status).toBe(403);
  });
});
