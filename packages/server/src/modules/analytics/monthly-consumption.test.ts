import {
  addMonths,
  MONTHLY_CONSUMPTION_RES,
  type MonthlyConsumptionMonthRow,
  type MonthlyConsumptionRow,
  OBIS,
  type Page,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sysUser } from '../../db/schema';
import { foldPending } from '../../readings/rollups';
import { dailyRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { dcuAt, exportedRows, gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { pdfText } from '../../test/pdf-text';

const THIS_MONTH = new Date().toISOString().slice(0, 7);
const M1 = addMonths(THIS_MONTH, -1);
const M2 = addMonths(THIS_MONTH, -2);
const daysIn = (month: string) =>
  new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();
const lastDay = (month: string) => `${month}-${daysIn(month)}`;
const day = (month: string, n: number) => `${month}-${String(n).padStart(2, '0')}`;
/** The active import register frozen at the end of `d` (Wh). */
const frozen = (d: string, activeImport: number) => ({
  ts: new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString(),
  values: { [OBIS.activeImport]: activeImport },
});
const PERIOD = { startMonth: M2, endMonth: M1 };

describe('monthly consumption analytics', () => {
  let t: TestApp;
  let admin: string;
  let scoped: string;
  let area: string;
  let other: string;
  const m: Record<'a' | 'b' | 'c', { id: string; devAddr: string }> = {} as never;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    area = await gridNode(t);
    other = await gridNode(t);
    const dcu = await dcuAt(t, area);
    m.a = await meterAt(t, area, undefined, dcu.id);
    m.b = await meterAt(t, area);
    m.c = await meterAt(t, other);
    await new ReadingWriter(t.database).write({
      daily: [
        // a: M2's last day 2 kWh; M1's 1st 1 kWh (against M2's last freeze), 2nd 2.5 kWh, 3rd missing
        // (so the 4th is unknown too), 5th 0.5 kWh: a month with missing days sums its known ones.
        ...dailyRows(m.a.id, [
          frozen(addDay(lastDay(M2), -1), 1000),
          frozen(lastDay(M2), 3000),
          frozen(day(M1, 1), 4000),
          frozen(day(M1, 2), 6500),
          frozen(day(M1, 4), 9000),
          frozen(day(M1, 5), 9500),
        ]),
        ...dailyRows(m.b.id, [frozen(day(M1, 1), 100), frozen(day(M1, 2), 1100)]),
        ...dailyRows(m.c.id, [frozen(day(M1, 1), 0), frozen(day(M1, 2), 9000)]),
      ],
    });
    await foldPending(t.db);
    scoped = await userOfGrid(t, area, [
      MONTHLY_CONSUMPTION_RES.page,
      MONTHLY_CONSUMPTION_RES.detail,
      MONTHLY_CONSUMPTION_RES.export,
    ]);
  });
  afterAll(() => t.close());

  it('lists every meter of the scope for every month of the period, a month with missing days summing its known ones', async () => {
    const res = await t.call<Page<MonthlyConsumptionRow>>('/analytics/monthlyConsumption/list', PERIOD, scoped);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Two meters × two months; the other grid's meter never counts.
    expect(res.body.data.total).toBe(4);
    const rows = Object.fromEntries(res.body.data.list.map((r) => [`${r.devAddr} ${r.month}`, r]));
    expect(rows[`${m.a.devAddr} ${M2}`]).toMatchObject({ consumption: 2, daysKnown: 1, monthDays: daysIn(M2) });
    expect(rows[`${m.a.devAddr} ${M1}`]).toMatchObject({ consumption: 4, daysKnown: 3, dailyAverage: 1.333 });
    expect(rows[`${m.b.devAddr} ${M2}`]).toMatchObject({ consumption: null, daysKnown: 0 });
    expect(rows[`${m.b.devAddr} ${M1}`]).toMatchObject({ consumption: 1, daysKnown: 1, dcuNo: null });

    // A page boundary inside a meter's months: the meters are paged first, then their months.
    const all = res.body.data.list.map((r) => `${r.devAddr} ${r.month}`);
    const second = await t.call<Page<MonthlyConsumptionRow>>(
      '/analytics/monthlyConsumption/list',
      { ...PERIOD, pageSize: 3, curPage: 2 },
      scoped,
    );
    expect(second.body.data.list.map((r) => `${r.devAddr} ${r.month}`)).toEqual(all.slice(3));

    const sorted = await t.call<Page<MonthlyConsumptionRow>>(
      '/analytics/monthlyConsumption/list',
      { ...PERIOD, sortField: 'consumption', sortOrder: 'descend', pageSize: 2 },
      scoped,
    );
    expect(sorted.body.data.list.map((r) => [r.devAddr, r.month, r.consumption])).toEqual([
      [m.a.devAddr, M1, 4],
      [m.a.devAddr, M2, 2],
    ]);
    // This month is in the period too, counted up to today.
    const now = await t.call<Page<MonthlyConsumptionRow>>(
      '/analytics/monthlyConsumption/list',
      { startMonth: THIS_MONTH, endMonth: THIS_MONTH, devAddr: m.a.devAddr },
      scoped,
    );
    expect(now.body.data.list).toMatchObject([{ month: THIS_MONTH, monthDays: new Date().getUTCDate() }]);
  });

  it('sums the scope per month for the summary and the chart, from the grid month rows or the meters', async () => {
    const res = await t.call<{ figures: unknown; points: unknown }>(
      '/analytics/monthlyConsumption/summary',
      PERIOD,
      scoped,
    );
    expect(res.body.data).toEqual({
      figures: { meters: 2, consumption: 7, monthlyAverage: 3.5, peakMonth: M1 },
      points: [
        { month: M2, consumption: 2 },
        { month: M1, consumption: 5 },
      ],
    });
    const one = await t.call<{ points: { consumption: number | null }[] }>(
      '/analytics/monthlyConsumption/summary',
      { ...PERIOD, devAddr: m.b.devAddr },
      scoped,
    );
    expect(one.body.data.points.map((p) => p.consumption)).toEqual([null, 1]);
    const everything = await t.call<{ points: { consumption: number | null }[] }>(
      '/analytics/monthlyConsumption/summary',
      PERIOD,
      admin,
    );
    expect(everything.body.data.points.map((p) => p.consumption)).toEqual([2, 14]);
  });

  it('refuses a period the page does not take before reading anything, naming the field', async () => {
    const cases: [object, [string, string]][] = [
      [{ startMonth: M1, endMonth: addMonths(THIS_MONTH, 1) }, ['endMonth', 'dateAfterToday']],
      [{ startMonth: addMonths(THIS_MONTH, -12), endMonth: THIS_MONTH }, ['endMonth', 'timeRangeTooLong']],
      [{ startMonth: M1, endMonth: M2 }, ['startMonth', 'timeRangeInvalid']],
      [{ startMonth: '2026-13', endMonth: M1 }, ['startMonth', 'invalidDate']],
      [{ startMonth: M1 }, ['endMonth', 'mandatory']],
    ];
    for (const [body, issue] of cases) {
      const res = await t.call('/analytics/monthlyConsumption/list', body, scoped);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(fieldIssues(res.body)).toContainEqual(issue);
    }
    // Twelve months are the limit, this one included.
    const year = await t.call(
      '/analytics/monthlyConsumption/summary',
      { startMonth: addMonths(THIS_MONTH, -11), endMonth: THIS_MONTH },
      scoped,
    );
    expect(year.status).toBe(200);
  });

  it("shows one meter's months in the detail, within the scope", async () => {
    const res = await t.call<Page<MonthlyConsumptionMonthRow>>(
      '/analytics/monthlyConsumptionDetail/list',
      { ...PERIOD, meterId: m.a.id },
      scoped,
    );
    expect(res.body.data.list.map((r) => [r.month, r.consumption, r.daysKnown, r.monthDays])).toEqual([
      [M1, 4, 3, daysIn(M1)],
      [M2, 2, 1, daysIn(M2)],
    ]);
    const summary = await t.call<{ figures: unknown }>(
      '/analytics/monthlyConsumptionDetail/summary',
      { ...PERIOD, meterId: m.a.id },
      scoped,
    );
    expect(summary.body.data.figures).toEqual({
      devAddr: m.a.devAddr,
      consumption: 6,
      monthlyAverage: 3,
      demandMax: null,
    });
    const outside = await t.call('/analytics/monthlyConsumptionDetail/list', { ...PERIOD, meterId: m.c.id }, scoped);
    expect(outside.status).toBe(404);
    expect(fieldIssues(outside.body)).toEqual([['meterId', 'notFound']]);
    const unknownGrid = await t.call('/analytics/monthlyConsumption/list', { ...PERIOD, gridId: other }, scoped);
    expect(fieldIssues(unknownGrid.body)).toEqual([['gridId', 'notFound']]);
  });

  it('exports the months as a workbook and as a PDF that reads in Chinese', async () => {
    const rows = await exportedRows(t, 'analytics/monthlyConsumption', scoped, {
      ...PERIOD,
      columns: ['devAddr', 'month', 'consumption'],
    });
    expect(rows[0]).toEqual(['Meter SN', 'Month', 'Consumption (kWh)']);
    expect(rows.slice(1)).toEqual(expect.arrayContaining([[m.a.devAddr, M1, 4]]));
    expect(rows).toHaveLength(5);

    await t.db.update(sysUser).set({ language: 2 }).where(eq(sysUser.username, 'admin'));
    try {
      const zhAdmin = await t.loginAdmin();
      const zhRows = await exportedRows(t, 'analytics/monthlyConsumption', zhAdmin, {
        ...PERIOD,
        columns: ['devAddr', 'consumption'],
      });
      expect(zhRows[0]).toEqual(['电表编号', '用电量 (kWh)']);
      const pdf = await t.app.http.inject({
        method: 'POST',
        url: '/apis/analytics/monthlyConsumption/export',
        payload: { ...PERIOD, format: 'pdf', gridId: area },
        headers: { cookie: zhAdmin },
      });
      expect(pdf.statusCode).toBe(200);
      expect(String(pdf.headers['content-disposition'])).toContain(encodeURIComponent('月用电量'));
      const text = pdfText(pdf.rawPayload);
      expect(text).toContain('月用电量');
      expect(text).toContain('有数据的天数');
      expect(text).toContain(`${M2} – ${M1}`);
      expect(text).toContain(m.a.devAddr);
    } finally {
      await t.db.update(sysUser).set({ language: 1 }).where(eq(sysUser.username, 'admin'));
    }
  });
});

function addDay(d: string, days: number) {
  return new Date(Date.parse(`${d}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
