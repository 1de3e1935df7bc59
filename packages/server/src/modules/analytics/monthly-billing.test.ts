import {
  ACTIVE_IMPORT_RATES,
  addMonths,
  MONTHLY_BILLING_RES,
  type MonthlyBillingMonthRow,
  type MonthlyBillingRow,
  OBIS,
  type Page,
} from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldPending } from '../../readings/rollups';
import { monthlyRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { exportedRows, gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';

const THIS_MONTH = new Date().toISOString().slice(0, 7);
const M1 = addMonths(THIS_MONTH, -1);
const M2 = addMonths(THIS_MONTH, -2);
/** A billing freeze of `month` (Wh, W), captured at 00:00 of the month after it. */
const freeze = (month: string, total: number, rates: [number, number, number, number], maxDemand = 3000) => ({
  ts: `${addMonths(month, 1)}-01T00:00:00.000Z`,
  values: {
    [OBIS.activeImport]: total,
    ...Object.fromEntries(ACTIVE_IMPORT_RATES.map((obis, i) => [obis, rates[i]])),
    [OBIS.activeExport]: 100,
    [OBIS.reactiveImport]: 500,
    [OBIS.reactiveExport]: 50,
    [OBIS.maxDemand]: maxDemand,
  },
});
const BILLING = { startMonth: M1, endMonth: M1 };

describe('monthly billing analytics', () => {
  let t: TestApp;
  let admin: string;
  let scoped: string;
  let area: string;
  const m: Record<'a' | 'b' | 'c', { id: string; devAddr: string }> = {} as never;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    area = await gridNode(t);
    const other = await gridNode(t);
    m.a = await meterAt(t, area);
    m.b = await meterAt(t, area);
    m.c = await meterAt(t, other);
    await new ReadingWriter(t.database).write({
      monthly: [
        // a: frozen for M2 and M1 (it billed 3 kWh in M1); b: only M2 (M1 not yet frozen); c: another grid.
        ...monthlyRows(m.a.id, [
          freeze(M2, 10_000, [4000, 3000, 2000, 1000]),
          freeze(M1, 13_000, [5000, 4000, 2500, 1500], 3500),
        ]),
        ...monthlyRows(m.b.id, [freeze(M2, 5000, [5000, 0, 0, 0])]),
        ...monthlyRows(m.c.id, [freeze(M2, 90_000, [90_000, 0, 0, 0]), freeze(M1, 99_000, [99_000, 0, 0, 0], 9000)]),
      ],
    });
    await foldPending(t.db);
    scoped = await userOfGrid(t, area, [
      MONTHLY_BILLING_RES.page,
      MONTHLY_BILLING_RES.detail,
      MONTHLY_BILLING_RES.export,
    ]);
  });
  afterAll(() => t.close());

  it("lists each meter's freeze of the billing month per tariff rate, a meter not yet frozen with empty registers", async () => {
    const res = await t.call<Page<MonthlyBillingRow>>('/analytics/monthlyBilling/list', BILLING, scoped);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.total).toBe(2);
    const rows = Object.fromEntries(res.body.data.list.map((r) => [r.devAddr, r]));
    expect(rows[m.a.devAddr]).toMatchObject({
      month: M1,
      frozen: true,
      activeImport: 13,
      activeImportT1: 5,
      activeImportT2: 4,
      activeImportT3: 2.5,
      activeImportT4: 1.5,
      activeExport: 0.1,
      reactiveImport: 0.5,
      reactiveExport: 0.05,
      maxDemand: 3.5,
      energy: 3,
    });
    expect(rows[m.b.devAddr]).toMatchObject({ frozen: false, activeImport: null, activeImportT1: null, energy: null });

    const notFrozen = await t.call<Page<MonthlyBillingRow>>(
      '/analytics/monthlyBilling/list',
      { ...BILLING, frozen: 'false' },
      scoped,
    );
    expect(notFrozen.body.data.list.map((r) => r.devAddr)).toEqual([m.b.devAddr]);
    const byEnergy = await t.call<Page<MonthlyBillingRow>>(
      '/analytics/monthlyBilling/list',
      { ...BILLING, sortField: 'energy', sortOrder: 'descend' },
      scoped,
    );
    expect(byEnergy.body.data.list.map((r) => [r.devAddr, r.energy])).toEqual([
      [m.a.devAddr, 3],
      [m.b.devAddr, null],
    ]);
    // The default month is the last one ended: this month is frozen only once it is over.
    const byDefault = await t.call<Page<MonthlyBillingRow>>('/analytics/monthlyBilling/list', {}, scoped);
    expect(new Set(byDefault.body.data.list.map((r) => r.month))).toEqual(new Set([M1]));
  });

  it('sums the billing month over the scope, per tariff rate for the chart; this month is not frozen yet', async () => {
    const res = await t.call<{ figures: unknown; points: unknown }>(
      '/analytics/monthlyBilling/summary',
      BILLING,
      scoped,
    );
    expect(res.body.data).toEqual({
      figures: { meters: 2, metersFrozen: 1, metersNotFrozen: 1, energy: 3, maxDemand: 3.5 },
      points: [
        { rate: 'T1', energy: 1 },
        { rate: 'T2', energy: 1 },
        { rate: 'T3', energy: 0.5 },
        { rate: 'T4', energy: 0.5 },
      ],
    });
    // The same figures from the meters' rows when the request narrows to some of them.
    const narrowed = await t.call<{ figures: unknown }>(
      '/analytics/monthlyBilling/summary',
      { ...BILLING, frozen: true },
      scoped,
    );
    expect(narrowed.body.data.figures).toEqual({
      meters: 1,
      metersFrozen: 1,
      metersNotFrozen: 0,
      energy: 3,
      maxDemand: 3.5,
    });
    const current = await t.call<{ figures: unknown }>(
      '/analytics/monthlyBilling/summary',
      { startMonth: THIS_MONTH, endMonth: THIS_MONTH },
      scoped,
    );
    expect(current.body.data.figures).toMatchObject({ meters: 2, metersFrozen: 0, metersNotFrozen: 2, energy: null });
    const everything = await t.call<{ figures: unknown }>('/analytics/monthlyBilling/summary', BILLING, admin);
    expect(everything.body.data.figures).toMatchObject({ metersFrozen: 2, energy: 12, maxDemand: 9 });
  });

  it('takes one billing month, and refuses others before reading anything', async () => {
    const cases: [object, [string, string]][] = [
      [{ startMonth: M2, endMonth: M1 }, ['endMonth', 'timeRangeTooLong']],
      [{ startMonth: addMonths(THIS_MONTH, 1), endMonth: addMonths(THIS_MONTH, 1) }, ['endMonth', 'dateAfterToday']],
      [{ ...BILLING, frozen: 'maybe' }, ['frozen', 'invalidValue']],
      [{ ...BILLING, devAddr: m.c.devAddr }, ['devAddr', 'notFound']],
    ];
    for (const [body, issue] of cases) {
      const res = await t.call('/analytics/monthlyBilling/list', body, scoped);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(fieldIssues(res.body)).toContainEqual(issue);
    }
  });

  it("shows one meter's billing months, a month without a freeze included", async () => {
    const res = await t.call<Page<MonthlyBillingMonthRow>>(
      '/analytics/monthlyBillingDetail/list',
      { startMonth: addMonths(THIS_MONTH, -3), endMonth: THIS_MONTH, meterId: m.a.id },
      scoped,
    );
    expect(res.body.data.total).toBe(4);
    expect(res.body.data.list.map((r) => [r.month, r.frozen, r.activeImport, r.energy])).toEqual([
      [THIS_MONTH, false, null, null],
      [M1, true, 13, 3],
      [M2, true, 10, null],
      [addMonths(THIS_MONTH, -3), false, null, null],
    ]);
    const summary = await t.call<{ figures: unknown; points: { month: string; energyT1: number | null }[] }>(
      '/analytics/monthlyBillingDetail/summary',
      { startMonth: M2, endMonth: M1, meterId: m.a.id },
      scoped,
    );
    expect(summary.body.data.figures).toEqual({ devAddr: m.a.devAddr, monthsFrozen: 2, energy: 3, maxDemand: 3.5 });
    expect(summary.body.data.points.map((p) => [p.month, p.energyT1])).toEqual([
      [M2, null],
      [M1, 1],
    ]);
    const outside = await t.call('/analytics/monthlyBillingDetail/list', { ...BILLING, meterId: m.c.id }, scoped);
    expect(outside.status).toBe(404);
  });

  it('exports the registers of the billing month', async () => {
    const rows = await exportedRows(t, 'analytics/monthlyBilling', scoped, {
      ...BILLING,
      columns: ['devAddr', 'frozen', 'activeImportT1', 'energy'],
    });
    expect(rows[0]).toEqual(['Meter SN', 'Frozen', 'T1 (kWh)', 'Energy of the month (kWh)']);
    expect(rows.slice(1)).toEqual(
      expect.arrayContaining([
        [m.a.devAddr, 'Yes', 5, 3],
        [m.b.devAddr, 'No'],
      ]),
    );
  });
});
