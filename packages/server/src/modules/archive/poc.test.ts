import {
  API_BASE,
  type BatchDeleteResult,
  type Page,
  POC_RES,
  type Poc,
  type PocReplacement,
} from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { dcu, poc, pocReplacement, powerGrid, sysLog } from '../../db/schema';
import { consumerAt, gridNode, meterAt, tariffOf, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';

type Issue = { field: string; key: string; message: string };
const issues = (body: unknown) => (body as { data: { issues: Issue[] } }).data.issues;

describe('POC archive', () => {
  let t: TestApp;
  let admin: string;
  let gridA: string;
  let gridB: string;

  const pocInput = (over: Record<string, unknown> = {}) => ({
    pocNo: `P${newId().slice(0, 9)}`,
    nature: 1,
    gridId: gridA,
    ...over,
  });
  const save = (over: Record<string, unknown> = {}, cookie = admin) =>
    t.call<{ id: string }>('/poc/save', pocInput(over), cookie);
  const saved = async (over: Record<string, unknown> = {}) => {
    const res = await save(over);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id;
  };
  const detail = (id: string, cookie = admin) => t.call<Poc>('/poc/detail', { id }, cookie);
  const update = (id: string, over: Record<string, unknown>, cookie = admin) =>
    t.call('/poc/update', { ...pocInput(over), id }, cookie);
  const history = (id: string, cookie = admin) => t.call<PocReplacement[]>('/poc/history', { id }, cookie);
  const totals = { oldActiveTotal: 1234.5, oldReactiveTotal: 12.25, newActiveTotal: 0, newReactiveTotal: 0 };
  const replace = (id: string, newMeterId: string, over: Record<string, unknown> = {}, cookie = admin) =>
    t.call<{ seq: number }>('/poc/replace', { id, newMeterId, ...totals, ...over }, cookie);
  const replacementCount = async () =>
    (await t.db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(pocReplacement))[0]!.n;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    gridA = await gridNode(t);
    gridB = await gridNode(t);
  });
  afterAll(() => t.close());

  it('adds, lists, details and edits a POC showing its consumer, meter and DCU; refuses a taken number in any case', async () => {
    const c = await consumerAt(t, gridA, 'Amal Saad');
    const tariff = await tariffOf(t);
    const m = await meterAt(t, gridA);
    const dcuId = newId();
    await t.db.insert(dcu).values({ id: dcuId, dcuNo: 'PDCU01', gridId: gridA });
    const id = await saved({
      pocNo: 'POC0001',
      nature: 4,
      consumerId: c.id,
      meterId: m.id,
      dcuId,
      ctRatio: 40,
      ptRatio: 1.5,
      capacity: 250,
      registration: 'registered',
      tariffId: tariff.id,
      taskGroupId: 2,
    });
    const again = await save({ pocNo: 'poc0001' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      msg: 'existed',
      data: { issues: [{ field: 'pocNo', key: 'existed', message: 'POC point existed' }] },
    });
    expect((await t.call('/poc/check', { field: 'pocNo', value: 'Poc0001' }, admin)).body.data).toEqual({
      existed: true,
    });
    const shown = {
      pocNo: 'POC0001',
      nature: 4,
      consumerCode: c.consumerCode,
      consumerName: 'Amal Saad',
      devAddr: m.devAddr,
      dcuNo: 'PDCU01',
      ctRatio: 40,
      ptRatio: 1.5,
      capacity: 250,
      syncStatus: 0,
      registration: 'registered',
      tariffName: tariff.tariffName,
      taskGroupId: 2,
    };
    expect((await detail(id)).body.data).toMatchObject(shown);
    const list = await t.call<Page<Poc>>('/poc/list', { devAddr: m.devAddr.slice(2, 8) }, admin);
    expect(list.body.data.list).toEqual([expect.objectContaining(shown)]);
    expect(list.body.data.total).toBe(1);
    expect((await t.call<Page<Poc>>('/poc/list', { pocNo: 'POC0001', nature: 1 }, admin)).body.data.total).toBe(0);

    expect((await update(id, { pocNo: 'POC0001', nature: 2, meterId: null, remark: 'moved' })).status).toBe(200);
    expect((await detail(id)).body.data).toMatchObject({
      nature: 2,
      meterId: null,
      devAddr: '',
      consumerId: null,
      registration: 'unregistered',
      remark: 'moved',
    });
    expect((await detail(newId())).status).toBe(404);
    expect((await update(newId(), {})).status).toBe(404);
  });

  it('refuses bad input with the spec messages, naming each field, never a 5xx', async () => {
    const bad = await save({ pocNo: 'P 1', nature: 7, ctRatio: 0, ptRatio: 'x', registration: 'maybe' });
    expect(bad.status).toBe(400);
    expect(issues(bad.body)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'pocNo', key: 'codeFormat' }),
        expect.objectContaining({ field: 'nature', key: 'invalidValue' }),
        expect.objectContaining({ field: 'ctRatio', key: 'outOfRange' }),
        expect.objectContaining({ field: 'ptRatio', key: 'numberFormat' }),
        expect.objectContaining({ field: 'registration', key: 'invalidValue' }),
      ]),
    );
    const missing = await t.call('/poc/save', {}, admin);
    expect(issues(missing.body)).toEqual(
      expect.arrayContaining([
        { field: 'pocNo', key: 'mandatory', message: 'This part is mandatory' },
        expect.objectContaining({ field: 'nature', key: 'mandatory' }),
        expect.objectContaining({ field: 'gridId', key: 'mandatory' }),
      ]),
    );
    expect(issues((await save({ syncStatus: 1 })).body)).toEqual([
      expect.objectContaining({ field: 'syncStatus', key: 'unknownField' }),
    ]);
    expect(issues((await save({ taskGroupId: 0 })).body)).toEqual([
      expect.objectContaining({ field: 'taskGroupId', key: 'outOfRange' }),
    ]);
    expect(issues((await save({ consumerId: newId() })).body)).toEqual([
      expect.objectContaining({ field: 'consumerId', key: 'consumerNotFound' }),
    ]);
    expect(issues((await save({ meterId: newId() })).body)).toEqual([
      expect.objectContaining({ field: 'meterId', key: 'meterNotFound' }),
    ]);
    expect(issues((await save({ dcuId: newId() })).body)).toEqual([
      expect.objectContaining({ field: 'dcuId', key: 'dcuNotFound' }),
    ]);
    expect(issues((await save({ gridId: 'nothex' })).body)).toEqual([
      expect.objectContaining({ field: 'gridId', key: 'invalidId' }),
    ]);
    expect((await t.call('/poc/list', { sortField: 'remark' }, admin)).status).toBe(400);
  });

  it('puts one meter at one POC', async () => {
    const m = await meterAt(t, gridA);
    const first = await saved({ meterId: m.id });
    const second = await save({ meterId: m.id });
    expect(second.status).toBe(409);
    expect(issues(second.body)).toEqual([expect.objectContaining({ field: 'meterId', key: 'meterAtOtherPoc' })]);
    // Keeping its own meter is no conflict.
    expect((await update(first, { meterId: m.id, remark: 'same meter' })).status).toBe(200);
  });

  it('marks a synchronized POC changed when its meter, ratios or tariff change, not for other edits', async () => {
    const m = await meterAt(t, gridA);
    const input = { pocNo: 'SYNC01', meterId: m.id, ctRatio: 10, ptRatio: 1 };
    const id = await saved(input);
    await t.db.update(poc).set({ syncStatus: 1 }).where(eq(poc.id, id));
    expect((await update(id, { ...input, remark: 'note' })).status).toBe(200);
    expect((await detail(id)).body.data.syncStatus).toBe(1);
    expect((await update(id, { ...input, tariffId: (await tariffOf(t)).id })).status).toBe(200);
    expect((await detail(id)).body.data.syncStatus).toBe(2);
    await t.db.update(poc).set({ syncStatus: 1 }).where(eq(poc.id, id));
    expect((await update(id, { ...input, ctRatio: 20 })).status).toBe(200);
    expect((await detail(id)).body.data.syncStatus).toBe(2);
    await t.db.update(poc).set({ syncStatus: 1 }).where(eq(poc.id, id));
    expect((await update(id, { ...input, ctRatio: 20, meterId: null })).status).toBe(200);
    expect((await detail(id)).body.data.syncStatus).toBe(2);
  });

  describe('replace', () => {
    it('swaps the meter and keeps PRE1, PRE2 … in order, with both meters, the totals, who and when', async () => {
      const [m1, m2, m3] = await Promise.all([meterAt(t, gridA), meterAt(t, gridA), meterAt(t, gridA)]);
      const id = await saved({ pocNo: 'REPL01', meterId: m1!.id });
      await t.db.update(poc).set({ syncStatus: 1 }).where(eq(poc.id, id));
      const changeTime = '2026-01-02T03:04:05.000Z';
      const first = await replace(id, m2!.id, { changeTime });
      expect(first.body).toMatchObject({ code: 200, data: { seq: 1 } });
      expect((await detail(id)).body.data).toMatchObject({ meterId: m2!.id, devAddr: m2!.devAddr, syncStatus: 2 });
      const second = await replace(id, m3!.id, {
        oldActiveTotal: 99.125,
        oldReactiveTotal: 5,
        newActiveTotal: 0.5,
        newReactiveTotal: 0,
      });
      expect(second.body.data).toEqual({ seq: 2 });

      const rows = (await history(id)).body.data;
      expect(rows.map((r) => [r.name, r.oldDevAddr, r.newDevAddr])).toEqual([
        ['PRE1', m1!.devAddr, m2!.devAddr],
        ['PRE2', m2!.devAddr, m3!.devAddr],
      ]);
      expect(rows[0]).toMatchObject({ ...totals, changer: 'admin', changeTime });
      expect(rows[1]).toMatchObject({ oldActiveTotal: 99.125, oldReactiveTotal: 5, newActiveTotal: 0.5 });
      expect(Date.now() - Date.parse(rows[1]!.changeTime)).toBeLessThan(60_000);
      // The meter taken away is free for another POC.
      expect((await save({ meterId: m1!.id })).status).toBe(200);

      const entries = await t.db
        .select()
        .from(sysLog)
        .where(eq(sysLog.requestUrl, `${API_BASE}/poc/replace`));
      const firstEntry = entries.filter((e) => e.content.includes(m1!.devAddr));
      expect(firstEntry).toHaveLength(1);
      expect(firstEntry[0]).toMatchObject({ username: 'admin', operatingType: 'update', result: 200 });
      expect(firstEntry[0]!.content).toContain('REPL01');
    });

    it('refuses the current meter, a meter at another POC, an unknown meter, a POC without meter and bad totals', async () => {
      const [m1, m2, busy] = await Promise.all([meterAt(t, gridA), meterAt(t, gridA), meterAt(t, gridA)]);
      const id = await saved({ meterId: m1!.id });
      await saved({ meterId: busy!.id });
      const before = await replacementCount();

      expect(issues((await replace(id, m1!.id)).body)).toEqual([
        expect.objectContaining({ field: 'newMeterId', key: 'sameMeter' }),
      ]);
      const taken = await replace(id, busy!.id);
      expect(taken.status).toBe(409);
      expect(issues(taken.body)).toEqual([expect.objectContaining({ field: 'newMeterId', key: 'meterAtOtherPoc' })]);
      expect(issues((await replace(id, newId())).body)).toEqual([
        expect.objectContaining({ field: 'newMeterId', key: 'meterNotFound' }),
      ]);
      const empty = await saved();
      expect(issues((await replace(empty, m2!.id)).body)).toEqual([
        expect.objectContaining({ key: 'pocWithoutMeter' }),
      ]);
      expect(issues((await replace(id, m2!.id, { oldActiveTotal: -1 })).body)).toEqual([
        expect.objectContaining({ field: 'oldActiveTotal', key: 'outOfRange' }),
      ]);
      const noTotals = await t.call('/poc/replace', { id, newMeterId: m2!.id }, admin);
      expect(issues(noTotals.body).map((i) => [i.field, i.key])).toEqual([
        ['oldActiveTotal', 'mandatory'],
        ['oldReactiveTotal', 'mandatory'],
        ['newActiveTotal', 'mandatory'],
        ['newReactiveTotal', 'mandatory'],
      ]);
      const future = new Date(Date.now() + 86_400_000).toISOString();
      expect(issues((await replace(id, m2!.id, { changeTime: future })).body)).toEqual([
        expect.objectContaining({ field: 'changeTime', key: 'futureTime' }),
      ]);
      expect((await replace(newId(), m2!.id)).status).toBe(404);
      expect(await replacementCount()).toBe(before);
      expect((await detail(id)).body.data.meterId).toBe(m1!.id);
    });

    it('writes all or nothing: a replace failing after its record was written leaves the POC and the history as they were', async () => {
      const [m1, m2] = await Promise.all([meterAt(t, gridA), meterAt(t, gridA)]);
      const id = await saved({ meterId: m1!.id });
      const before = await replacementCount();
      // The POC's update fails inside the transaction, after the replacement row went in.
      await t.db.execute(
        sql.raw(`create function poc_refuse() returns trigger language plpgsql as $$ begin
          if new.id = '${id}' then raise exception 'refused by test'; end if; return new; end $$`),
      );
      await t.db.execute(
        sql.raw('create trigger poc_refuse before update on poc for each row execute function poc_refuse()'),
      );
      try {
        const res = await replace(id, m2!.id);
        expect(res.status).toBe(500);
      } finally {
        await t.db.execute(sql.raw('drop trigger poc_refuse on poc'));
        await t.db.execute(sql.raw('drop function poc_refuse'));
      }
      expect(await replacementCount()).toBe(before);
      expect((await history(id)).body.data).toEqual([]);
      expect((await detail(id)).body.data).toMatchObject({ meterId: m1!.id, syncStatus: 0 });
      // Nothing was half-written: the same replacement goes through now, as PRE1.
      expect((await replace(id, m2!.id)).body.data).toEqual({ seq: 1 });
    });

    it('queues two replaces of one POC at once: the second replaces the meter the first put there', async () => {
      const [m1, m2, m3] = await Promise.all([meterAt(t, gridA), meterAt(t, gridA), meterAt(t, gridA)]);
      const id = await saved({ meterId: m1!.id });
      const [a, b] = await Promise.all([replace(id, m2!.id), replace(id, m3!.id)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect([a.body.data.seq, b.body.data.seq].sort()).toEqual([1, 2]);
      const rows = (await history(id)).body.data;
      expect(rows[0]!.oldDevAddr).toBe(m1!.devAddr);
      expect(rows[1]!.oldDevAddr).toBe(rows[0]!.newDevAddr);
      expect((await detail(id)).body.data.devAddr).toBe(rows[1]!.newDevAddr);
    });
  });

  it('deletes a batch, keeping a POC a grid node names as its primary table, and its history goes with it', async () => {
    const [m1, m2] = await Promise.all([meterAt(t, gridA), meterAt(t, gridA)]);
    const primary = await saved({ pocNo: 'PRIMARY1', nature: 3 });
    const free = await saved({ pocNo: 'FREEPOC1', meterId: m1!.id });
    await replace(free, m2!.id);
    await t.db.insert(powerGrid).values({
      id: newId(),
      gridCode: 'TA01',
      gridName: 'Area 1',
      gridType: 3,
      parentId: gridA,
      primaryPocId: primary,
    });
    const ghost = newId();
    const res = await t.call<BatchDeleteResult>('/poc/delete', { ids: [primary, free, ghost] }, admin);
    expect(res.body.data).toEqual({
      deleted: 1,
      failures: [
        { id: primary, name: 'PRIMARY1', key: 'pocIsPrimaryTable' },
        { id: ghost, name: '', key: 'notFound' },
      ],
    });
    expect((await detail(free)).status).toBe(404);
    expect(await t.db.select().from(pocReplacement).where(eq(pocReplacement.pocId, free))).toEqual([]);
  });

  describe('data scope', () => {
    let user: string;
    let inA: string;
    let inB: string;
    let meterB: { id: string; devAddr: string };

    beforeAll(async () => {
      inA = await saved({ pocNo: 'SCOPEPA1', meterId: (await meterAt(t, gridA)).id });
      await saved({ pocNo: 'SCOPEPA2', gridId: await gridNode(t, gridA) });
      meterB = await meterAt(t, gridB);
      inB = await saved({ pocNo: 'SCOPEPB1', gridId: gridB, meterId: (await meterAt(t, gridB)).id });
      user = await userOfGrid(t, gridA, Object.values(POC_RES));
    });

    it('lists and exports only the POCs under the grid node of the user group, and below it', async () => {
      const list = await t.call<Page<Poc>>('/poc/list', { pocNo: 'SCOPEP' }, user);
      expect(list.body.data.list.map((p) => p.pocNo)).toEqual(['SCOPEPA1', 'SCOPEPA2']);
      const res = await t.app.http.inject({
        method: 'POST',
        url: `${API_BASE}/poc/export`,
        payload: { pocNo: 'SCOPEP', columns: ['pocNo', 'nature'] },
        headers: { cookie: user },
      });
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      const sheet = workbook.worksheets[0]!;
      expect(sheet.getRow(1).values).toEqual([undefined, 'POC point', 'POC nature']);
      expect(sheet.getRow(2).values).toEqual([undefined, 'SCOPEPA1', 'Consumer']);
      expect(sheet.rowCount).toBe(3);
      expect((await t.call<Page<Poc>>('/poc/list', { pocNo: 'SCOPEP' }, admin)).body.data.total).toBe(3);
    });

    it('answers 404 for a POC under another node, on every call', async () => {
      expect((await detail(inA, user)).status).toBe(200);
      expect((await detail(inB, user)).body).toEqual({ code: 404, msg: 'notFound', data: null });
      expect((await update(inB, { pocNo: 'SCOPEPB1', gridId: gridA }, user)).status).toBe(404);
      expect((await history(inB, user)).status).toBe(404);
      expect((await replace(inB, (await meterAt(t, gridB)).id, {}, user)).status).toBe(404);
      const removed = await t.call<BatchDeleteResult>('/poc/delete', { ids: [inB] }, user);
      expect(removed.body.data).toEqual({ deleted: 0, failures: [{ id: inB, name: '', key: 'notFound' }] });
      expect((await detail(inB)).status).toBe(200);
    });

    it('cannot reference a grid node, consumer, meter or DCU under another node', async () => {
      const consumerB = await consumerAt(t, gridB);
      const dcuB = newId();
      await t.db.insert(dcu).values({ id: dcuB, dcuNo: `SB${newId().slice(0, 6)}`, gridId: gridB });
      const refused = [
        [{ gridId: gridB }, 'gridId', 'gridNotFound'],
        [{ consumerId: consumerB.id }, 'consumerId', 'consumerNotFound'],
        [{ meterId: meterB.id }, 'meterId', 'meterNotFound'],
        [{ dcuId: dcuB }, 'dcuId', 'dcuNotFound'],
      ] as const;
      for (const [over, field, key] of refused) {
        expect(issues((await save(over, user)).body)).toEqual([expect.objectContaining({ field, key })]);
      }
      expect(issues((await replace(inA, meterB.id, {}, user)).body)).toEqual([
        expect.objectContaining({ field: 'newMeterId', key: 'meterNotFound' }),
      ]);
    });
  });
});
