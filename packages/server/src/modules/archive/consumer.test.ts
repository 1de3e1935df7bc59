import {
  type BatchDeleteResult,
  CONSUMER_RES,
  type Consumer,
  type ConsumerCreate,
  type Page,
} from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { meter, poc } from '../../db/schema';
import { exportedRows } from '../../test/archive-fixtures';
import { addGridNode, loginGridUser } from '../../test/grid';
import { createTestApp, type TestApp } from '../../test/harness';
import { issuesIn } from '../../test/issues';

describe('consumer archive', () => {
  let t: TestApp;
  let admin: string;
  /** Region A with feeder A1 below it, and region B beside it. */
  let gridA: string;
  let gridA1: string;
  let gridB: string;
  const consumer = (over: Partial<ConsumerCreate> = {}): ConsumerCreate => ({
    consumerCode: 'C0001',
    consumerName: 'Amina Saleh',
    consumerType: 'residential',
    special: false,
    paymentMode: 'prepay',
    protected: false,
    gridId: gridA,
    identityNumber: '1029384756',
    gender: 'female',
    phone: '+966 11 234 5678',
    email: 'amina@example.com',
    address: 'King Fahd Road 12',
    longitude: 46.6,
    latitude: 24.6,
    label: 'VIP',
    remark: '',
    ...over,
  });
  const save = async (over: Partial<ConsumerCreate>, cookie = admin) => {
    const res = await t.call<{ id: string }>('/consumer/save', consumer(over), cookie);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id;
  };
  const codesOf = (page: { body: { data: Page<Consumer> } }) => page.body.data.list.map((c) => c.consumerCode).sort();
  const exportCodes = (cookie: string, body: object = {}) => exportedRows(t, 'consumer', cookie, body);

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    gridA = await addGridNode(t, 'RA');
    gridA1 = await addGridNode(t, 'FA1', gridA);
    gridB = await addGridNode(t, 'RB');
  });
  afterAll(() => t.close());

  it('adds, lists, details and edits a consumer; a taken code is refused in any case', async () => {
    const id = await save({ protected: true });
    const detail = await t.call<Consumer>('/consumer/detail', { id }, admin);
    expect(detail.body.data).toMatchObject({
      ...consumer({ protected: true }),
      id,
      gridName: 'Grid RA',
      pocs: [],
    });

    const again = await t.call('/consumer/save', consumer({ consumerCode: 'c0001', consumerName: 'Other' }), admin);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      msg: 'existed',
      data: { issues: [{ field: 'consumerCode', key: 'existed', message: 'Consumer ID existed' }] },
    });
    expect((await t.call('/consumer/check', { field: 'consumerCode', value: 'C0001' }, admin)).body.data).toEqual({
      existed: true,
    });
    expect((await t.call('/consumer/check', { field: 'consumerCode', value: 'c0001', id }, admin)).body.data).toEqual({
      existed: false,
    });
    expect((await t.call('/consumer/check', { field: 'consumerName', value: 'x' }, admin)).status).toBe(400);

    const moved = consumer({
      gridId: gridA1,
      address: 'Olaya Street 3',
      latitude: null,
      longitude: null,
      protected: true,
    });
    expect((await t.call('/consumer/update', { ...moved, id }, admin)).status).toBe(200);
    const after = await t.call<Consumer>('/consumer/detail', { id }, admin);
    expect(after.body.data).toMatchObject({ gridName: 'Grid FA1', address: 'Olaya Street 3', latitude: null });

    const list = await t.call<Page<Consumer>>('/consumer/list', { consumerName: 'amina' }, admin);
    expect(list.body.data.list).toHaveLength(1);
    expect(list.body.data.list[0]).toMatchObject({ consumerCode: 'C0001', gridName: 'Grid FA1', protected: true });
    expect(list.body.data.list[0]).not.toHaveProperty('pocs');

    expect((await t.call('/consumer/detail', { id: newId() }, admin)).status).toBe(404);
    expect((await t.call('/consumer/update', { ...moved, id: newId() }, admin)).status).toBe(404);
  });

  it("refuses every spec §5 violation with the spec's message and the field named, never a 5xx", async () => {
    const refused = async (over: Record<string, unknown>, field: string, key: string, message?: string) => {
      const res = await t.call('/consumer/save', { ...consumer({ consumerCode: 'VALID01' }), ...over }, admin);
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(issuesIn(res.body), JSON.stringify(over)).toEqual(
        expect.arrayContaining([expect.objectContaining({ field, key, ...(message ? { message } : {}) })]),
      );
    };
    await refused(
      { consumerCode: 'AB12' },
      'consumerCode',
      'consumerIdIncomplete',
      'Please enter the complete Consumer ID',
    );
    await refused({ consumerCode: 'A'.repeat(50) }, 'consumerCode', 'consumerIdIncomplete');
    await refused({ consumerCode: 'AB 12345' }, 'consumerCode', 'codeFormat', 'Only letters and digits are allowed');
    await refused({ consumerCode: 'AB12345!' }, 'consumerCode', 'codeFormat');
    await refused({ consumerCode: '' }, 'consumerCode', 'mandatory', 'This part is mandatory');
    await refused({ consumerName: '   ' }, 'consumerName', 'mandatory');
    await refused({ latitude: 90.5 }, 'latitude', 'invalidLatitude', 'Latitude must be between -90 and 90');
    await refused({ latitude: '24.6' }, 'latitude', 'invalidLatitude');
    await refused({ longitude: -180.01 }, 'longitude', 'invalidLongitude', 'Longitude must be between -180 and 180');
    await refused({ email: 'amina@' }, 'email', 'emailFormat', 'Please enter a valid e-mail address');
    await refused({ phone: '0551 23ab' }, 'phone', 'formalError');
    await refused({ phone: '电话0551' }, 'phone', 'formalError');
    await refused({ consumerType: 'farm' }, 'consumerType', 'invalidValue');
    await refused({ paymentMode: 'barter' }, 'paymentMode', 'invalidValue');
    await refused({ gender: 'x' }, 'gender', 'invalidValue');
    await refused({ protected: 'yes' }, 'protected', 'invalidValue');
    await refused({ gridId: 'grid-a' }, 'gridId', 'invalidId');
    await refused({ gridId: undefined }, 'gridId', 'mandatory');
    await refused({ gridId: newId() }, 'gridId', 'gridNotFound', 'The power grid does not exist');
    await refused({ colour: 'red' }, 'colour', 'unknownField');

    expect((await t.call('/consumer/list', { sortField: 'remark' }, admin)).status).toBe(400);
    const badFlag = await t.call('/consumer/list', { protected: 'maybe' }, admin);
    expect(badFlag.status).toBe(400);
    expect(issuesIn(badFlag.body)).toEqual([expect.objectContaining({ field: 'protected' })]);
    expect((await t.call('/consumer/list', { gridId: 'x' }, admin)).status).toBe(400);
    expect((await t.call('/consumer/delete', { ids: [] }, admin)).status).toBe(400);
  });

  it('filters by code, name, type, payment mode, grid subtree and the protected flag', async () => {
    await save({ consumerCode: 'F0001', consumerName: 'Filter One', consumerType: 'commercial', gridId: gridA1 });
    await save({ consumerCode: 'F0002', consumerName: 'Filter Two', paymentMode: 'postpay', protected: true });
    await save({ consumerCode: 'F0003', consumerName: 'Filter Three', consumerType: 'industrial', gridId: gridB });
    const list = (body: object) =>
      t.call<Page<Consumer>>('/consumer/list', { consumerCode: 'F000', pageSize: 50, ...body }, admin);

    expect(codesOf(await list({}))).toEqual(['F0001', 'F0002', 'F0003']);
    expect(codesOf(await list({ consumerCode: 'f0002' }))).toEqual(['F0002']);
    expect(codesOf(await list({ consumerName: 'three' }))).toEqual(['F0003']);
    expect(codesOf(await list({ consumerType: 'commercial' }))).toEqual(['F0001']);
    expect(codesOf(await list({ paymentMode: 'postpay' }))).toEqual(['F0002']);
    expect(codesOf(await list({ gridId: gridA }))).toEqual(['F0001', 'F0002']);
    expect(codesOf(await list({ gridId: gridA1 }))).toEqual(['F0001']);
    expect(codesOf(await list({ gridId: gridB }))).toEqual(['F0003']);
    expect(codesOf(await list({ protected: true }))).toEqual(['F0002']);
    expect(codesOf(await list({ protected: 'true' }))).toEqual(['F0002']);
    expect(codesOf(await list({ protected: 'false' }))).toEqual(['F0001', 'F0003']);
    const sorted = await list({ sortField: 'consumerName', sortOrder: 'descend' });
    expect(sorted.body.data.list.map((c) => c.consumerName)).toEqual(['Filter Two', 'Filter Three', 'Filter One']);
  });

  it("shows the consumer's POCs with their meters, and refuses to delete it while a POC references it", async () => {
    const held = await save({ consumerCode: 'P0001', consumerName: 'With POCs' });
    const free = await save({ consumerCode: 'P0002', consumerName: 'Without POCs' });
    const meterId = newId();
    await t.db.insert(meter).values({ id: meterId, devAddr: 'M000123456', gridId: gridA });
    await t.db.insert(poc).values([
      { id: newId(), pocNo: 'POC-2', nature: 3, consumerId: held, gridId: gridA },
      { id: newId(), pocNo: 'POC-1', nature: 1, consumerId: held, meterId, gridId: gridA },
    ]);
    const detail = await t.call<Consumer>('/consumer/detail', { id: held }, admin);
    expect(detail.body.data.pocs).toEqual([
      { id: expect.any(String), pocNo: 'POC-1', nature: 1, devAddr: 'M000123456' },
      { id: expect.any(String), pocNo: 'POC-2', nature: 3, devAddr: '' },
    ]);

    const ghost = newId();
    const res = await t.call<BatchDeleteResult>('/consumer/delete', { ids: [held, free, ghost] }, admin);
    expect(res.body.data).toEqual({
      deleted: 1,
      failures: [
        { id: held, name: 'P0001', key: 'consumerHasPocs' },
        { id: ghost, name: '', key: 'notFound' },
      ],
    });
    expect((await t.call('/consumer/detail', { id: free }, admin)).status).toBe(404);
    expect((await t.call('/consumer/detail', { id: held }, admin)).status).toBe(200);
  });

  it('exports the filtered rows with their labels; a cell starting with = stays text', async () => {
    await save({ consumerCode: 'X0001', consumerName: '=cmd|" /C calc"!A0', protected: true, paymentMode: 'postpay' });
    const rows = await exportCodes(admin, {
      consumerCode: 'X0001',
      columns: ['consumerCode', 'consumerName', 'protected', 'paymentMode', 'gridName'],
    });
    expect(rows).toEqual([
      ['Consumer ID', 'Consumer name', 'Life support / medical', 'Payment mode', 'Power grid'],
      ['X0001', '=cmd|" /C calc"!A0', 'Yes', 'Postpay', 'Grid RA'],
    ]);
    const bad = await t.call('/consumer/export', { columns: ['identityNumber'] }, admin);
    expect(bad.status).toBe(400);
  });

  describe('data scope', () => {
    let clerk: string;
    let inA: string;
    let inA1: string;
    let inB: string;

    beforeAll(async () => {
      clerk = await loginGridUser(
        t,
        'gridclerk',
        [gridA],
        [
          CONSUMER_RES.page,
          CONSUMER_RES.add,
          CONSUMER_RES.edit,
          CONSUMER_RES.detail,
          CONSUMER_RES.delete,
          CONSUMER_RES.export!,
        ],
      );
      inA = await save({ consumerCode: 'S0001', consumerName: 'Scope A' });
      inA1 = await save({ consumerCode: 'S0002', consumerName: 'Scope A1', gridId: gridA1 });
      inB = await save({ consumerCode: 'S0003', consumerName: 'Scope B', gridId: gridB });
    });

    it('lists and exports only the consumers under the grid nodes of their groups; admin sees all', async () => {
      const mine = await t.call<Page<Consumer>>('/consumer/list', { consumerCode: 'S000' }, clerk);
      expect(codesOf(mine)).toEqual(['S0001', 'S0002']);
      expect(mine.body.data.total).toBe(2);
      expect(codesOf(await t.call<Page<Consumer>>('/consumer/list', { gridId: gridB }, clerk))).toEqual([]);
      const all = await t.call<Page<Consumer>>('/consumer/list', { consumerCode: 'S000' }, admin);
      expect(codesOf(all)).toEqual(['S0001', 'S0002', 'S0003']);

      const exported = await exportCodes(clerk, { consumerCode: 'S000', columns: ['consumerCode'] });
      expect(exported).toEqual([['Consumer ID'], ['S0001'], ['S0002']]);
      expect(await exportCodes(admin, { consumerCode: 'S000', columns: ['consumerCode'] })).toHaveLength(4);
    });

    it('answers 404 for a consumer outside, exactly as for a missing one, and changes nothing', async () => {
      expect((await t.call('/consumer/detail', { id: inA1 }, clerk)).status).toBe(200);
      const outside = await t.call('/consumer/detail', { id: inB }, clerk);
      const missing = await t.call('/consumer/detail', { id: newId() }, clerk);
      expect(outside.status).toBe(404);
      expect(outside.body).toEqual(missing.body);

      const update = await t.call(
        '/consumer/update',
        { ...consumer({ consumerCode: 'S0003', consumerName: 'Taken over', gridId: gridA }), id: inB },
        clerk,
      );
      expect(update.status).toBe(404);
      const res = await t.call<BatchDeleteResult>('/consumer/delete', { ids: [inB] }, clerk);
      expect(res.body.data).toEqual({ deleted: 0, failures: [{ id: inB, name: '', key: 'notFound' }] });
      const kept = await t.call<Consumer>('/consumer/detail', { id: inB }, admin);
      expect(kept.body.data).toMatchObject({ consumerName: 'Scope B', gridId: gridB });
    });

    it('cannot place a consumer under a grid node outside their scope, by saving or by moving it', async () => {
      const saved = await t.call('/consumer/save', consumer({ consumerCode: 'S0004', gridId: gridB }), clerk);
      expect(saved.status).toBe(400);
      expect(issuesIn(saved.body)).toEqual([expect.objectContaining({ field: 'gridId', key: 'gridNotFound' })]);
      const moved = await t.call(
        '/consumer/update',
        { ...consumer({ consumerCode: 'S0001', consumerName: 'Scope A', gridId: gridB }), id: inA },
        clerk,
      );
      expect(moved.status).toBe(400);
      expect((await t.call('/consumer/save', consumer({ consumerCode: 'S0005', gridId: gridA1 }), clerk)).status).toBe(
        200,
      );
      const res = await t.call<BatchDeleteResult>('/consumer/delete', { ids: [inA] }, clerk);
      expect(res.body.data).toEqual({ deleted: 1, failures: [] });
    });

    it('gives a user without a user group an empty archive', async () => {
      const nobody = await loginGridUser(t, 'nogrid', [], [CONSUMER_RES.page, CONSUMER_RES.detail]);
      const list = await t.call<Page<Consumer>>('/consumer/list', {}, nobody);
      expect(list.body.data).toMatchObject({ list: [], total: 0 });
      expect((await t.call('/consumer/detail', { id: inA1 }, nobody)).status).toBe(404);
    });
  });
});
