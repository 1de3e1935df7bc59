import {
  COLLECTION_REPORT_RES,
  OBIS,
  type Page,
  type ReportDaily,
  type ReportDcuRow,
  type ReportGridRow,
  type ReportMeterRow,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { meter as meterTable, powerGrid } from '../../db/schema';
import { foldPending } from '../../readings/rollups';
import { profileRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { dcuAt, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { pdfText } from '../../test/pdf-text';
import { intervalsDue } from './collection-report.service';

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const TODAY = daysAgo(0);
const D1 = daysAgo(2);
const D2 = daysAgo(1);
const PERIOD = { startDay: D1, endDay: D2 };
/** `count` 15-minute intervals of a UTC day from its first (stamped 00:15, as an interval is by its end). */
const intervals = (day: string, count = 96) =>
  Array.from({ length: count }, (_, i) => ({
    ts: new Date(Date.parse(`${day}T00:00:00Z`) + (i + 1) * 15 * 60_000).toISOString(),
    values: { [OBIS.activePower]: 500 + i },
  }));

describe('the data collection report', () => {
  let t: TestApp;
  let admin: string;
  let scoped: string;
  const grid: Record<'region' | 'alpha' | 'alpha1' | 'beta' | 'other', string> = {
    region: '',
    alpha: '',
    alpha1: '',
    beta: '',
    other: '',
  };
  const serial: Record<string, string> = {};
  let d1: { id: string; dcuNo: string };
  let d2: { id: string; dcuNo: string };

  const node = async (key: keyof typeof grid, name: string, parentId = '0') => {
    grid[key] = newId();
    await t.db.insert(powerGrid).values({ id: grid[key], gridCode: name.toUpperCase(), gridName: name, parentId });
  };
  const meter = async (key: string, gridId: string, status: number, dcuId?: string) => {
    const m = await meterAt(t, gridId, `RPT${key.toUpperCase()}${newId().slice(0, 6)}`, dcuId);
    await t.db.update(meterTable).set({ status }).where(eq(meterTable.id, m.id));
    serial[key] = m.devAddr;
    return m.id;
  };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    // region → alpha → alpha1, region → beta; "other" is another region the scoped user cannot see.
    await node('region', 'Report region');
    await node('alpha', 'Alpha feeder', grid.region);
    await node('alpha1', 'Alpha transformer', grid.alpha);
    await node('beta', 'Beta feeder', grid.region);
    await node('other', 'Other region');
    d1 = await dcuAt(t, grid.alpha, `RPTDCU1${newId().slice(0, 6)}`);
    d2 = await dcuAt(t, grid.beta, `RPTDCU2${newId().slice(0, 6)}`);
    const ids = {
      region: await meter('region', grid.region, 2, d1.id),
      alpha1: await meter('alpha1', grid.alpha1, 2, d1.id),
      alpha: await meter('alpha', grid.alpha, 1, d1.id),
      beta1: await meter('beta1', grid.beta, 2, d2.id),
      // An anomalous meter is in the field: it is expected to report.
      beta2: await meter('beta2', grid.beta, 3, d2.id),
      direct: await meter('direct', grid.beta, 2),
      warehouse: await meter('warehouse', grid.beta, 0),
      other: await meter('other', grid.other, 2),
      otherSilent: await meter('otherSilent', grid.other, 2),
    };
    await new ReadingWriter(t.database).write({
      profile: [
        ...profileRows(ids.region, [...intervals(D1), ...intervals(D2)]),
        ...profileRows(ids.alpha1, [...intervals(D1), ...intervals(D2, 48)]),
        ...profileRows(ids.alpha, [...intervals(D1), ...intervals(D2)]),
        ...profileRows(ids.beta1, intervals(D1)),
        ...profileRows(ids.beta2, intervals(daysAgo(10), 16)),
        ...profileRows(ids.other, intervals(D1)),
      ],
    });
    await foldPending(t.db);
    scoped = await userOfGrid(t, grid.region, [COLLECTION_REPORT_RES.page]);
  });
  afterAll(() => t.close());

  it('expects of a day the intervals that have ended: a past day all 96, today those up to now', () => {
    expect(intervalsDue('2026-01-01', new Date('2026-01-01T01:07:00Z'))).toBe(4);
    expect(intervalsDue('2026-01-01', new Date('2026-01-01T00:14:59Z'))).toBe(0);
    expect(intervalsDue('2026-01-01', new Date('2026-01-02T00:00:00Z'))).toBe(96);
    expect(intervalsDue('2026-01-01', new Date('2026-03-01T00:00:00Z'))).toBe(96);
  });

  it('counts expected and stored intervals per day of a subtree, from the rollups', async () => {
    const res = await t.call<ReportDaily>('/collectionreport/daily', { gridId: grid.region, ...PERIOD }, admin);
    expect(res.status).toBe(200);
    // Six meters expected (the warehouse meter is not in service): 576 intervals a day.
    expect(res.body.data).toEqual({
      startDay: D1,
      endDay: D2,
      days: [
        { day: D1, meters: 6, expected: 576, stored: 384, successRate: 66.7, metersComplete: 4 },
        { day: D2, meters: 6, expected: 576, stored: 240, successRate: 41.7, metersComplete: 2 },
      ],
    });
    // The scoped user's default node is their scope root; the default period is the last 7 days.
    const mine = await t.call<ReportDaily>('/collectionreport/daily', {}, scoped);
    expect(mine.body.data.days.map((d) => d.day)).toEqual([6, 5, 4, 3, 2, 1, 0].map(daysAgo));
    expect(mine.body.data.days.find((d) => d.day === D1)).toMatchObject({ meters: 6, stored: 384 });
    // Today expects only the intervals that have ended: none of them is a reading that cannot exist yet.
    const dueBefore = intervalsDue(TODAY, new Date());
    const today = await t.call<ReportDaily>(
      '/collectionreport/daily',
      { gridId: grid.region, startDay: TODAY, endDay: TODAY },
      admin,
    );
    const dueAfter = intervalsDue(TODAY, new Date());
    expect([6 * dueBefore, 6 * dueAfter]).toContain(today.body.data.days[0]?.expected);
  });

  it('breaks a day down by child grid node (with their subtrees) and the node’s own meters, newest day first', async () => {
    const res = await t.call<Page<ReportGridRow>>(
      '/collectionreport/bygrid',
      { gridId: grid.region, ...PERIOD, pageSize: 10 },
      admin,
    );
    expect(res.body.data.total).toBe(6);
    expect(
      res.body.data.list.map((r) => [
        r.day,
        r.gridName,
        r.own,
        r.meters,
        r.expected,
        r.stored,
        r.successRate,
        r.metersComplete,
      ]),
    ).toEqual([
      [D2, 'Report region', true, 1, 96, 96, 100, 1],
      [D2, 'Alpha feeder', false, 2, 192, 144, 75, 1],
      [D2, 'Beta feeder', false, 3, 288, 0, 0, 0],
      [D1, 'Report region', true, 1, 96, 96, 100, 1],
      [D1, 'Alpha feeder', false, 2, 192, 192, 100, 2],
      [D1, 'Beta feeder', false, 3, 288, 96, 33.3, 1],
    ]);
    const second = await t.call<Page<ReportGridRow>>(
      '/collectionreport/bygrid',
      { gridId: grid.region, ...PERIOD, pageSize: 2, curPage: 2 },
      admin,
    );
    expect(second.body.data.list.map((r) => [r.day, r.gridName])).toEqual([
      [D2, 'Beta feeder'],
      [D1, 'Report region'],
    ]);
    const leaf = await t.call<Page<ReportGridRow>>(
      '/collectionreport/bygrid',
      { gridId: grid.alpha1, ...PERIOD },
      admin,
    );
    expect(leaf.body.data.list.map((r) => [r.day, r.own, r.stored])).toEqual([
      [D2, true, 48],
      [D1, true, 96],
    ]);
  });

  it('breaks a day down by DCU, counting all of its meters', async () => {
    const res = await t.call<Page<ReportDcuRow>>('/collectionreport/bydcu', { gridId: grid.region, ...PERIOD }, admin);
    expect(res.body.data.total).toBe(4);
    expect(
      res.body.data.list.map((r) => [r.day, r.dcuNo, r.gridName, r.meters, r.stored, r.successRate, r.metersComplete]),
    ).toEqual([
      [D2, d1.dcuNo, 'Alpha feeder', 3, 240, 83.3, 2],
      [D2, d2.dcuNo, 'Beta feeder', 2, 0, 0, 0],
      [D1, d1.dcuNo, 'Alpha feeder', 3, 288, 100, 3],
      [D1, d2.dcuNo, 'Beta feeder', 2, 96, 50, 1],
    ]);
    const beta = await t.call<Page<ReportDcuRow>>('/collectionreport/bydcu', { gridId: grid.beta, ...PERIOD }, admin);
    expect(beta.body.data.list.map((r) => r.dcuNo)).toEqual([d2.dcuNo, d2.dcuNo]);
  });

  it('lists meters in service never read, and those that stopped reading', async () => {
    const never = await t.call<Page<ReportMeterRow>>('/collectionreport/neverread', { gridId: grid.region }, admin);
    expect(never.body.data.list).toEqual([
      expect.objectContaining({
        devAddr: serial.direct,
        dcuNo: null,
        gridName: 'Beta feeder',
        status: 2,
        lastDay: null,
      }),
    ]);
    const stopped = await t.call<Page<ReportMeterRow>>('/collectionreport/stopped', { gridId: grid.region }, admin);
    expect(stopped.body.data.list.map((m) => [m.devAddr, m.dcuNo, m.gridName, m.status, m.lastDay])).toEqual([
      [serial.beta2, d2.dcuNo, 'Beta feeder', 3, daysAgo(10)],
    ]);
    // One day without: a meter last read the day before yesterday has stopped too.
    const oneDay = await t.call<Page<ReportMeterRow>>(
      '/collectionreport/stopped',
      { gridId: grid.region, days: 1 },
      admin,
    );
    expect(oneDay.body.data.list.map((m) => [m.devAddr, m.lastDay]).sort()).toEqual(
      [
        [serial.beta1, D1],
        [serial.beta2, daysAgo(10)],
      ].sort(),
    );
    expect(oneDay.body.data.total).toBe(2);
    const paged = await t.call<Page<ReportMeterRow>>(
      '/collectionreport/stopped',
      { gridId: grid.region, days: 1, pageSize: 1, curPage: 2 },
      admin,
    );
    expect(paged.body.data).toMatchObject({ total: 2, curPage: 2, pageSize: 1 });
    expect(paged.body.data.list).toHaveLength(1);
  });

  it("keeps to the caller's grid scope: another region's node is 404 and its meters are absent", async () => {
    expect((await t.call('/collectionreport/daily', { gridId: grid.other }, scoped)).status).toBe(404);
    expect((await t.call('/collectionreport/bydcu', { gridId: grid.other }, scoped)).status).toBe(404);
    expect((await t.call('/collectionreport/neverread', { gridId: grid.other }, scoped)).status).toBe(404);
    expect((await t.call('/collectionreport/daily', { gridId: 'f'.repeat(32) }, admin)).status).toBe(404);
    const mine = await t.call<Page<ReportMeterRow>>('/collectionreport/neverread', {}, scoped);
    expect(mine.body.data.list.map((m) => m.devAddr)).toEqual([serial.direct]);
    const everyone = await t.call<Page<ReportMeterRow>>('/collectionreport/neverread', { pageSize: 500 }, admin);
    expect(everyone.body.data.list.map((m) => m.devAddr)).toEqual(
      expect.arrayContaining([serial.direct, serial.otherSilent]),
    );
    const byGrid = await t.call<Page<ReportGridRow>>('/collectionreport/bygrid', PERIOD, scoped);
    expect(new Set(byGrid.body.data.list.map((r) => r.gridName))).toEqual(new Set(['Report region']));
    // Exports need the export button.
    expect((await t.call('/collectionreport/export', { table: 'daily' }, scoped)).status).toBe(403);
  });

  it('refuses a bad period, node or day count with 400 naming the field', async () => {
    const refused = async (path: string, body: object) => {
      const res = await t.call(path, body, admin);
      expect(res.status, JSON.stringify(body)).toBe(400);
      return fieldIssues(res.body);
    };
    expect(await refused('/collectionreport/daily', { startDay: daysAgo(31), endDay: TODAY })).toEqual([
      ['endDay', 'timeRangeTooLong'],
    ]);
    expect(await refused('/collectionreport/daily', { startDay: TODAY, endDay: daysAgo(-1) })).toEqual([
      ['endDay', 'dateAfterToday'],
    ]);
    expect(await refused('/collectionreport/bygrid', { startDay: D2, endDay: D1 })).toEqual([
      ['startDay', 'timeRangeInvalid'],
    ]);
    expect(await refused('/collectionreport/bydcu', { startDay: D1 })).toEqual([['endDay', 'mandatory']]);
    expect(await refused('/collectionreport/daily', { startDay: '2026-02-30', endDay: D2 })).toEqual([
      ['startDay', 'invalidDate'],
    ]);
    expect((await refused('/collectionreport/daily', { gridId: 'not-a-node' }))[0]?.[0]).toBe('gridId');
    expect((await refused('/collectionreport/stopped', { days: 0 }))[0]?.[0]).toBe('days');
    expect((await refused('/collectionreport/stopped', { days: 'three' }))[0]?.[0]).toBe('days');
    expect((await refused('/collectionreport/neverread', { pageSize: 0 }))[0]?.[0]).toBe('pageSize');
    expect((await refused('/collectionreport/export', { table: 'everything' }))[0]?.[0]).toBe('table');
    expect(await refused('/collectionreport/export', { table: 'grid', startDay: daysAgo(40), endDay: D2 })).toEqual([
      ['endDay', 'timeRangeTooLong'],
    ]);
    expect(fieldIssues((await t.call('/collectionreport/daily', [], admin)).body).length).toBeGreaterThan(0);
  });

  const download = async (body: object) => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/apis/collectionreport/export',
      payload: body,
      headers: { cookie: admin },
    });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    return res;
  };

  it('exports each table as a spreadsheet', async () => {
    const rowsOf = async (body: object) => {
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load((await download(body)).rawPayload as unknown as ArrayBuffer);
      const rows: unknown[][] = [];
      workbook.worksheets[0]?.eachRow((row) => {
        rows.push((row.values as unknown[]).slice(1));
      });
      return rows;
    };
    expect(await rowsOf({ table: 'grid', gridId: grid.region, ...PERIOD })).toEqual([
      [
        'Day (UTC)',
        'Grid node',
        'Meters expected',
        'Intervals expected',
        'Intervals stored',
        'Success rate (%)',
        'Meters fully read',
      ],
      [D2, 'Report region (own meters)', 1, 96, 96, 100, 1],
      [D2, 'Alpha feeder', 2, 192, 144, 75, 1],
      [D2, 'Beta feeder', 3, 288, 0, 0, 0],
      [D1, 'Report region (own meters)', 1, 96, 96, 100, 1],
      [D1, 'Alpha feeder', 2, 192, 192, 100, 2],
      [D1, 'Beta feeder', 3, 288, 96, 33.3, 1],
    ]);
    expect(await rowsOf({ table: 'daily', gridId: grid.region, ...PERIOD })).toEqual([
      [
        'Day (UTC)',
        'Meters expected',
        'Intervals expected',
        'Intervals stored',
        'Success rate (%)',
        'Meters fully read',
      ],
      [D1, 6, 576, 384, 66.7, 4],
      [D2, 6, 576, 240, 41.7, 2],
    ]);
    expect((await rowsOf({ table: 'dcu', gridId: grid.region, ...PERIOD })).slice(1).map((r) => r.slice(0, 2))).toEqual(
      [
        [D2, d1.dcuNo],
        [D2, d2.dcuNo],
        [D1, d1.dcuNo],
        [D1, d2.dcuNo],
      ],
    );
    expect(await rowsOf({ table: 'stopped', gridId: grid.region })).toEqual([
      ['Meter serial', 'DCU', 'Grid node', 'Module type', 'Supplier', 'Status', 'Last reading day (UTC)'],
      [serial.beta2, d2.dcuNo, 'Beta feeder', undefined, undefined, 'Anomaly', daysAgo(10)],
    ]);
    const never = await rowsOf({ table: 'neverRead', gridId: grid.region });
    expect(never).toEqual([
      ['Meter serial', 'DCU', 'Grid node', 'Module type', 'Supplier', 'Status'],
      // A direct meter has no DCU: the cell is left empty.
      [serial.direct, undefined, 'Beta feeder', undefined, undefined, 'Activated'],
    ]);
  });

  it('exports a table as a PDF whose text reads as the screen', async () => {
    const res = await download({ table: 'daily', gridId: grid.region, ...PERIOD, format: 'pdf' });
    expect(res.headers['content-type']).toBe('application/pdf');
    const text = pdfText(res.rawPayload);
    expect(text).toContain('Collection by day');
    expect(text).toContain(`Report region, ${D1} to ${D2}`);
    const d1Line = text.split('\n').find((line) => line.includes(D1) && !line.includes('to'));
    expect(d1Line?.trim().split(/\s+/)).toEqual([D1, '6', '576', '384', '66.7', '4']);

    const stopped = pdfText((await download({ table: 'stopped', gridId: grid.region, format: 'pdf' })).rawPayload);
    expect(stopped).toContain('Meters stopped reading');
    expect(stopped).toContain('nothing stored for 3 days');
    expect(stopped).toContain(serial.beta2);
    expect(stopped).not.toContain(serial.direct);
  });
});
