import { BILLING_REPORT_RES, billingReportApi, type ReportRecord } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { buildRequest } from './billing-report-kit';

const RES = BILLING_REPORT_RES.shoppingMall;
const api = billingReportApi.shoppingMall;
const ID = 'a'.repeat(32);

const record = (over: Partial<ReportRecord> = {}): ReportRecord => ({
  id: ID,
  kind: 'shoppingMall',
  reportName: 'October',
  conditions: {
    ruleId: 'b'.repeat(32),
    ruleName: 'Mall A',
    gridId: 'c'.repeat(32),
    gridName: 'North',
    startDay: '2026-10-01',
    endDay: '2026-10-31',
  },
  status: 'building',
  progress: 40,
  jobId: null,
  createTime: '2026-11-01T08:00:00.000Z',
  generateTime: null,
  deleteTime: '2026-12-01T08:00:00.000Z',
  failure: null,
  ...over,
});
const page = (list: ReportRecord[]) => ok({ list, total: list.length, curPage: 1, pageSize: 10 });

describe('a billing report page', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists a building report with its conditions, asks again until it is completed, then opens it', async () => {
    let calls = 0;
    stubApi({
      [api.list.path]: () => {
        calls += 1;
        return page([calls === 1 ? record() : record({ status: 'completed', progress: 100 })]);
      },
      [api.content.path]: () =>
        ok({
          record: record({ status: 'completed' }),
          columns: ['devAddr', 'role', 'total'],
          rows: [
            { devAddr: 'T0001', role: 'tenant', total: 36 },
            { devAddr: '', role: 'total', total: 61 },
          ],
        }),
    });
    renderInShell(permittedTree([RES.page]), RES.page);
    expect((await screen.findByTestId(`report-status-${ID}`)).textContent).toBe('Building');
    expect(screen.getByText('Rule Mall A, 2026-10-01 – 2026-10-31')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId(`report-status-${ID}`).textContent).toBe('Completed'), {
      timeout: 6_000,
    });
    // Without the page's export button the downloads are not offered.
    expect(screen.queryByTestId(`report-download-pdf-${ID}`)).toBeNull();

    await userEvent.setup().click(screen.getByTestId(`report-open-${ID}`));
    const table = await screen.findByTestId('report-content');
    await waitFor(() => expect(within(table).getByText('Total of the tenants')).toBeTruthy());
    expect(within(table).getByText('Tenant')).toBeTruthy();
    expect(within(table).getByText('61')).toBeTruthy();
  });

  it('sends only the source its kind is built from', () => {
    const values = {
      reportName: 'R',
      ruleId: 'r',
      gridId: 'g',
      period: ['2026-10-01', '2026-10-31'] as [string, string],
    };
    expect(buildRequest('shoppingMall', values)).toEqual({
      reportName: 'R',
      ruleId: 'r',
      startDay: '2026-10-01',
      endDay: '2026-10-31',
    });
    expect(buildRequest('general', values)).toEqual({
      reportName: 'R',
      gridId: 'g',
      startDay: '2026-10-01',
      endDay: '2026-10-31',
    });
  });
});
