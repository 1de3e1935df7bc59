import {
  type BatchDeleteResult,
  METER_RES,
  type Meter,
  type MeterStatusChange,
  type Page,
  ROOT_PARENT_ID,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../crypto/secret-box';
import { newId } from '../../db/ids';
import {
  commModule,
  consumer,
  dcu,
  meter,
  meterStatusHistory,
  poc,
  powerGrid,
  sysGroup,
  sysLog,
  sysUserGroup,
} from '../../db/schema';
import { exportedRows, tariffOf } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { issuesIn } from '../../test/issues';

describe('meter', () => {
  let t: TestApp;
  let admin: string;
  let gridA: string;
  let gridA1: string;
  let gridB: string;
  let supplierId: string;
  let otherSupplierId: string;
  let meterTypeId: string;
  let tariffId: string;

  const grid = async (code: string, parentId = ROOT_PARENT_ID) => {
    const id = newId();
    await t.db.insert(powerGrid).values({ id, gridCode: code, gridName: code, parentId });
    return id;
  };
  const module = async (moduleNo: string, gridId = gridA) => {
    const id = newId();
    await t.db.insert(commModule).values({ id, moduleNo, deviceType: 2, workingMode: 'client', gridId });
    return id;
  };
  const concentrator = async (dcuNo: string, gridId = gridA) => {
    const id = newId();
    await t.db.insert(dcu).values({ id, dcuNo, gridId });
    return id;
  };
  const meterInput = (over: Record<string, unknown> = {}) => ({
    devAddr: '20240001',
    gridId: gridA,
    meterTypeId,
    commType: 'PLC',
    authType: 'hls',
    securityType: 3,
    dataChannel: 'ch1',
    interfaceType: 'RS485',
    meterBoxNo: 'BOX-7',
    tariffId,
    longitude: 46.6,
    latitude: 24.6,
    ...over,
  });
  const save = async (over: Record<string, unknown> = {}, cookie = admin) => {
    const res = await t.call<{ id: string }>('/meter/save', meterInput(over), cookie);
    if (res.status !== 200) throw new Error(`save failed: ${JSON.stringify(res.body)}`);
    return res.body.data.id;
  };
  const detail = async (id: string, cookie = admin) => (await t.call<Meter>('/meter/detail', { id }, cookie)).body.data;
  const exportRows = (body: object, cookie = admin) => exportedRows(t, 'meter', cookie, body);

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    gridA = await grid('GA');
    gridA1 = await grid('GA1', gridA);
    gridB = await grid('GB');
    const supplier = (code: string) =>
      t.call<{ id: string }>('/supplier/save', { supplierCode: code, supplierName: `Supplier ${code}` }, admin);
    supplierId = (await supplier('S1')).body.data.id;
    otherSupplierId = (await supplier('S2')).body.data.id;
    tariffId = (await tariffOf(t)).id;
    meterTypeId = (
      await t.call<{ id: string }>(
        '/metertype/save',
        { modelName: 'DDS666', supplierId, wiring: '1P2W', side: 'secondary' },
        admin,
      )
    ).body.data.id;
  });
  afterAll(() => t.close());

  it('adds, lists, details and edits; the supplier is the meter type’s; update keeps the status', async () => {
    const id = await save({ status: 1 });
    const saved = await detail(id);
    expect(saved).toMatchObject({
      devAddr: '20240001',
      gridId: gridA,
      gridName: 'GA',
      meterTypeId,
      meterTypeName: 'DDS666',
      supplierId,
      supplierName: 'Supplier S1',
      status: 1,
      commType: 'PLC',
      authType: 'hls',
      securityType: 3,
      interfaceType: 'RS485',
      virtual: false,
      hesPasswordSet: false,
      moduleId: null,
      dcuId: null,
      pocNo: null,
      consumerName: null,
      longitude: 46.6,
      latitude: 24.6,
    });

    // A meter type is one supplier's model: another supplier contradicts it.
    const contradicting = await t.call('/meter/update', { ...meterInput({ supplierId: otherSupplierId }), id }, admin);
    expect(issuesIn(contradicting.body)).toEqual([
      expect.objectContaining({ field: 'supplierId', key: 'supplierNotOfMeterType' }),
    ]);
    const same = await t.call('/meter/update', { ...meterInput({ supplierId }), id }, admin);
    expect(same.status).toBe(200);
    const updated = await t.call(
      '/meter/update',
      { ...meterInput({ status: 4, supplierId: null, virtual: true, commType: null }), id },
      admin,
    );
    expect(updated.status).toBe(200);
    expect(await detail(id)).toMatchObject({
      status: 1,
      supplierId,
      supplierName: 'Supplier S1',
      virtual: true,
      commType: null,
    });
    // Without a type, any supplier.
    const typeless = await save({ devAddr: 'NOTYPE01', meterTypeId: null, supplierId: otherSupplierId });
    expect(await detail(typeless)).toMatchObject({ meterTypeId: null, supplierName: 'Supplier S2' });

    const bare = await save({ devAddr: 'BARE0001', meterTypeId: undefined, commType: undefined });
    expect(await detail(bare)).toMatchObject({ status: 0, supplierId: null, meterTypeId: null, commType: null });

    const list = await t.call<Page<Meter>>('/meter/list', { devAddr: '2024', status: 1 }, admin);
    expect(list.body.data.list.map((m) => m.devAddr)).toEqual(['20240001']);
    const byType = await t.call<Page<Meter>>('/meter/list', { meterTypeId, sortField: 'devAddr' }, admin);
    expect(byType.body.data.list.map((m) => m.devAddr)).toEqual(['20240001']);
    expect((await t.call('/meter/detail', { id: newId() }, admin)).status).toBe(404);
  });

  it("shows the POC the meter measures and that POC's consumer", async () => {
    const id = await save({ devAddr: 'POCM0001' });
    const consumerId = newId();
    await t.db.insert(consumer).values({
      id: consumerId,
      consumerCode: 'C0001',
      consumerName: 'Amira Haddad',
      consumerType: 'residential',
      paymentMode: 'prepay',
      gridId: gridA,
    });
    await t.db.insert(poc).values({ id: newId(), pocNo: 'P-0001', nature: 1, consumerId, meterId: id, gridId: gridA });
    const list = await t.call<Page<Meter>>('/meter/list', { devAddr: 'POCM' }, admin);
    expect(list.body.data.list[0]).toMatchObject({
      pocNo: 'P-0001',
      consumerCode: 'C0001',
      consumerName: 'Amira Haddad',
    });
    expect(await detail(id)).toMatchObject({ pocNo: 'P-0001', consumerName: 'Amira Haddad' });

    // Still measuring a POC, it cannot go; a free one can, with its history.
    const free = await save({ devAddr: 'FREE0001' });
    await t.call('/meter/maintain', { id: free, toStatus: 1, reason: 'installed' }, admin);
    const ghost = newId();
    const res = await t.call<BatchDeleteResult>('/meter/delete', { ids: [id, free, ghost] }, admin);
    expect(res.body.data).toEqual({
      deleted: 1,
      failures: [
        { id, name: 'POCM0001', key: 'meterInUse' },
        { id: ghost, name: '', key: 'notFound' },
      ],
    });
    expect(await t.db.select().from(meterStatusHistory).where(eq(meterStatusHistory.meterId, free))).toEqual([]);
  });

  it('checks the Meter SN as spec §5 says, and says so in its words', async () => {
    const refused = async (over: Record<string, unknown>) => {
      const res = await t.call('/meter/save', meterInput(over), admin);
      expect(res.status, JSON.stringify(over)).toBe(400);
      return issuesIn(res.body).map((i) => [i.field, i.key, i.message]);
    };
    expect(await refused({ devAddr: undefined })).toEqual([['devAddr', 'mandatory', 'This part is mandatory']]);
    expect(await refused({ devAddr: '   ' })).toEqual([['devAddr', 'mandatory', 'This part is mandatory']]);
    expect(await refused({ devAddr: '123456' })).toEqual([
      ['devAddr', 'meterSnIncomplete', 'Please enter the complete Meter SN'],
    ]);
    expect(await refused({ devAddr: '1'.repeat(50) })).toEqual([
      ['devAddr', 'meterSnIncomplete', 'Please enter the complete Meter SN'],
    ]);
    expect(await refused({ devAddr: '1234 567' })).toEqual([
      ['devAddr', 'codeFormat', 'Only letters and digits are allowed'],
    ]);
    expect((await t.call('/meter/save', meterInput({ devAddr: '1234567' }), admin)).status).toBe(200);
    expect((await t.call('/meter/save', meterInput({ devAddr: '9'.repeat(49) }), admin)).status).toBe(200);

    const again = await t.call('/meter/save', meterInput({ devAddr: 'ab-CD_0001' }), admin);
    expect(again.status).toBe(200);
    const caseOnly = await t.call('/meter/save', meterInput({ devAddr: 'AB-cd_0001' }), admin);
    expect(caseOnly.status).toBe(409);
    expect(issuesIn(caseOnly.body)).toEqual([
      { field: 'devAddr', key: 'existed', message: 'Meter SN existed', params: { label: 'meter.fields.devAddr' } },
    ]);
    expect((await t.call('/meter/check', { field: 'devAddr', value: 'AB-CD_0001' }, admin)).body.data).toEqual({
      existed: true,
    });
  });

  it('refuses any other bad input with the field named, never a 5xx', async () => {
    const refused = async (over: Record<string, unknown>) => {
      const res = await t.call('/meter/save', meterInput({ devAddr: 'BAD00001', ...over }), admin);
      expect(res.status, JSON.stringify(over)).toBe(400);
      return issuesIn(res.body).map((i) => [i.field, i.key]);
    };
    expect(await refused({ gridId: undefined })).toEqual([['gridId', 'mandatory']]);
    expect(await refused({ gridId: 'nope' })).toEqual([['gridId', 'invalidId']]);
    expect(await refused({ gridId: newId() })).toEqual([['gridId', 'gridNotFound']]);
    expect(
      await refused({ status: 6, securityType: 4, authType: 'x', commType: 'pigeon', interfaceType: 'usb' }),
    ).toEqual([
      ['commType', 'invalidValue'],
      ['authType', 'invalidValue'],
      ['securityType', 'invalidValue'],
      ['interfaceType', 'invalidValue'],
      ['status', 'invalidValue'],
    ]);
    expect(await refused({ latitude: 91, longitude: -181 })).toEqual([
      ['longitude', 'invalidLongitude'],
      ['latitude', 'invalidLatitude'],
    ]);
    expect(await refused({ latitude: '24.6', virtual: 'yes' })).toEqual([
      ['virtual', 'invalidValue'],
      ['latitude', 'invalidLatitude'],
    ]);
    expect(await refused({ hesPassword: 'x'.repeat(65), colour: 'red' })).toEqual([
      ['hesPassword', 'tooLong'],
      ['colour', 'unknownField'],
    ]);
    expect(await refused({ meterTypeId: newId() })).toEqual([['meterTypeId', 'meterTypeNotFound']]);
    expect(await refused({ supplierId: newId() })).toEqual([['supplierId', 'supplierNotFound']]);
    expect(await refused({ moduleId: newId() })).toEqual([['moduleId', 'moduleNotFound']]);
    expect(await refused({ dcuId: newId() })).toEqual([['dcuId', 'dcuNotFound']]);
    expect((await t.call('/meter/list', { sortField: 'remark' }, admin)).status).toBe(400);
    expect((await t.call('/meter/list', { gridId: 'x' }, admin)).status).toBe(400);
  });

  it('gives a module to one meter only, and never the module its own SN', async () => {
    const m1 = await module('MOD-0001');
    const first = await save({ devAddr: 'MODM0001', moduleId: m1 });
    expect(await detail(first)).toMatchObject({ moduleId: m1, moduleNo: 'MOD-0001' });

    const second = await t.call('/meter/save', meterInput({ devAddr: 'MODM0002', moduleId: m1 }), admin);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({
      msg: 'moduleInUse',
      data: {
        issues: [{ field: 'moduleId', key: 'moduleInUse', message: 'This module is used by a meter' }],
      },
    });
    // The meter holding the module keeps it when edited.
    expect(
      (await t.call('/meter/update', { ...meterInput({ devAddr: 'MODM0001', moduleId: m1 }), id: first }, admin))
        .status,
    ).toBe(200);

    const m2 = await module('Sn-Same-01');
    const same = await t.call('/meter/save', meterInput({ devAddr: 'sn-same-01', moduleId: m2 }), admin);
    expect(same.status).toBe(400);
    expect(issuesIn(same.body)).toEqual([
      { field: 'devAddr', key: 'meterSnSameAsModule', message: 'Meter SN and module SN must differ' },
    ]);

    const d1 = await concentrator('DCU-0001');
    const withDcu = await save({ devAddr: 'DCUM0001', moduleId: m2, dcuId: d1 });
    expect(await detail(withDcu)).toMatchObject({ moduleNo: 'Sn-Same-01', dcuId: d1, dcuNo: 'DCU-0001' });
  });

  it('keeps the HES password sealed: never answered, exported or logged; an empty one on update keeps it', async () => {
    const secret = 'Hes-Secret-42';
    const id = await save({ devAddr: 'HESM0001', hesPassword: secret });
    const stored = async () =>
      (await t.db.select({ p: meter.hesPassword }).from(meter).where(eq(meter.id, id)))[0]?.p ?? null;
    const box = new SecretBox(t.secretKey);
    const sealed = await stored();
    expect(sealed).not.toBeNull();
    expect(sealed).not.toContain(secret);
    expect(box.open(sealed!)).toBe(secret);

    const shown = await t.call<Meter>('/meter/detail', { id }, admin);
    expect(shown.body.data.hesPasswordSet).toBe(true);
    expect(shown.body.data).not.toHaveProperty('hesPassword');
    const listed = await t.call('/meter/list', { devAddr: 'HESM' }, admin);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(JSON.stringify(listed.body)).not.toContain(sealed);
    const exported = await exportRows({ devAddr: 'HESM' });
    expect(exported).toHaveLength(2);
    expect(JSON.stringify(exported)).not.toContain(secret);

    await t.call('/meter/update', { ...meterInput({ devAddr: 'HESM0001', hesPassword: '' }), id }, admin);
    expect(box.open((await stored())!)).toBe(secret);
    await t.call('/meter/update', { ...meterInput({ devAddr: 'HESM0001', hesPassword: 'Changed-7' }), id }, admin);
    expect(box.open((await stored())!)).toBe('Changed-7');

    const entries = await t.db.select().from(sysLog).where(eq(sysLog.requestUrl, '/apis/meter/update'));
    expect(entries.length).toBeGreaterThanOrEqual(2);
    const log = JSON.stringify(await t.db.select().from(sysLog));
    expect(log).toContain('HESM0001');
    expect(log).not.toContain(secret);
    expect(log).not.toContain('Changed-7');
  });

  it('moves a meter only along its life cycle, keeping who, when and why', async () => {
    const id = await save({ devAddr: 'LIFE0001' });
    const maintain = (toStatus: unknown, reason: unknown = 'routine') =>
      t.call('/meter/maintain', { id, toStatus, reason }, admin);

    expect((await maintain(1, 'Installed at Olaya street')).status).toBe(200);
    expect((await maintain(2, 'Commissioned')).status).toBe(200);
    const refused = await maintain(0, 'Back to stock');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      msg: 'statusTransitionRefused',
      data: {
        from: 2,
        to: 0,
        issues: [
          {
            field: 'toStatus',
            key: 'statusTransitionRefused',
            message: 'A meter cannot go from Activated to Warehouse',
          },
        ],
      },
    });
    expect(issuesIn((await maintain(2)).body)[0]?.message).toBe('A meter cannot go from Activated to Activated');
    expect(issuesIn((await maintain(1, '  ')).body)).toMatchObject([{ field: 'reason', key: 'mandatory' }]);
    expect(issuesIn((await maintain(9)).body)).toMatchObject([{ field: 'toStatus', key: 'invalidValue' }]);
    expect((await t.call('/meter/maintain', { id: newId(), toStatus: 1, reason: 'x' }, admin)).status).toBe(404);

    expect((await maintain(5, 'Display broken')).status).toBe(200);
    expect((await maintain(4, 'Beyond repair')).status).toBe(200);
    // Recycling is final.
    for (const to of [0, 1, 2, 3, 5]) expect((await maintain(to)).status).toBe(400);
    expect((await detail(id)).status).toBe(4);

    const history = await t.call<MeterStatusChange[]>('/meter/history', { id }, admin);
    expect(history.body.data.map((h) => [h.fromStatus, h.toStatus, h.reason, h.username])).toEqual([
      [5, 4, 'Beyond repair', 'admin'],
      [2, 5, 'Display broken', 'admin'],
      [1, 2, 'Commissioned', 'admin'],
      [0, 1, 'Installed at Olaya street', 'admin'],
    ]);
    const times = history.body.data.map((h) => Date.parse(h.time));
    expect(times.every((time) => Number.isFinite(time))).toBe(true);
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const entries = await t.db.select().from(sysLog).where(eq(sysLog.requestUrl, '/apis/meter/maintain'));
    expect(entries.map((e) => e.operatingType)).toContain('update');
    expect(entries.some((e) => e.content.includes('Beyond repair'))).toBe(true);
  });

  describe('data scope', () => {
    let scoped: string;
    let meterB: string;
    let meterA1: string;
    let moduleB: string;
    let dcuB: string;

    beforeAll(async () => {
      const role = await t.createRole('meter keeper', [
        METER_RES.page,
        METER_RES.add,
        METER_RES.edit,
        METER_RES.detail,
        METER_RES.delete,
        METER_RES.export!,
        METER_RES.maintain,
      ]);
      const userId = await t.createUser({ username: 'keeper', password: 'keeper-pass-1', roleIds: [role] });
      const groupId = newId();
      await t.db.insert(sysGroup).values({ id: groupId, groupName: 'Grid A crew', groupCode: 'GA', gridId: gridA });
      await t.db.insert(sysUserGroup).values({ userId, groupId });
      scoped = await t.login('keeper', 'keeper-pass-1');
      meterB = await save({ devAddr: 'SCOPEB01', gridId: gridB });
      meterA1 = await save({ devAddr: 'SCOPEA01', gridId: gridA1 });
      moduleB = await module('MOD-B-0001', gridB);
      dcuB = await concentrator('DCU-B-0001', gridB);
    });

    it("sees and exports only the meters under its group's grid node and below", async () => {
      const list = await t.call<Page<Meter>>('/meter/list', { devAddr: 'SCOPE', pageSize: 500 }, scoped);
      expect(list.body.data.list.map((m) => m.devAddr)).toEqual(['SCOPEA01']);
      expect(list.body.data.total).toBe(1);
      const all = await t.call<Page<Meter>>('/meter/list', { pageSize: 500 }, scoped);
      expect(all.body.data.list.every((m) => m.gridId === gridA || m.gridId === gridA1)).toBe(true);
      expect((await t.call<Page<Meter>>('/meter/list', { gridId: gridB }, scoped)).body.data.total).toBe(0);
      const exported = await exportRows({ devAddr: 'SCOPE', columns: ['devAddr'] }, scoped);
      expect(exported).toEqual([['Meter SN'], ['SCOPEA01']]);
    });

    it("answers 404 for another grid's meter, exactly as for a missing one", async () => {
      expect((await t.call('/meter/detail', { id: meterB }, scoped)).status).toBe(404);
      expect((await t.call('/meter/history', { id: meterB }, scoped)).status).toBe(404);
      const update = await t.call(
        '/meter/update',
        { ...meterInput({ devAddr: 'SCOPEB01', gridId: gridA }), id: meterB },
        scoped,
      );
      expect(update.status).toBe(404);
      const maintain = await t.call('/meter/maintain', { id: meterB, toStatus: 1, reason: 'x' }, scoped);
      expect(maintain.status).toBe(404);
      const removed = await t.call<BatchDeleteResult>('/meter/delete', { ids: [meterB] }, scoped);
      expect(removed.body.data).toEqual({ deleted: 0, failures: [{ id: meterB, name: '', key: 'notFound' }] });
      expect((await detail(meterB)).status).toBe(0);

      expect((await t.call('/meter/detail', { id: meterA1 }, scoped)).status).toBe(200);
      expect((await t.call('/meter/maintain', { id: meterA1, toStatus: 1, reason: 'x' }, scoped)).status).toBe(200);
    });

    it('cannot place a meter under another grid, nor give it a module or DCU from there', async () => {
      const under = await t.call('/meter/save', meterInput({ devAddr: 'SCOPEB02', gridId: gridB }), scoped);
      expect(issuesIn(under.body)).toMatchObject([{ field: 'gridId', key: 'gridNotFound' }]);
      const moved = await t.call(
        '/meter/update',
        { ...meterInput({ devAddr: 'SCOPEA01', gridId: gridB }), id: meterA1 },
        scoped,
      );
      expect(issuesIn(moved.body)).toMatchObject([{ field: 'gridId', key: 'gridNotFound' }]);
      const withModule = await t.call('/meter/save', meterInput({ devAddr: 'SCOPEA02', moduleId: moduleB }), scoped);
      expect(issuesIn(withModule.body)).toMatchObject([{ field: 'moduleId', key: 'moduleNotFound' }]);
      const withDcu = await t.call('/meter/save', meterInput({ devAddr: 'SCOPEA02', dcuId: dcuB }), scoped);
      expect(issuesIn(withDcu.body)).toMatchObject([{ field: 'dcuId', key: 'dcuNotFound' }]);
      expect((await t.call('/meter/save', meterInput({ devAddr: 'SCOPEA02', gridId: gridA1 }), scoped)).status).toBe(
        200,
      );
      // Business keys are unique across the whole archive, so a taken SN says so even from another grid.
      expect((await t.call('/meter/save', meterInput({ devAddr: 'scopeb01' }), scoped)).status).toBe(409);
    });

    it('shows a user without a user group no meter at all', async () => {
      const role = await t.createRole('groupless', [METER_RES.page, METER_RES.detail]);
      await t.createUser({ username: 'groupless', password: 'groupless-1', roleIds: [role] });
      const groupless = await t.login('groupless', 'groupless-1');
      expect((await t.call<Page<Meter>>('/meter/list', {}, groupless)).body.data.total).toBe(0);
      expect((await t.call('/meter/detail', { id: meterA1 }, groupless)).status).toBe(404);
    });
  });
});
