import {
  COLLECTION_REPORT_RES,
  METER_STATUSES,
  OBIS,
  type Page,
  REPORTING_METER_STATUSES,
  type ReportMeterRow,
  type SilentGroupRow,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { commModule, meter as meterTable, supplier } from '../../db/schema';
import { foldPending } from '../../readings/rollups';
import { profileRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { dcuAt, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { addGridNode } from '../../test/grid';
import { createTestApp, type TestApp } from '../../test/harness';
import { pdfText } from '../../test/pdf-text';

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const intervals = (day: string, count = 4) =>
  Array.from({ length: count }, (_, i) => ({
    ts: new Date(Date.parse(`${day}T00:00:00Z`) + (i + 1) * 15 * 60_000).toISOString(),
    values: { [OBIS.activePower]: 500 },
  }));

/*
 * The collection report's never-read and stopped meters, grouped for field crews: per DCU, module
 * type, supplier and grid node, each group's meters a filter away, exported as the screen shows them.
 */
describe('never-read and stopped meters by group', () => {
  let t: TestApp;
  let admin: string;
  const tag = newId().slice(0, 6).toUpperCase();
  const grid = { region: '', east: '', west: '', other: '' };
  const sites: Record<'a' | 'b', { id: string; dcuNo: string }> = {} as never;
  const suppliers = { s1: newId(), s2: newId() };
  const serial: Record<string, string> = {};

  /** A meter in service with, optionally, a module of `moduleType` and a supplier. */
  const meter = async (
    key: string,
    gridId: string,
    options: { dcuId?: string; moduleType?: number; supplierId?: string; status?: number } = {},
  ) => {
    const m = await meterAt(t, gridId, `${tag}${key.toUpperCase()}`, options.dcuId);
    let moduleId: string | null = null;
    if (options.moduleType !== undefined) {
      moduleId = newId();
      await t.db.insert(commModule).values({
        id: moduleId,
        moduleNo: `MOD${tag}${key.toUpperCase()}`,
        deviceType: options.moduleType,
        workingMode: 'server',
        gridId,
      });
    }
    await t.db
      .update(meterTable)
      .set({ status: options.status ?? 2, moduleId, supplierId: options.supplierId ?? null })
      .where(eq(meterTable.id, m.id));
    serial[key] = m.devAddr;
    return m.id;
  };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    grid.region = await addGridNode(t, `SR${tag}`);
    grid.east = await addGridNode(t, `SE${tag}`, grid.region);
    grid.west = await addGridNode(t, `SW${tag}`, grid.region);
    grid.other = await addGridNode(t, `SO${tag}`);
    sites.a = await dcuAt(t, grid.east, `DA${tag}`);
    sites.b = await dcuAt(t, grid.west, `DB${tag}`);
    await t.db.insert(supplier).values([
      { id: suppliers.s1, supplierCode: `S1${tag}`, supplierName: `Najd ${tag}` },
      { id: suppliers.s2, supplierCode: `S2${tag}`, supplierName: `Hijaz ${tag}` },
    ]);
    await meter('a1', grid.east, { dcuId: sites.a.id, moduleType: 2, supplierId: suppliers.s1 });
    await meter('a2', grid.east, { dcuId: sites.a.id, moduleType: 2, supplierId: suppliers.s1 });
    await meter('a3', grid.east, { dcuId: sites.a.id, moduleType: 4 });
    await meter('b1', grid.west, { dcuId: sites.b.id, supplierId: suppliers.s2 });
    const stopped = await meter('b2', grid.west, { dcuId: sites.b.id, moduleType: 2, supplierId: suppliers.s2 });
    const reading = await meter('b3', grid.west, { dcuId: sites.b.id });
    await meter('direct', grid.west);
    // Not in service, and another region: never counted here.
    await meter('warehouse', grid.west, { status: 0 });
    await meter('elsewhere', grid.other, { dcuId: sites.a.id });
    await new ReadingWriter(t.database).write({
      profile: [...profileRows(stopped, intervals(daysAgo(10))), ...profileRows(reading, intervals(daysAgo(1)))],
    });
    await foldPending(t.db);
  });
  afterAll(() => t.close());

  const groups = async (body: object, cookie = admin) => {
    const res = await t.call<Page<SilentGroupRow>>(
      '/collectionreport/silentgroups',
      { table: 'neverRead', gridId: grid.region, ...body },
      cookie,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };
  const meters = async (path: string, body: object) => {
    const res = await t.call<Page<ReportMeterRow>>(path, { gridId: grid.region, ...body }, admin);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.list.map((m) => m.devAddr);
  };
  const counts = (page: Page<SilentGroupRow>) => page.list.map((g) => [g.name ?? g.key, g.meters]);

  it('counts the never-read meters per DCU, module type, supplier and grid node, most first', async () => {
    expect(counts(await groups({ groupBy: 'dcu' }))).toEqual([
      [sites.a.dcuNo, 3],
      [sites.b.dcuNo, 1],
      [null, 1],
    ]);
    expect(counts(await groups({ groupBy: 'moduleType' }))).toEqual([
      [2, 2],
      [null, 2],
      [4, 1],
    ]);
    expect(counts(await groups({ groupBy: 'supplier' }))).toEqual([
      [`Najd ${tag}`, 2],
      [null, 2],
      [`Hijaz ${tag}`, 1],
    ]);
    const byNode = await groups({ groupBy: 'grid' });
    expect(byNode.list).toEqual([
      { key: grid.east, name: `Grid SE${tag}`, meters: 3 },
      { key: grid.west, name: `Grid SW${tag}`, meters: 2 },
    ]);
    // The stopped ones likewise, and pages of groups with their count.
    expect(counts(await groups({ table: 'stopped', groupBy: 'dcu' }))).toEqual([[sites.b.dcuNo, 1]]);
    expect(await groups({ groupBy: 'moduleType', pageSize: 2, curPage: 2 })).toMatchObject({
      total: 3,
      list: [{ key: 4, meters: 1 }],
    });
    expect(await groups({ groupBy: 'moduleType', pageSize: 2, curPage: 3 })).toMatchObject({ total: 3, list: [] });
  });

  it('lists a group’s meters with their module type and supplier, a group’s key being a filter', async () => {
    expect(await meters('/collectionreport/neverread', { dcuId: sites.a.id })).toEqual([
      serial.a1,
      serial.a2,
      serial.a3,
    ]);
    expect(await meters('/collectionreport/neverread', { dcuId: null })).toEqual([serial.direct]);
    expect(await meters('/collectionreport/neverread', { moduleType: null })).toEqual([serial.b1, serial.direct]);
    expect(await meters('/collectionreport/neverread', { supplierId: suppliers.s1, moduleType: 2 })).toEqual([
      serial.a1,
      serial.a2,
    ]);
    expect(await meters('/collectionreport/neverread', { nodeId: grid.west })).toEqual([serial.b1, serial.direct]);
    expect(await meters('/collectionreport/stopped', { moduleType: 2 })).toEqual([serial.b2]);
    const [row] = (
      await t.call<Page<ReportMeterRow>>('/collectionreport/neverread', { gridId: grid.region, pageSize: 1 }, admin)
    ).body.data.list;
    expect(row).toMatchObject({ devAddr: serial.a1, moduleType: 2, supplierName: `Najd ${tag}`, dcuNo: sites.a.dcuNo });
    // Groups narrow with the filters too: one DCU's meters by supplier.
    expect(counts(await groups({ groupBy: 'supplier', dcuId: sites.a.id }))).toEqual([
      [`Najd ${tag}`, 2],
      [null, 1],
    ]);
  });

  it('keeps to the caller’s scope and refuses an unknown grouping or module type naming the field', async () => {
    const scoped = await userOfGrid(t, grid.west, [COLLECTION_REPORT_RES.page]);
    expect(counts(await groups({ groupBy: 'dcu', gridId: undefined }, scoped))).toEqual([
      [sites.b.dcuNo, 1],
      [null, 1],
    ]);
    // Another DCU's meters exist (sites.a's), but none in this user's grid.
    expect(counts(await groups({ groupBy: 'dcu', gridId: undefined, dcuId: sites.a.id }, scoped))).toEqual([]);
    const outside = await t.call(
      '/collectionreport/silentgroups',
      { table: 'neverRead', groupBy: 'dcu', gridId: grid.east },
      scoped,
    );
    expect(outside.status).toBe(404);
    for (const [body, field] of [
      [{ table: 'neverRead', groupBy: 'colour' }, 'groupBy'],
      [{ table: 'daily', groupBy: 'dcu' }, 'table'],
      [{ table: 'neverRead', groupBy: 'dcu', moduleType: 9 }, 'moduleType'],
      [{ table: 'neverRead', groupBy: 'dcu', pageSize: 501 }, 'pageSize'],
    ] as const) {
      const res = await t.call('/collectionreport/silentgroups', body, admin);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.data).toMatchObject({ issues: [{ field }] });
    }
  });

  const download = (body: object) =>
    t.app.http.inject({
      method: 'POST',
      url: '/apis/collectionreport/export',
      payload: { gridId: grid.region, ...body },
      headers: { cookie: admin },
    });
  const sheet = async (body: object) => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await download(body)).rawPayload as unknown as ArrayBuffer);
    const rows: unknown[][] = [];
    workbook.worksheets[0]?.eachRow((row) => {
      rows.push((row.values as unknown[]).slice(1));
    });
    return rows;
  };

  it('exports the groups, or one group’s meters, as the screen shows them', async () => {
    expect(await sheet({ table: 'neverRead', groupBy: 'moduleType' })).toEqual([
      ['Module type', 'Meters'],
      ['Meter (PLC module)', 2],
      ['No module', 2],
      ['4G chip', 1],
    ]);
    expect(await sheet({ table: 'neverRead', dcuId: sites.a.id })).toEqual([
      ['Meter serial', 'DCU', 'Grid node', 'Module type', 'Supplier', 'Status'],
      [serial.a1, sites.a.dcuNo, `Grid SE${tag}`, 'Meter (PLC module)', `Najd ${tag}`, 'Activated'],
      [serial.a2, sites.a.dcuNo, `Grid SE${tag}`, 'Meter (PLC module)', `Najd ${tag}`, 'Activated'],
      [serial.a3, sites.a.dcuNo, `Grid SE${tag}`, '4G chip', undefined, 'Activated'],
    ]);
    const pdf = await download({ table: 'stopped', groupBy: 'dcu', format: 'pdf' });
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const text = pdfText(pdf.rawPayload);
    expect(text).toContain('Meters stopped reading by DCU');
    expect(text).toContain(sites.b.dcuNo);
  });

  it('follows a meter’s serial, grid node, status and virtual flag as they are edited', async () => {
    const id = await meter('mover', grid.west);
    const edit = (values: Partial<typeof meterTable.$inferInsert>) =>
      t.db.update(meterTable).set(values).where(eq(meterTable.id, id));
    const listed = async (gridId: string) =>
      (await meters('/collectionreport/neverread', { gridId, pageSize: 500 })).filter((s) => s.startsWith(`${tag}M`));
    for (const status of METER_STATUSES) {
      await edit({ status });
      const expected = (REPORTING_METER_STATUSES as readonly number[]).includes(status) ? [serial.mover] : [];
      expect(await listed(grid.region), `status ${status}`).toEqual(expected);
    }
    await edit({ status: 2, virtual: true });
    expect(await listed(grid.region)).toEqual([]);
    await edit({ virtual: false, devAddr: `${tag}MOVED` });
    expect(await listed(grid.region)).toEqual([`${tag}MOVED`]);
    await edit({ gridId: grid.other });
    expect(await listed(grid.region)).toEqual([]);
    expect(await listed(grid.other)).toEqual([`${tag}MOVED`]);
  });
});
