import { ARCHIVE_COUNT_CAP, METER_RES, type Meter, type Page } from '@meterdesk/contracts';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { meter } from '../../db/schema';
import { addGridNode, loginGridUser } from '../../test/grid';
import { createTestApp, type TestApp } from '../../test/harness';

type Row = { id: string; devAddr: string; gridId: string; status: number; updateTime: string };
type Answer = Page<Meter> & { nextCursor?: string };
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/*
 * Pages of an archive list read by cursor, at the size where it matters: more meters than the count
 * cap, one substation's meters first in the list's order and the other's last, so a page under a
 * subtree is read both from the key index and node by node.
 */
describe('archive lists: paging by cursor', () => {
  let t: TestApp;
  let admin: string;
  const grid: Record<'region' | 'first' | 'last' | 'firstArea' | 'lastArea' | 'lastArea2', string> = {} as never;
  let rows: Row[] = [];

  const list = (body: object, cookie = admin) => t.call<Answer>('/meter/list', body, cookie);

  /** Every page from the first, following `nextCursor`; fails on a page that is not 200. */
  async function allPages(body: object, cookie = admin) {
    const pages: Answer[] = [];
    let after: string | undefined;
    do {
      const res = await list({ ...body, ...(after ? { after } : {}) }, cookie);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(res.body.data);
      after = res.body.data.nextCursor;
    } while (after && pages.length < 100);
    return { pages, ids: pages.flatMap((p) => p.list.map((m) => m.id)) };
  }

  const byKey = (a: Row, b: Row) => (a.devAddr < b.devAddr ? -1 : a.devAddr > b.devAddr ? 1 : a.id < b.id ? -1 : 1);
  const idsOf = (selected: Row[]) => selected.sort(byKey).map((r) => r.id);

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    grid.region = await addGridNode(t, 'PGR');
    grid.first = await addGridNode(t, 'PGS1', grid.region);
    grid.last = await addGridNode(t, 'PGS2', grid.region);
    grid.firstArea = await addGridNode(t, 'PGA1', grid.first);
    grid.lastArea = await addGridNode(t, 'PGA2', grid.last);
    grid.lastArea2 = await addGridNode(t, 'PGA3', grid.last);
    const base = Date.parse('2024-03-01T00:00:00Z');
    // 1,200 meters come first by serial, all of the first substation but five; the last substation's
    // other 300 come after them all.
    rows = Array.from({ length: 1500 }, (_, i) => ({
      id: newId(),
      devAddr: `${i < 1200 ? 'A' : 'Z'}${String(i).padStart(7, '0')}`,
      gridId: i >= 5 && i < 1200 ? grid.firstArea : i % 2 ? grid.lastArea : grid.lastArea2,
      status: i % 6,
      // Seven moments only: a sort by time leaves ties for the tie-break.
      updateTime: new Date(base + (i % 7) * 60_000).toISOString(),
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await t.db
        .insert(meter)
        .values(
          rows.slice(i, i + 500).map((r) => ({ ...r, updateTime: new Date(r.updateTime), createTime: new Date(base) })),
        );
    }
  });
  afterAll(() => t.close());

  it('reads the whole list page after page, each meter once and in order, counting no further than the cap', async () => {
    const { pages, ids } = await allPages({ pageSize: 100 });
    expect(ids).toEqual(idsOf([...rows]));
    expect(pages).toHaveLength(15);
    for (const page of pages) expect(page).toMatchObject({ total: ARCHIVE_COUNT_CAP, totalCapped: true });
    expect(pages.at(-1)?.nextCursor).toBeUndefined();
  });

  it('pages a sort an index reads by cursor too, ties broken by id in the same direction', async () => {
    const cases: [object, (a: Row, b: Row) => number][] = [
      [{ sortField: 'status', sortOrder: 'descend' }, (a, b) => b.status - a.status || (a.id < b.id ? 1 : -1)],
      [
        { sortField: 'updateTime', sortOrder: 'ascend' },
        (a, b) => a.updateTime.localeCompare(b.updateTime) || (a.id < b.id ? -1 : 1),
      ],
      [{ sortField: 'devAddr', sortOrder: 'descend' }, (a, b) => -byKey(a, b)],
    ];
    for (const [sort, compare] of cases) {
      const { ids } = await allPages({ pageSize: 250, ...sort });
      expect(ids, JSON.stringify(sort)).toEqual([...rows].sort(compare).map((r) => r.id));
    }
  });

  it('answers a page number without a cursor with the rows the cursor reaches', async () => {
    const sort = { sortField: 'status', sortOrder: 'descend', pageSize: 100 };
    const { ids } = await allPages(sort);
    const third = await list({ ...sort, curPage: 3 });
    expect(third.body.data.list.map((m) => m.id)).toEqual(ids.slice(200, 300));
  });

  it('pages a subtree wherever its meters lie in the order, with the other filters', async () => {
    const under = (...gridIds: string[]) => rows.filter((r) => gridIds.includes(r.gridId));
    const cases: [object, Row[]][] = [
      [{ gridId: grid.region }, rows],
      [{ gridId: grid.first }, under(grid.firstArea)],
      [{ gridId: grid.last }, under(grid.lastArea, grid.lastArea2)],
      [{ gridId: grid.lastArea }, under(grid.lastArea)],
      [{ gridId: grid.last, status: 3 }, under(grid.lastArea, grid.lastArea2).filter((r) => r.status === 3)],
      [
        { gridId: grid.last, devAddr: 'z000130' },
        under(grid.lastArea, grid.lastArea2).filter((r) => /Z000130/.test(r.devAddr)),
      ],
    ];
    for (const [filter, expected] of cases) {
      expect(expected.length, JSON.stringify(filter)).toBeGreaterThan(0);
      const { pages, ids } = await allPages({ pageSize: 40, ...filter });
      expect(ids, JSON.stringify(filter)).toEqual(idsOf([...expected]));
      expect(pages[0]?.total).toBe(Math.min(expected.length, ARCHIVE_COUNT_CAP));
      expect(pages[0]?.totalCapped).toBe(expected.length > ARCHIVE_COUNT_CAP);
    }
    const sorted = await allPages({ pageSize: 40, gridId: grid.last, sortField: 'updateTime', sortOrder: 'descend' });
    expect(sorted.ids).toEqual(
      under(grid.lastArea, grid.lastArea2)
        .sort((a, b) => b.updateTime.localeCompare(a.updateTime) || (a.id < b.id ? 1 : -1))
        .map((r) => r.id),
    );
  });

  it('pages within the caller scope, each meter once when the scope roots overlap', async () => {
    const lastOnly = await loginGridUser(t, 'pager-last', [grid.last], [METER_RES.page]);
    const expected = idsOf(rows.filter((r) => r.gridId !== grid.firstArea));
    expect((await allPages({ pageSize: 50 }, lastOnly)).ids).toEqual(expected);
    expect((await allPages({ pageSize: 50, gridId: grid.lastArea }, lastOnly)).ids).toEqual(
      idsOf(rows.filter((r) => r.gridId === grid.lastArea)),
    );
    expect((await list({ gridId: grid.first }, lastOnly)).body.data).toMatchObject({ list: [], total: 0 });

    // The scope's meters come last in the order, and one root lies below the other: read node by node, each once.
    const nested = await loginGridUser(t, 'pager-nested', [grid.last, grid.lastArea], [METER_RES.page]);
    expect((await allPages({ pageSize: 50 }, nested)).ids).toEqual(expected);

    const overlapping = await loginGridUser(t, 'pager-both', [grid.region, grid.last, grid.lastArea], [METER_RES.page]);
    const { ids, pages } = await allPages({ pageSize: 500 }, overlapping);
    expect(ids).toEqual(idsOf([...rows]));
    expect(pages[0]).toMatchObject({ total: ARCHIVE_COUNT_CAP, totalCapped: true });
  });

  it('refuses a cursor it did not make, or made for another sort, naming after', async () => {
    const first = (await list({ pageSize: 10 })).body.data;
    const fromSort = (await list({ pageSize: 10, sortField: 'status', sortOrder: 'ascend' })).body.data.nextCursor;
    const descending = { pageSize: 10, sortField: 'status', sortOrder: 'descend' };
    expect((await list({ ...descending, after: String(fromSort) })).body.data).toMatchObject({
      issues: [{ field: 'after' }],
    });
    const refused = [
      'not a cursor',
      cursorOf({ devAddr: 'A0000001' }),
      cursorOf(['', 'A0000001']),
      cursorOf(['', 7, rows[0]?.id]),
      cursorOf(['status descend', 1, rows[0]?.id]),
      String(fromSort),
    ];
    for (const after of refused) {
      const res = await list({ pageSize: 10, after });
      expect(res.status, after).toBe(400);
      expect(res.body.data).toMatchObject({ issues: [{ field: 'after' }] });
    }
    expect((await list({ pageSize: 10, after: String(first.nextCursor) })).status).toBe(200);
  });

  it('exports every meter of a subtree across chunks, each once', async () => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/apis/meter/export',
      payload: { gridId: grid.region, columns: ['devAddr'] },
      headers: { cookie: admin },
    });
    expect(res.statusCode).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const serials: string[] = [];
    workbook.worksheets[0]?.eachRow((row, n) => {
      if (n > 1) serials.push(String(row.getCell(1).value));
    });
    expect(serials).toEqual([...rows].sort(byKey).map((r) => r.devAddr));
  });
});
