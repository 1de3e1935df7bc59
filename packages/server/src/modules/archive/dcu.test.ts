import { API_BASE, type BatchDeleteResult, DCU_RES, type Dcu, type DcuKeys, type Page } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../crypto/secret-box';
import { newId } from '../../db/ids';
import { dcu, meter, poc, supplier, sysLog } from '../../db/schema';
import { exportedRows, gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';

type Issues = { issues: { field: string; key: string; message: string; params?: Record<string, unknown> }[] };

const KEYS = {
  llsKey: 'Lls pass~16chars',
  hlsAuthKey: '000102030405060708090a0b0c0d0e0f',
  hlsEncKey: 'A0A1A2A3A4A5A6A7A8A9AAABACADAEAF',
  hlsAuthEncKey: 'ffeeddccbbaa99887766554433221100',
};
/** Each key as it would appear anywhere in clear (hex keys are stored upper case). */
const CLEAR = [
  KEYS.llsKey,
  ...[KEYS.hlsAuthKey, KEYS.hlsEncKey, KEYS.hlsAuthEncKey].flatMap((k) => [k, k.toUpperCase()]),
];

describe('DCU archive', () => {
  let t: TestApp;
  let admin: string;
  let gridA: string;
  let gridB: string;
  let box: SecretBox;

  const dcuInput = (over: Record<string, unknown> = {}) => ({
    dcuNo: `D${newId().slice(0, 8)}`,
    dcuName: 'North concentrator',
    model: 'HXE-300',
    gridId: gridA,
    address: 'Feeder 4',
    longitude: 46.6,
    latitude: 24.6,
    ...over,
  });
  const save = (over: Record<string, unknown> = {}, cookie = admin) =>
    t.call<{ id: string }>('/dcu/save', dcuInput(over), cookie);
  const saved = async (over: Record<string, unknown> = {}) => {
    const res = await save(over);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id;
  };
  const detail = (id: string, cookie = admin) => t.call<Dcu>('/dcu/detail', { id }, cookie);
  const issues = (body: unknown) => (body as { data: Issues }).data.issues;
  const exportRows = async (cookie: string, body: object = {}) =>
    (await exportedRows(t, 'dcu', cookie, body)).map((row) => row.map((v) => String(v ?? '')));

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    gridA = await gridNode(t);
    gridB = await gridNode(t);
    box = new SecretBox(t.secretKey);
  });
  afterAll(() => t.close());

  it('adds, lists, details and edits a DCU, and refuses a taken number in any case', async () => {
    const supplierId = newId();
    await t.db.insert(supplier).values({ id: supplierId, supplierCode: 'DS1', supplierName: 'DCU maker' });
    const id = await saved({ dcuNo: 'DCU0001', supplierId });
    const again = await save({ dcuNo: 'dcu0001' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      msg: 'existed',
      data: { issues: [{ field: 'dcuNo', key: 'existed', message: 'DCU number existed' }] },
    });
    expect((await t.call('/dcu/check', { field: 'dcuNo', value: 'Dcu0001' }, admin)).body.data).toEqual({
      existed: true,
    });
    expect((await t.call('/dcu/check', { field: 'dcuNo', value: 'DCU0001', id }, admin)).body.data).toEqual({
      existed: false,
    });

    expect(
      (await t.call('/dcu/update', { ...dcuInput({ dcuNo: 'DCU0001', address: 'Feeder 5', supplierId }), id }, admin))
        .status,
    ).toBe(200);
    expect((await detail(id)).body.data).toMatchObject({
      dcuNo: 'DCU0001',
      address: 'Feeder 5',
      supplierName: 'DCU maker',
      meterCount: 0,
      llsKeySet: false,
      blacklist: '',
    });
    const list = await t.call<Page<Dcu>>('/dcu/list', { dcuNo: 'u000' }, admin);
    expect(list.body.data.list.map((d) => d.dcuNo)).toEqual(['DCU0001']);
    expect((await detail(newId())).status).toBe(404);
    expect((await t.call('/dcu/update', { ...dcuInput(), id: newId() }, admin)).status).toBe(404);
  });

  it('refuses bad input with the spec messages, naming each field, never a 5xx', async () => {
    const bad = await save({
      dcuNo: 'D-01',
      latitude: 91,
      llsLevel: 16,
      hlsAuthKey: 'abc',
      hlsEncKey: 'g'.repeat(32),
    });
    expect(bad.status).toBe(400);
    expect(issues(bad.body)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'dcuNo', key: 'codeFormat' }),
        expect.objectContaining({ field: 'latitude', key: 'invalidLatitude' }),
        expect.objectContaining({ field: 'llsLevel', key: 'outOfRange' }),
        expect.objectContaining({ field: 'hlsAuthKey', key: 'hexKey' }),
        expect.objectContaining({ field: 'hlsEncKey', key: 'hexKey' }),
      ]),
    );
    const more = await save({ llsKey: 'tab\tpass', taskGroup: 256, minCycleMinutes: 0, collectPeriodMinutes: 1.5 });
    expect(issues(more.body)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'llsKey', key: 'printableOnly' }),
        expect.objectContaining({ field: 'taskGroup', key: 'outOfRange', message: 'At most 255' }),
        expect.objectContaining({ field: 'minCycleMinutes', key: 'outOfRange', message: 'At least 1' }),
        expect.objectContaining({ field: 'collectPeriodMinutes', key: 'wholeNumber' }),
      ]),
    );
    const missing = await t.call('/dcu/save', { dcuName: 'x' }, admin);
    expect(issues(missing.body)).toEqual(
      expect.arrayContaining([
        { field: 'dcuNo', key: 'mandatory', message: 'This part is mandatory' },
        expect.objectContaining({ field: 'gridId', key: 'mandatory' }),
      ]),
    );
    expect(issues((await save({ llsKey: 'x'.repeat(17) })).body)).toEqual([
      expect.objectContaining({ field: 'llsKey', key: 'tooLong', message: 'At most 16 characters' }),
    ]);
    expect((await save({ taskGroup: [1, 2] })).status).toBe(400);
    expect(issues((await save({ serial: 'x' })).body)).toEqual([expect.objectContaining({ key: 'unknownField' })]);
    expect(issues((await save({ gridId: newId() })).body)).toEqual([expect.objectContaining({ key: 'gridNotFound' })]);
    expect(issues((await save({ supplierId: newId() })).body)).toEqual([
      expect.objectContaining({ field: 'supplierId', key: 'supplierNotFound' }),
    ]);
    expect((await t.call('/dcu/list', { sortField: 'llsKey' }, admin)).status).toBe(400);
  });

  it('checks the task parameters: HH:mm times, a window that is not empty, periods of an enabled task', async () => {
    expect(issues((await save({ taskStart: '24:00' })).body)).toEqual([
      expect.objectContaining({ field: 'taskStart', key: 'timeFormat' }),
    ]);
    expect(issues((await save({ taskStart: '08:00', taskEnd: '08:00' })).body)).toEqual([
      expect.objectContaining({ field: 'taskEnd', key: 'taskWindowEmpty' }),
    ]);
    // A window across midnight runs through the night.
    const night = await saved({ taskStart: '22:00', taskEnd: '02:00' });
    expect((await detail(night)).body.data).toMatchObject({ taskStart: '22:00', taskEnd: '02:00' });
    expect(issues((await save({ taskStart: '08:00' })).body)).toEqual([
      expect.objectContaining({ field: 'taskEnd', key: 'mandatory' }),
    ]);
    expect(issues((await save({ taskEnabled: true, reportPeriodMinutes: 60 })).body)).toEqual([
      expect.objectContaining({ field: 'collectPeriodMinutes', key: 'mandatory' }),
    ]);
    const task = {
      taskEnabled: true,
      taskGroup: 3,
      minCycleMinutes: 5,
      collectPeriodMinutes: 15,
      reportPeriodMinutes: 60,
      taskStart: '00:30',
      taskEnd: '23:45',
      maxSupplementDays: 7,
      executionOffsetMinutes: 10,
    };
    const id = await saved(task);
    expect((await detail(id)).body.data).toMatchObject(task);
    const none = await saved({ taskGroup: null });
    expect((await detail(none)).body.data).toMatchObject({ taskEnabled: false, taskGroup: null, taskStart: '' });
  });

  describe('sealed keys', () => {
    let id: string;
    let dcuNo: string;

    beforeAll(async () => {
      dcuNo = `KEY${newId().slice(0, 6)}`;
      id = await saved({ dcuNo, ...KEYS });
    });

    it('stores no key in clear: the columns open with the secret box to the keys given', async () => {
      const [row] = await t.db.select().from(dcu).where(eq(dcu.id, id));
      const stored = JSON.stringify(row);
      for (const clear of CLEAR) expect(stored).not.toContain(clear);
      expect(box.open(row!.llsKey!)).toBe(KEYS.llsKey);
      expect(box.open(row!.hlsAuthKey!)).toBe(KEYS.hlsAuthKey.toUpperCase());
      expect(box.open(row!.hlsEncKey!)).toBe(KEYS.hlsEncKey);
      expect(box.open(row!.hlsAuthEncKey!)).toBe(KEYS.hlsAuthEncKey.toUpperCase());
    });

    it('never answers a key from list, detail or export; the record says which are set', async () => {
      const one = await detail(id);
      expect(one.body.data).toMatchObject({
        llsKeySet: true,
        hlsAuthKeySet: true,
        hlsEncKeySet: true,
        hlsAuthEncKeySet: true,
      });
      expect(one.body.data).not.toHaveProperty('llsKey');
      const list = await t.call<Page<Dcu>>('/dcu/list', { dcuNo }, admin);
      expect(list.body.data.total).toBe(1);
      const exported = await exportRows(admin, { dcuNo });
      expect(exported).toHaveLength(2);
      for (const text of [JSON.stringify(one.body), JSON.stringify(list.body), JSON.stringify(exported)]) {
        for (const clear of CLEAR) expect(text).not.toContain(clear);
      }
    });

    it('keeps a stored key when an update leaves it empty, and seals a new one given', async () => {
      const [before] = await t.db.select().from(dcu).where(eq(dcu.id, id));
      const res = await t.call(
        '/dcu/update',
        { ...dcuInput({ dcuNo, llsKey: '', hlsAuthKey: '', hlsEncKey: '11'.repeat(16) }), id },
        admin,
      );
      expect(res.status).toBe(200);
      const [after] = await t.db.select().from(dcu).where(eq(dcu.id, id));
      expect(after!.llsKey).toBe(before!.llsKey);
      expect(after!.hlsAuthKey).toBe(before!.hlsAuthKey);
      expect(after!.hlsAuthEncKey).toBe(before!.hlsAuthEncKey);
      expect(box.open(after!.hlsEncKey!)).toBe('11'.repeat(16));
    });

    it('reveals the keys only with the reveal button, and logs who looked at which DCU, never the keys', async () => {
      const revealed = await t.call<DcuKeys>('/dcu/reveal', { id }, admin);
      expect(revealed.status).toBe(200);
      expect(revealed.body.data).toEqual({
        llsKey: KEYS.llsKey,
        hlsAuthKey: KEYS.hlsAuthKey.toUpperCase(),
        hlsEncKey: '11'.repeat(16),
        hlsAuthEncKey: KEYS.hlsAuthEncKey.toUpperCase(),
      });
      const none = await saved();
      expect((await t.call<DcuKeys>('/dcu/reveal', { id: none }, admin)).body.data).toEqual({
        llsKey: '',
        hlsAuthKey: '',
        hlsEncKey: '',
        hlsAuthEncKey: '',
      });

      const viewer = await userOfGrid(t, gridA, [DCU_RES.page, DCU_RES.detail, DCU_RES.edit]);
      expect((await detail(id, viewer)).status).toBe(200);
      expect((await t.call('/dcu/reveal', { id }, viewer)).status).toBe(403);

      const entries = await t.db
        .select()
        .from(sysLog)
        .where(eq(sysLog.requestUrl, `${API_BASE}/dcu/reveal`));
      const mine = entries.filter((e) => e.result === 200 && e.content.includes(dcuNo));
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ username: 'admin', logType: 'operation', operatingType: 'other' });
    });

    it('writes no key into the operation log of a save or an update', async () => {
      const entries = await t.db.select().from(sysLog);
      expect(entries.some((e) => e.requestUrl === `${API_BASE}/dcu/update` && e.content.includes(dcuNo))).toBe(true);
      const text = JSON.stringify(entries);
      for (const clear of [...CLEAR, '11'.repeat(16)]) expect(text).not.toContain(clear);
    });
  });

  describe('blacklist', () => {
    it('takes serials separated by Chinese or English commas or line breaks, stores them once each as the archive spells them', async () => {
      const m = await Promise.all(['BL000001', 'BL000002', 'BL000003', 'BL000004'].map((s) => meterAt(t, gridA, s)));
      const id = await saved({ blacklist: ' BL000001,BL000002，bl000003\nBL000004\r\n\n,BL000001 ' });
      const [row] = await t.db.select({ blacklist: dcu.blacklist }).from(dcu).where(eq(dcu.id, id));
      expect(row!.blacklist).toEqual(m.map((x) => x.devAddr));
      expect((await detail(id)).body.data.blacklist).toBe('BL000001\nBL000002\nBL000003\nBL000004');
    });

    it('refuses a serial that is no known meter, naming the first unknown one', async () => {
      await meterAt(t, gridA, 'BL000010');
      const res = await save({ blacklist: 'BL000010，NOPE0001\nNOPE0002' });
      expect(res.status).toBe(400);
      expect(res.body.msg).toBe('blacklistUnknownMeter');
      expect(issues(res.body)).toEqual([
        {
          field: 'blacklist',
          key: 'blacklistUnknownMeter',
          message: 'Meter NOPE0001 in the blacklist does not exist',
          params: { value: 'NOPE0001' },
        },
      ]);
    });

    it('refuses more serials than a DCU serves', async () => {
      const text = Array.from({ length: 1025 }, (_, i) => `S${String(i).padStart(7, '0')}`).join(',');
      expect(issues((await save({ blacklist: text })).body)).toEqual([
        expect.objectContaining({ field: 'blacklist', key: 'blacklistTooLong' }),
      ]);
    });
  });

  it('deletes a batch, keeping a DCU that meters or POCs still use and saying why', async () => {
    const byMeter = await saved({ dcuNo: 'USEDM1' });
    const byPoc = await saved({ dcuNo: 'USEDP1' });
    const free = await saved({ dcuNo: 'FREE01' });
    await t.db
      .update(meter)
      .set({ dcuId: byMeter })
      .where(eq(meter.id, (await meterAt(t, gridA)).id));
    await t.db
      .insert(poc)
      .values({ id: newId(), pocNo: `P${newId().slice(0, 8)}`, nature: 1, dcuId: byPoc, gridId: gridA });
    expect((await detail(byMeter)).body.data.meterCount).toBe(1);
    const ghost = newId();
    const res = await t.call<BatchDeleteResult>('/dcu/delete', { ids: [byMeter, byPoc, free, ghost] }, admin);
    expect(res.body.data).toEqual({
      deleted: 1,
      failures: [
        { id: byMeter, name: 'USEDM1', key: 'dcuInUse' },
        { id: byPoc, name: 'USEDP1', key: 'dcuInUse' },
        { id: ghost, name: '', key: 'notFound' },
      ],
    });
    expect((await detail(free)).status).toBe(404);
  });

  describe('data scope', () => {
    let user: string;
    let inA: string;
    let inChildOfA: string;
    let inB: string;

    beforeAll(async () => {
      const childOfA = await gridNode(t, gridA);
      inA = await saved({ dcuNo: 'SCOPEA1' });
      inChildOfA = await saved({ dcuNo: 'SCOPEA2', gridId: childOfA });
      inB = await saved({ dcuNo: 'SCOPEB1', gridId: gridB, ...KEYS });
      user = await userOfGrid(t, gridA, Object.values(DCU_RES));
    });

    it('lists and exports only the DCUs under the grid node of the user group, and below it', async () => {
      const list = await t.call<Page<Dcu>>('/dcu/list', { dcuNo: 'SCOPE', pageSize: 50 }, user);
      expect(list.body.data.list.map((d) => d.dcuNo)).toEqual(['SCOPEA1', 'SCOPEA2']);
      expect(list.body.data.total).toBe(2);
      const filtered = await t.call<Page<Dcu>>('/dcu/list', { dcuNo: 'SCOPE', gridId: gridB }, user);
      expect(filtered.body.data.total).toBe(0);
      const exported = await exportRows(user, { dcuNo: 'SCOPE', columns: ['dcuNo'] });
      expect(exported).toEqual([['DCU number'], ['SCOPEA1'], ['SCOPEA2']]);
      expect((await t.call<Page<Dcu>>('/dcu/list', { dcuNo: 'SCOPE' }, admin)).body.data.total).toBe(3);
    });

    it('answers 404 for a DCU under another node, exactly as for one that does not exist', async () => {
      expect((await detail(inChildOfA, user)).status).toBe(200);
      expect((await detail(inB, user)).body).toEqual({ code: 404, msg: 'notFound', data: null });
      expect((await t.call('/dcu/update', { ...dcuInput({ dcuNo: 'SCOPEB1' }), id: inB }, user)).status).toBe(404);
      expect((await t.call('/dcu/reveal', { id: inB }, user)).status).toBe(404);
      const removed = await t.call<BatchDeleteResult>('/dcu/delete', { ids: [inB] }, user);
      expect(removed.body.data).toEqual({ deleted: 0, failures: [{ id: inB, name: '', key: 'notFound' }] });
      expect((await detail(inB)).status).toBe(200);
      expect((await detail(inA, user)).status).toBe(200);
    });

    it('cannot place a DCU under another node, nor blacklist a meter there', async () => {
      expect(issues((await save({ gridId: gridB }, user)).body)).toEqual([
        expect.objectContaining({ field: 'gridId', key: 'gridNotFound' }),
      ]);
      const far = await meterAt(t, gridB);
      expect(issues((await save({ blacklist: far.devAddr }, user)).body)).toEqual([
        expect.objectContaining({ key: 'blacklistUnknownMeter', params: { value: far.devAddr } }),
      ]);
    });
  });
});
