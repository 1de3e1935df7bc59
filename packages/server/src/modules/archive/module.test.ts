import { type BatchDeleteResult, MODULE_RES, type Module, type ModuleCreate, type Page } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { meter } from '../../db/schema';
import { exportedRows } from '../../test/archive-fixtures';
import { addGridNode, loginGridUser } from '../../test/grid';
import { createTestApp, type TestApp } from '../../test/harness';
import { issuesIn } from '../../test/issues';

describe('module archive', () => {
  let t: TestApp;
  let admin: string;
  /** Region A with feeder A1 below it, and region B beside it. */
  let gridA: string;
  let gridA1: string;
  let gridB: string;
  const module = (over: Partial<ModuleCreate> = {}): ModuleCreate => ({
    moduleNo: 'MOD0001',
    deviceType: 4,
    workingMode: 'client',
    commAddress: '10.8.0.17:4059',
    simNo: '89966012345678901234',
    gridId: gridA,
    remark: '',
    ...over,
  });
  const save = async (over: Partial<ModuleCreate>, cookie = admin) => {
    const res = await t.call<{ id: string }>('/module/save', module(over), cookie);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id;
  };
  const numbersOf = (page: { body: { data: Page<Module> } }) => page.body.data.list.map((m) => m.moduleNo).sort();
  const exported = (cookie: string, body: object) => exportedRows(t, 'module', cookie, body);

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    gridA = await addGridNode(t, 'RA');
    gridA1 = await addGridNode(t, 'FA1', gridA);
    gridB = await addGridNode(t, 'RB');
  });
  afterAll(() => t.close());

  it('adds, lists, details and edits a module; a taken number is refused in any case', async () => {
    const id = await save({});
    const detail = await t.call<Module>('/module/detail', { id }, admin);
    expect(detail.body.data).toMatchObject({ ...module(), id, gridName: 'Grid RA', devAddr: '' });

    const again = await t.call('/module/save', module({ moduleNo: 'mod0001' }), admin);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      msg: 'existed',
      data: { issues: [{ field: 'moduleNo', key: 'existed', message: 'Module number existed' }] },
    });
    expect((await t.call('/module/check', { field: 'moduleNo', value: 'Mod0001' }, admin)).body.data).toEqual({
      existed: true,
    });
    expect((await t.call('/module/check', { field: 'moduleNo', value: 'MOD0001', id }, admin)).body.data).toEqual({
      existed: false,
    });

    const edited = module({ deviceType: 5, workingMode: 'webService', gridId: gridA1, simNo: '' });
    expect((await t.call('/module/update', { ...edited, id }, admin)).status).toBe(200);
    await t.db.insert(meter).values({ id: newId(), devAddr: 'M000777001', moduleId: id, gridId: gridA1 });
    const after = await t.call<Module>('/module/detail', { id }, admin);
    expect(after.body.data).toMatchObject({ ...edited, gridName: 'Grid FA1', devAddr: 'M000777001' });
    const list = await t.call<Page<Module>>('/module/list', { moduleNo: 'mod0' }, admin);
    expect(list.body.data.list).toEqual([expect.objectContaining({ moduleNo: 'MOD0001', devAddr: 'M000777001' })]);

    expect((await t.call('/module/detail', { id: newId() }, admin)).status).toBe(404);
    expect((await t.call('/module/update', { ...edited, id: newId() }, admin)).status).toBe(404);
  });

  it('refuses bad input with the field named, never a 5xx', async () => {
    const refused = async (over: Record<string, unknown>, field: string, key: string, message?: string) => {
      const res = await t.call('/module/save', { ...module({ moduleNo: 'VALID01' }), ...over }, admin);
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(issuesIn(res.body), JSON.stringify(over)).toEqual(
        expect.arrayContaining([expect.objectContaining({ field, key, ...(message ? { message } : {}) })]),
      );
    };
    await refused({ moduleNo: 'MOD 02' }, 'moduleNo', 'codeFormat', 'Only letters and digits are allowed');
    await refused({ moduleNo: 'MOD-02' }, 'moduleNo', 'codeFormat');
    await refused({ moduleNo: ' ' }, 'moduleNo', 'mandatory', 'This part is mandatory');
    await refused({ moduleNo: 'M'.repeat(51) }, 'moduleNo', 'tooLong');
    await refused({ simNo: '8996A' }, 'simNo', 'digitsOnly', 'Only digits are allowed');
    await refused({ simNo: '1'.repeat(31) }, 'simNo', 'tooLong');
    await refused({ deviceType: 6 }, 'deviceType', 'invalidValue');
    await refused({ deviceType: '1' }, 'deviceType', 'invalidValue');
    await refused({ deviceType: undefined }, 'deviceType', 'mandatory');
    await refused({ workingMode: 'peer' }, 'workingMode', 'invalidValue');
    await refused({ commAddress: 'x'.repeat(101) }, 'commAddress', 'tooLong');
    await refused({ gridId: newId() }, 'gridId', 'gridNotFound', 'The power grid does not exist');
    await refused({ gridId: 'grid-a' }, 'gridId', 'invalidId');
    const numeric = await t.call('/module/save', { ...module({ moduleNo: 'VALID01' }), gridId: 42 }, admin);
    expect(numeric.status).toBe(400);
    expect(issuesIn(numeric.body)).toEqual([expect.objectContaining({ field: 'gridId' })]);

    expect((await t.call('/module/list', { deviceType: 9 }, admin)).status).toBe(400);
    expect((await t.call('/module/list', { sortField: 'remark' }, admin)).status).toBe(400);
    expect((await t.call('/module/check', { field: 'simNo', value: '1' }, admin)).status).toBe(400);
  });

  it('filters by number, SIM, device type, working mode and grid subtree', async () => {
    await save({ moduleNo: 'FLT01', simNo: '1110001', deviceType: 0, workingMode: 'server', gridId: gridA1 });
    await save({ moduleNo: 'FLT02', simNo: '2220002', deviceType: 3 });
    await save({ moduleNo: 'FLT03', simNo: '3330003', deviceType: 3, gridId: gridB });
    const list = (body: object) => t.call<Page<Module>>('/module/list', { moduleNo: 'flt', ...body }, admin);

    expect(numbersOf(await list({}))).toEqual(['FLT01', 'FLT02', 'FLT03']);
    expect(numbersOf(await list({ moduleNo: 'FLT02' }))).toEqual(['FLT02']);
    expect(numbersOf(await list({ simNo: '0003' }))).toEqual(['FLT03']);
    expect(numbersOf(await list({ deviceType: 3 }))).toEqual(['FLT02', 'FLT03']);
    expect(numbersOf(await list({ deviceType: 0 }))).toEqual(['FLT01']);
    expect(numbersOf(await list({ workingMode: 'server' }))).toEqual(['FLT01']);
    expect(numbersOf(await list({ gridId: gridA }))).toEqual(['FLT01', 'FLT02']);
    expect(numbersOf(await list({ gridId: gridB }))).toEqual(['FLT03']);
  });

  it('deletes a batch, keeping a module a meter still uses and saying why', async () => {
    const used = await save({ moduleNo: 'DEL01' });
    const free = await save({ moduleNo: 'DEL02' });
    await t.db.insert(meter).values({ id: newId(), devAddr: 'M000888001', moduleId: used, gridId: gridA });
    const ghost = newId();
    const res = await t.call<BatchDeleteResult>('/module/delete', { ids: [used, free, ghost] }, admin);
    expect(res.body.data).toEqual({
      deleted: 1,
      failures: [
        { id: used, name: 'DEL01', key: 'moduleInUse' },
        { id: ghost, name: '', key: 'notFound' },
      ],
    });
    expect((await t.call('/module/detail', { id: free }, admin)).status).toBe(404);
  });

  it('exports the filtered rows with the device type and working mode as the screen names them', async () => {
    await save({ moduleNo: 'EXP01', deviceType: 3, workingMode: 'webService' });
    expect(
      await exported(admin, { moduleNo: 'EXP01', columns: ['moduleNo', 'deviceType', 'workingMode', 'gridName'] }),
    ).toEqual([
      ['Module number', 'Device type', 'Working mode', 'Power grid'],
      ['EXP01', 'Concentrator module (routing chip)', 'Web service', 'Grid RA'],
    ]);
  });

  it("keeps a user of one grid node to that node's modules", async () => {
    const clerk = await loginGridUser(
      t,
      'moduleclerk',
      [gridA1],
      [MODULE_RES.page, MODULE_RES.add, MODULE_RES.edit, MODULE_RES.detail, MODULE_RES.delete, MODULE_RES.export!],
    );
    const mine = await save({ moduleNo: 'SCP01', gridId: gridA1 });
    const above = await save({ moduleNo: 'SCP02', gridId: gridA });
    const beside = await save({ moduleNo: 'SCP03', gridId: gridB });

    expect(numbersOf(await t.call<Page<Module>>('/module/list', { moduleNo: 'SCP' }, clerk))).toEqual(['SCP01']);
    expect(numbersOf(await t.call<Page<Module>>('/module/list', { moduleNo: 'SCP' }, admin))).toEqual([
      'SCP01',
      'SCP02',
      'SCP03',
    ]);
    expect(await exported(clerk, { moduleNo: 'SCP', columns: ['moduleNo'] })).toEqual([['Module number'], ['SCP01']]);
    for (const id of [above, beside]) {
      expect((await t.call('/module/detail', { id }, clerk)).status).toBe(404);
      expect(
        (await t.call('/module/update', { ...module({ moduleNo: 'SCP09', gridId: gridA1 }), id }, clerk)).status,
      ).toBe(404);
    }
    const res = await t.call<BatchDeleteResult>('/module/delete', { ids: [beside, mine] }, clerk);
    expect(res.body.data).toEqual({ deleted: 1, failures: [{ id: beside, name: '', key: 'notFound' }] });
    const outside = await t.call('/module/save', module({ moduleNo: 'SCP04', gridId: gridA }), clerk);
    expect(issuesIn(outside.body)).toEqual([expect.objectContaining({ field: 'gridId', key: 'gridNotFound' })]);
    expect((await t.call('/module/detail', { id: beside }, admin)).status).toBe(200);
  });
});
