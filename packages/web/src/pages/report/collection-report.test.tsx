import {
  COLLECTION_REPORT_RES,
  type ReportDaily,
  type ReportGridRow,
  type ReportMeterRow,
  type SilentGroupRow,
} from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { addDays, utcToday } from '@/pages/collection/meter-data-days';
import { fail, file, ok, stubApi } from '@/test/api-stub';
import { gridNode } from '@/test/grid-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const PAGE = COLLECTION_REPORT_RES.page;
const GRID = 'a'.repeat(32);
const today = utcToday();
const figures = (meters: number, stored: number, metersComplete: number) => ({
  meters,
  expected: meters * 96,
  stored,
  successRate: meters ? Math.round((stored * 1000) / (meters * 96)) / 10 : null,
  metersComplete,
});
const daily = (meters: number): ReportDaily => ({
  startDay: addDays(today, -1),
  endDay: today,
  days: [
    { day: addDays(today, -1), ...figures(meters, meters ? 288 : 0, 2) },
    { day: today, ...figures(meters, meters ? 96 : 0, 1) },
  ],
});
const page = <T,>(list: T[]) => ({ list, total: list.length, curPage: 1, pageSize: 20 });
const ALPHA = 'c'.repeat(32);
const ALPHA_1 = 'd'.repeat(32);
/** Region › Alpha feeder › Alpha 1: the report's rows are a node's children and its own meters. */
const tree = [
  gridNode(GRID, 'Region', '0', [gridNode(ALPHA, 'Alpha feeder', GRID, [gridNode(ALPHA_1, 'Alpha 1', ALPHA)])]),
];
const childRows = (body: Record<string, unknown>): ReportGridRow[] =>
  body.gridId === ALPHA
    ? [
        { ...gridRow(true, 'Alpha feeder'), gridId: ALPHA },
        { ...gridRow(false, 'Alpha 1'), gridId: ALPHA_1 },
      ]
    : [gridRow(true, 'Region'), { ...gridRow(false, 'Alpha feeder'), gridId: ALPHA }];
const gridRow = (own: boolean, gridName: string): ReportGridRow => ({
  day: today,
  gridId: GRID,
  gridName,
  own,
  ...figures(2, 144, 1),
});
const stoppedMeter: ReportMeterRow = {
  meterId: 'b'.repeat(32),
  devAddr: 'M000123',
  dcuNo: 'DCU01',
  gridName: 'Beta feeder',
  status: 3,
  moduleType: 2,
  supplierName: 'Najd Meters',
  lastDay: addDays(today, -9),
};

describe('data collection report page', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    applyLanguage('en');
  });

  it('shows the daily success, each tab asked with the filters, and exports the shown table', async () => {
    const api = stubApi({
      '/powergrid/tree': () => ok([]),
      '/collectionreport/daily': () => ok(daily(4)),
      '/collectionreport/bygrid': () => ok(page([gridRow(true, 'Region'), gridRow(false, 'Alpha feeder')])),
      '/collectionreport/stopped': () => ok(page([stoppedMeter])),
      '/collectionreport/export': () => file('%PDF-1.7', 'application/pdf', 'report.pdf'),
    });
    URL.createObjectURL = vi.fn(() => 'blob:report');
    URL.revokeObjectURL = vi.fn();
    renderInShell(permittedTree([PAGE, COLLECTION_REPORT_RES.export]), PAGE);
    const user = userEvent.setup();

    const table = await screen.findByTestId('report-daily');
    await waitFor(() => expect(within(table).getByText(addDays(today, -1))).toBeTruthy());
    // 384 of 768 intervals over the period.
    expect(screen.getByTestId('report-period-rate').textContent).toContain('50');
    // The days are UTC days, and the page says so where it shows them.
    expect(within(table).getByRole('columnheader', { name: 'Day (UTC)' })).toBeTruthy();
    expect(screen.getByText('Period (UTC days)')).toBeTruthy();
    expect(api.callsTo('/collectionreport/daily')[0]?.body).toEqual({ startDay: addDays(today, -6), endDay: today });

    await user.click(screen.getByTestId('report-tab-grid'));
    const grid = await screen.findByTestId('report-grid');
    expect(await within(grid).findByText('Region (own meters)')).toBeTruthy();
    expect(within(grid).getByText('Alpha feeder')).toBeTruthy();
    expect(api.callsTo('/collectionreport/bygrid')[0]?.body).toEqual({
      startDay: addDays(today, -6),
      endDay: today,
      pageSize: 20,
      curPage: 1,
    });

    await user.click(screen.getByTestId('report-tab-stopped'));
    const stopped = await screen.findByTestId('report-stopped');
    expect(await within(stopped).findByText('M000123')).toBeTruthy();
    expect(within(stopped).getByText('Anomaly')).toBeTruthy();
    expect(within(stopped).getByRole('columnheader', { name: 'Last reading day (UTC)' })).toBeTruthy();
    expect(screen.getByText('1 item in total')).toBeTruthy();
    // The meter lists are as of today: no period to pick, no period rate.
    expect(screen.queryByTestId('report-period')).toBeNull();
    expect(screen.queryByTestId('report-period-rate')).toBeNull();
    expect(api.callsTo('/collectionreport/stopped')[0]?.body).toMatchObject({ days: 3 });
    const days = screen.getByTestId('report-stopped-days');
    await user.clear(days);
    await user.type(days, '7');
    await user.tab();
    await waitFor(() => expect(api.callsTo('/collectionreport/stopped').at(-1)?.body).toMatchObject({ days: 7 }));

    await user.click(screen.getByTestId('report-export-pdf'));
    await waitFor(() => expect(api.callsTo('/collectionreport/export')).toHaveLength(1));
    expect(api.callsTo('/collectionreport/export')[0]?.body).toEqual({
      table: 'stopped',
      format: 'pdf',
      startDay: addDays(today, -6),
      endDay: today,
      days: 7,
    });

    const before = api.callsTo('/collectionreport/daily').length;
    await user.click(screen.getByTestId('report-refresh'));
    await waitFor(() => expect(api.callsTo('/collectionreport/daily').length).toBe(before + 1));
  }, 40_000);

  it('offers no export without the export button, and says so when no meter is expected to report', async () => {
    stubApi({
      '/powergrid/tree': () => ok([]),
      '/collectionreport/daily': () => ok(daily(0)),
      '/collectionreport/neverread': () => ok(page([])),
    });
    renderInShell(permittedTree([PAGE]), PAGE);
    expect(await screen.findByTestId('report-empty')).toBeTruthy();
    expect(screen.getByText('No meter of this grid node is expected to report')).toBeTruthy();
    expect(screen.queryByTestId('report-export-xlsx')).toBeNull();
    expect(screen.queryByTestId('report-export-pdf')).toBeNull();
    expect(screen.getByTestId('report-period-rate').textContent).toContain('—');

    await userEvent.setup().click(screen.getByTestId('report-tab-neverRead'));
    expect(await screen.findByText('No meter in this list')).toBeTruthy();
  });

  it("opens a grid node's children from its row, and goes back up from the node's path", async () => {
    const api = stubApi({
      '/powergrid/tree': () => ok(tree),
      '/collectionreport/daily': () => ok(daily(4)),
      '/collectionreport/bygrid': (body) => ok(page(childRows(body))),
    });
    renderInShell(permittedTree([PAGE]), PAGE);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('report-tab-grid'));
    const grid = await screen.findByTestId('report-grid');
    await within(grid).findByText('Region (own meters)');
    // A node's own meters have no children to open.
    expect(within(grid).queryByTestId(`report-drill-${GRID}`)).toBeNull();
    expect(screen.queryByTestId('report-node-path')).toBeNull();

    await user.click(within(grid).getByTestId(`report-drill-${ALPHA}`));
    await waitFor(() =>
      expect(api.callsTo('/collectionreport/bygrid').at(-1)?.body).toMatchObject({ gridId: ALPHA, curPage: 1 }),
    );
    expect(await within(grid).findByText('Alpha feeder (own meters)')).toBeTruthy();
    expect(within(grid).getByTestId(`report-drill-${ALPHA_1}`).textContent).toBe('Alpha 1');
    // The picker and the path name the node opened, as if it had been chosen in the picker.
    expect(api.callsTo('/collectionreport/daily').at(-1)?.body).toMatchObject({ gridId: ALPHA });
    const picker = screen.getByTestId('report-grid-node').closest('.ant-select') as HTMLElement;
    expect(within(picker).getByText('Alpha feeder')).toBeTruthy();
    expect(screen.getByTestId('report-node-path').textContent).toBe('All my grid nodes/Region/Alpha feeder');

    await user.click(screen.getByTestId(`report-node-path-${GRID}`));
    await waitFor(() => expect(api.callsTo('/collectionreport/bygrid').at(-1)?.body).toMatchObject({ gridId: GRID }));
    await user.click(screen.getByTestId('report-node-path-all'));
    await waitFor(() => expect(api.callsTo('/collectionreport/bygrid').at(-1)?.body).not.toHaveProperty('gridId'));
    expect(screen.queryByTestId('report-node-path')).toBeNull();
  }, 20_000);

  it('says in Chinese too that its days are UTC days', async () => {
    applyLanguage('zh');
    stubApi({
      '/powergrid/tree': () => ok([]),
      '/collectionreport/daily': () => ok(daily(4)),
    });
    renderInShell(permittedTree([PAGE]), PAGE);
    const table = await screen.findByTestId('report-daily');
    expect(await within(table).findByRole('columnheader', { name: '日期 (UTC)' })).toBeTruthy();
    expect(screen.getByText('时间段（UTC 日）')).toBeTruthy();
  });

  it('groups the never-read meters for field crews, opens a group as a filter of the list, and exports what is shown', async () => {
    const DCU = 'e'.repeat(32);
    const groups: SilentGroupRow[] = [
      { key: DCU, name: 'DCU01', meters: 3 },
      { key: null, name: null, meters: 1 },
    ];
    const api = stubApi({
      '/powergrid/tree': () => ok([]),
      '/collectionreport/daily': () => ok(daily(4)),
      '/collectionreport/silentgroups': (body) =>
        ok(page(body.groupBy === 'moduleType' ? [{ key: 2, name: null, meters: 3 }] : groups)),
      '/collectionreport/neverread': () => ok(page([{ ...stoppedMeter, lastDay: null }])),
      '/collectionreport/export': () => file('xlsx', 'application/octet-stream', 'report.xlsx'),
    });
    URL.createObjectURL = vi.fn(() => 'blob:report');
    URL.revokeObjectURL = vi.fn();
    renderInShell(permittedTree([PAGE, COLLECTION_REPORT_RES.export]), PAGE);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('report-tab-neverRead'));
    const list = await screen.findByTestId('report-never-read');
    expect(await within(list).findByText('Meter (PLC module)')).toBeTruthy();
    expect(within(list).getByText('Najd Meters')).toBeTruthy();

    await user.click(screen.getByTestId('report-group-by-dcu'));
    const table = await screen.findByTestId('report-groups');
    expect(await within(table).findByTestId(`report-group-${DCU}`)).toBeTruthy();
    expect(within(table).getByTestId('report-group-none').textContent).toBe('Direct meters (no DCU)');
    expect(within(table).getByRole('columnheader', { name: 'DCU' })).toBeTruthy();
    expect(api.callsTo('/collectionreport/silentgroups')[0]?.body).toEqual({
      table: 'neverRead',
      groupBy: 'dcu',
      days: 3,
      pageSize: 20,
      curPage: 1,
    });

    // The group's meters: its key a filter of the list, shown as a tag until removed.
    await user.click(within(table).getByTestId(`report-group-${DCU}`));
    await waitFor(() =>
      expect(api.callsTo('/collectionreport/neverread').at(-1)?.body).toMatchObject({ dcuId: DCU, curPage: 1 }),
    );
    expect(screen.getByTestId('report-group-filter-dcu').textContent).toBe('DCU: DCU01');
    await user.click(screen.getByTestId('report-export-xlsx'));
    await waitFor(() => expect(api.callsTo('/collectionreport/export')).toHaveLength(1));
    expect(api.callsTo('/collectionreport/export')[0]?.body).toMatchObject({ table: 'neverRead', dcuId: DCU });
    expect(api.callsTo('/collectionreport/export')[0]?.body).not.toHaveProperty('groupBy');

    // Grouped again within the group: by module type, the DCU still a filter; exported as groups.
    await user.click(screen.getByTestId('report-group-by-moduleType'));
    expect(await screen.findByText('Meter (PLC module)')).toBeTruthy();
    expect(api.callsTo('/collectionreport/silentgroups').at(-1)?.body).toMatchObject({
      groupBy: 'moduleType',
      dcuId: DCU,
    });
    await user.click(screen.getByTestId('report-export-xlsx'));
    await waitFor(() => expect(api.callsTo('/collectionreport/export')).toHaveLength(2));
    expect(api.callsTo('/collectionreport/export')[1]?.body).toMatchObject({ groupBy: 'moduleType', dcuId: DCU });

    await user.click(screen.getByTestId('report-group-by-none'));
    const tag = screen.getByTestId('report-group-filter-dcu');
    await user.click(within(tag).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(api.callsTo('/collectionreport/neverread').at(-1)?.body).not.toHaveProperty('dcuId'));
  }, 60_000);

  it("shows the server's refusal instead of a table", async () => {
    stubApi({
      '/powergrid/tree': () => ok([]),
      '/collectionreport/daily': () => fail(404, 'notFound'),
    });
    renderInShell(permittedTree([PAGE]), PAGE);
    expect(await screen.findByRole('alert')).toBeTruthy();
    expect(screen.queryByTestId('report-daily')).toBeNull();
  });
});
