import { consumptionApi, consumptionDetailApi, utcToday } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { fail, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const PAGE = '/dataAnalytic/consumptionData';
const DETAIL = `${PAGE}/detail`;
const METER = 'a'.repeat(32);
const day = (offset: number) =>
  new Date(Date.parse(`${utcToday()}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

const row = {
  meterId: METER,
  devAddr: 'MTR0001',
  gridId: 'b'.repeat(32),
  gridName: 'Area 1',
  dcuId: null,
  dcuNo: null,
  consumerType: 'residential',
  consumption: 12.5,
  daysKnown: 7,
  dailyAverage: 1.786,
  demandMax: 3.2,
};
const summary = {
  figures: { meters: 1, consumption: 12.5, dailyAverage: 1.786, peakDay: day(-1) },
  points: [
    { day: day(-1), consumption: 2 },
    { day: day(0), consumption: null },
  ],
};

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  applyLanguage('en');
});

describe('an analytics page (the kit, on consumption data)', () => {
  it('asks for the default period in UTC days, shows the summary, the chart and the rows, and opens a meter with that period', async () => {
    const api = stubApi({
      [consumptionApi.list.path]: () => ok({ list: [row], total: 1, curPage: 1, pageSize: 10 }),
      [consumptionApi.summary.path]: () => ok(summary),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([PAGE, DETAIL, `${PAGE}/export`]), PAGE);

    const tableRow = (await screen.findByText('MTR0001')).closest('tr') as HTMLElement;
    expect(within(tableRow).getByText('12.5')).toBeTruthy();
    const period = { startDay: day(-6), endDay: day(0) };
    expect(api.callsTo(consumptionApi.list.path)[0]?.body).toMatchObject(period);
    expect(api.callsTo(consumptionApi.summary.path)[0]?.body).toEqual(period);
    const strip = screen.getByTestId('analytics-summary-consumption');
    await waitFor(() => expect(within(strip).getByText('Highest day')).toBeTruthy());
    expect(within(strip).getByText(day(-1))).toBeTruthy();
    expect(screen.getByTestId('analytics-chart-consumption')).toBeTruthy();

    await user.click(within(tableRow).getByTestId(`row-detail-${METER}`));
    await waitFor(() => expect(api.callsTo(consumptionDetailApi.summary.path)).toHaveLength(1));
    expect(api.callsTo(consumptionDetailApi.summary.path)[0]?.body).toEqual({ meterId: METER, ...period });
  });

  it('writes the figures of the table as the summary strip writes them', async () => {
    const big = { ...row, consumption: 61458.002, dailyAverage: 8779.71457, daysKnown: 1200 };
    stubApi({
      [consumptionApi.list.path]: () => ok({ list: [big], total: 1, curPage: 1, pageSize: 10 }),
      [consumptionApi.summary.path]: () =>
        ok({ ...summary, figures: { ...summary.figures, consumption: 61458.002, dailyAverage: 8779.71457 } }),
    });
    renderInShell(permittedTree([PAGE]), PAGE);
    const tableRow = (await screen.findByText('MTR0001')).closest('tr') as HTMLElement;
    expect(within(tableRow).getByText('61,458.002')).toBeTruthy();
    expect(within(tableRow).getByText('8,779.715')).toBeTruthy();
    expect(within(tableRow).getByText('1,200')).toBeTruthy();
    const strip = screen.getByTestId('analytics-summary-consumption');
    await waitFor(() => expect(within(strip).getByText('61,458.002')).toBeTruthy());
    expect(within(strip).getByText('8,779.715')).toBeTruthy();
  });

  it('says there is no data rather than drawing an empty chart', async () => {
    stubApi({
      [consumptionApi.list.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
      [consumptionApi.summary.path]: () =>
        ok({
          figures: { meters: 0, consumption: null, dailyAverage: null, peakDay: null },
          points: [{ day: day(0), consumption: null }],
        }),
    });
    renderInShell(permittedTree([PAGE]), PAGE);
    const chart = await screen.findByTestId('analytics-chart-consumption');
    expect(chart.getAttribute('data-state')).toBe('empty');
    expect(within(chart).getByText('No data for this period')).toBeTruthy();
    // Without the detail page a row offers no drill-down.
    expect(await screen.findByText('No records')).toBeTruthy();
  });

  it("shows the server's refusal of the summary where the figures would be", async () => {
    stubApi({
      [consumptionApi.list.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
      [consumptionApi.summary.path]: () => ({ status: 404, body: { code: 404, msg: 'notFound', data: null } }),
    });
    renderInShell(permittedTree([PAGE]), PAGE);
    await screen.findByText('No records');
    const strip = screen.getByTestId('analytics-summary-consumption');
    expect(await within(strip).findByText('Record not found', {}, { timeout: 15_000 })).toBeTruthy();
  });

  it.each([
    ['en', 'No meter with this serial'],
    ['zh', '没有此表号的电表'],
  ] as const)('says once, at the Meter SN filter, that a serial matches no meter (%s)', async (language, text) => {
    applyLanguage(language);
    // The server's answer to a serial it finds no meter for (kit.ts resolvePlace), to both calls.
    const unknown = () =>
      fail(404, 'notFound', { issues: [{ field: 'devAddr', key: 'notFound', message: 'Record not found' }] });
    stubApi({ [consumptionApi.list.path]: unknown, [consumptionApi.summary.path]: unknown });
    renderInShell(permittedTree([PAGE]), `${PAGE}?devAddr=2104000100`);

    expect(await screen.findByText(text)).toBeTruthy();
    const field = screen.getByText(text).closest('.ant-form-item') as HTMLElement;
    expect(within(field).getByDisplayValue('2104000100')).toBeTruthy();
    expect(screen.getAllByText(text)).toHaveLength(1);
    expect(screen.queryByText(language === 'en' ? 'Record not found' : '记录不存在')).toBeNull();
    expect(document.querySelector('.ant-alert-error')).toBeNull();
    expect(screen.queryByRole('button', { name: language === 'en' ? 'Retry' : '重试' })).toBeNull();
    expect(document.querySelectorAll('.ant-table-tbody tr.ant-table-row')).toHaveLength(0);
    expect(within(screen.getByTestId('analytics-summary-consumption')).getAllByText('–').length).toBeGreaterThan(0);
  });

  it('says at the grid node filter that a node is unknown or outside the scope (from a link)', async () => {
    const unknown = () =>
      fail(404, 'notFound', { issues: [{ field: 'gridId', key: 'notFound', message: 'Record not found' }] });
    stubApi({ [consumptionApi.list.path]: unknown, [consumptionApi.summary.path]: unknown });
    renderInShell(permittedTree([PAGE]), `${PAGE}?gridId=${'c'.repeat(32)}`);
    expect(await screen.findByText('This grid node does not exist or lies outside your data scope')).toBeTruthy();
    expect(document.querySelector('.ant-alert-error')).toBeNull();
  });

  it('takes a period from the URL only when the server would, else the default one', async () => {
    const api = stubApi({
      [consumptionApi.list.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
      [consumptionApi.summary.path]: () => ok(summary),
    });
    renderInShell(permittedTree([PAGE]), `${PAGE}?startDay=${day(-40)}&endDay=${day(0)}`);
    await waitFor(() => expect(api.callsTo(consumptionApi.summary.path)).toHaveLength(1));
    expect(api.callsTo(consumptionApi.summary.path)[0]?.body).toEqual({ startDay: day(-6), endDay: day(0) });
  });

  it('sends a detail without its meter back to the list', async () => {
    stubApi({});
    renderInShell(permittedTree([PAGE, DETAIL]), DETAIL);
    expect(await screen.findByTestId('analytics-detail-missing')).toBeTruthy();
  });
});
