import {
  addMonths,
  type MonthlyBillingRow,
  type MonthlyConsumptionRow,
  monthlyBillingApi,
  monthlyBillingDetailApi,
  monthlyConsumptionApi,
  monthlyConsumptionDetailApi,
  utcToday,
} from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { file, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const CONSUMPTION = '/dataAnalytic/monthlyConsumption';
const BILLING = '/dataAnalytic/monthlyBilling';
const METER = 'a'.repeat(32);
const thisMonth = utcToday().slice(0, 7);
const meter = {
  meterId: METER,
  devAddr: 'MTR0001',
  gridId: 'b'.repeat(32),
  gridName: 'Area 1',
  dcuId: null,
  dcuNo: null,
  consumerType: 'residential' as const,
};
const month = (m: string, consumption: number | null): MonthlyConsumptionRow => ({
  ...meter,
  month: m,
  consumption,
  daysKnown: consumption === null ? 0 : 30,
  monthDays: 30,
  dailyAverage: consumption === null ? null : consumption / 30,
  demandMax: null,
});
const page = <R,>(list: R[]) => ok({ list, total: list.length, curPage: 1, pageSize: 10 });

afterEach(() => vi.restoreAllMocks());

describe('monthly consumption', () => {
  it("lists a meter's months as rows of their own and opens the meter on the months shown", async () => {
    const user = userEvent.setup();
    const period = { startMonth: '2026-01', endMonth: '2026-02' };
    const api = stubApi({
      [monthlyConsumptionApi.list.path]: () => page([month('2026-01', 310.5), month('2026-02', null)]),
      [monthlyConsumptionApi.summary.path]: () =>
        ok({
          figures: { meters: 1, consumption: 310.5, monthlyAverage: 310.5, peakMonth: '2026-01' },
          points: [
            { month: '2026-01', consumption: 310.5 },
            { month: '2026-02', consumption: null },
          ],
        }),
      [monthlyConsumptionDetailApi.list.path]: () => page([]),
      [monthlyConsumptionDetailApi.summary.path]: () =>
        ok({ figures: { devAddr: 'MTR0001', consumption: 310.5, monthlyAverage: 310.5, demandMax: null }, points: [] }),
    });
    renderInShell(
      permittedTree([CONSUMPTION, `${CONSUMPTION}/detail`]),
      `${CONSUMPTION}?${new URLSearchParams(period)}`,
    );
    const january = (await screen.findByText('310.5', { selector: 'td *, td' })).closest('tr') as HTMLElement;
    expect(within(january).getByText('2026-01')).toBeTruthy();
    expect(screen.getByText('2026-02', { selector: 'td *, td' })).toBeTruthy();
    expect(api.callsTo(monthlyConsumptionApi.list.path)[0]?.body).toMatchObject(period);
    expect(within(screen.getByTestId('analytics-summary-monthlyConsumption')).getByText('Highest month')).toBeTruthy();

    await user.click(within(january).getByTestId(`row-detail-${METER}/2026-01`));
    await waitFor(() => expect(api.callsTo(monthlyConsumptionDetailApi.summary.path)).toHaveLength(1));
    expect(api.callsTo(monthlyConsumptionDetailApi.summary.path)[0]?.body).toEqual({ meterId: METER, ...period });
    expect((await screen.findByTestId('analytics-detail-title')).textContent).toBe(
      'Monthly consumption of meter MTR0001',
    );
  });
});

const billed = (frozen: boolean): MonthlyBillingRow => ({
  ...meter,
  month: addMonths(thisMonth, -1),
  frozen,
  activeImport: frozen ? 1200 : null,
  activeImportT1: frozen ? 700 : null,
  activeImportT2: frozen ? 500 : null,
  activeImportT3: null,
  activeImportT4: null,
  activeExport: null,
  reactiveImport: null,
  reactiveExport: null,
  maxDemand: frozen ? 4.2 : null,
  energy: frozen ? 98.7 : null,
});

describe('monthly billing', () => {
  it('shows the last billing month by default, exports it and opens the year up to it', async () => {
    vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:export');
    vi.spyOn(URL, 'revokeObjectURL').mockReturnValue(undefined);
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const user = userEvent.setup();
    const last = addMonths(thisMonth, -1);
    const api = stubApi({
      [monthlyBillingApi.list.path]: () => page([billed(true)]),
      [monthlyBillingApi.summary.path]: () =>
        ok({
          figures: { meters: 1, metersFrozen: 1, metersNotFrozen: 0, energy: 98.7, maxDemand: 4.2 },
          points: [
            { rate: 'T1', energy: 60 },
            { rate: 'T2', energy: 38.7 },
          ],
        }),
      [monthlyBillingApi.export.path]: () => file('%PDF-1.3', 'application/pdf', 'billing.pdf'),
      [monthlyBillingDetailApi.list.path]: () => page([]),
      [monthlyBillingDetailApi.summary.path]: () =>
        ok({ figures: { devAddr: 'MTR0001', monthsFrozen: 1, energy: 98.7, maxDemand: 4.2 }, points: [] }),
    });
    renderInShell(permittedTree([BILLING, `${BILLING}/detail`, `${BILLING}/export`]), BILLING);
    const row = (await screen.findByText('98.7', { selector: 'td *, td' })).closest('tr') as HTMLElement;
    expect(within(row).getByText('Yes')).toBeTruthy();
    const period = { startMonth: last, endMonth: last };
    expect(api.callsTo(monthlyBillingApi.summary.path)[0]?.body).toEqual(period);

    await user.click(screen.getByTestId('crud-export'));
    await user.click(await screen.findByTestId('export-format-pdf'));
    await user.click(screen.getByTestId('export-ok'));
    await waitFor(() => expect(api.callsTo(monthlyBillingApi.export.path)).toHaveLength(1));
    expect(api.callsTo(monthlyBillingApi.export.path)[0]?.body).toMatchObject({ ...period, format: 'pdf' });

    await user.click(within(row).getByTestId(`row-detail-${METER}`));
    await waitFor(() => expect(api.callsTo(monthlyBillingDetailApi.summary.path)).toHaveLength(1));
    expect(api.callsTo(monthlyBillingDetailApi.summary.path)[0]?.body).toEqual({
      meterId: METER,
      startMonth: addMonths(last, -11),
      endMonth: last,
    });
  });
});
