import { type ClockRow, clockMonitoringApi, OPERATIONS, planApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONFIRM_OK } from '@/crud/row-actions';
import { applyLanguage } from '@/i18n/i18n';
import { fail, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

// The plan's progress feed is the broker's; these tests follow the results call alone.
vi.mock('@/app/live/broker-topics', () => ({ followTopic: () => () => undefined }));

const PAGE = '/dataAnalytic/clockMonitoring';
const serial = (n: number) => `CLK${String(n).padStart(4, '0')}`;
const row = (n: number): ClockRow => ({
  meterId: n.toString(16).padStart(32, '0'),
  devAddr: serial(n),
  gridId: 'b'.repeat(32),
  gridName: 'Area 1',
  dcuId: null,
  dcuNo: null,
  consumerType: null,
  deviationSeconds: 400 - n,
  checkedAt: '2026-01-02T08:00:00Z',
  online: true,
});
const rows = (count: number) => Array.from({ length: count }, (_, i) => row(i + 1));
const summary = {
  figures: { meters: 40, checked: 35, threshold: 60, beyond: 31, largest: 399 },
  points: [{ band: '0–59 s', meters: 4 }],
};
const LIMIT = 'At most 30 meters in one batch: the first 30 are kept';

function stubClock(list: ClockRow[], extra: Parameters<typeof stubApi>[0] = {}) {
  return stubApi({
    [clockMonitoringApi.list.path]: () => ok({ list, total: list.length, curPage: 1, pageSize: 50 }),
    [clockMonitoringApi.summary.path]: () => ok(summary),
    [planApi.results.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 500 }),
    ...extra,
  });
}

describe('clock monitoring', () => {
  afterEach(() => applyLanguage('en'));

  it.each([
    ['en', "No meter's clock is off by 60 s or more"],
    ['zh', '没有时钟偏差达到 60 秒或以上的电表'],
  ] as const)(
    'says of an empty list that no meter is beyond the threshold, not "No records" (%s)',
    async (language, text) => {
      applyLanguage(language);
      stubClock([]);
      renderInShell(permittedTree([PAGE]), PAGE);
      expect(await screen.findByText(text)).toBeTruthy();
      expect(screen.queryByText(language === 'en' ? 'No records' : '暂无数据')).toBeNull();
      applyLanguage('en');
    },
  );

  it('keeps the first 30 of a larger selection with the warning, asks first, then syncs them through a plan', async () => {
    const user = userEvent.setup();
    const api = stubClock(rows(31), {
      [planApi.createplan.path]: () => ok({ planid: 'c'.repeat(32), planStatus: 'executing', jobId: 'job-1' }),
    });
    renderInShell(permittedTree([PAGE, OPERATIONS.clockSync.resource]), `${PAGE}?pageSize=50`);
    await screen.findByText(serial(31));
    expect(screen.getByTestId('clock-sync').hasAttribute('disabled')).toBe(true);
    const all = screen.getByTestId('clockMonitoring-list').querySelector('thead .ant-checkbox-input');
    if (!(all instanceof HTMLElement)) throw new Error('no select-all checkbox');
    await user.click(all);
    expect(await screen.findByText(LIMIT)).toBeTruthy();
    expect(screen.getByTestId('clock-sync').textContent).toContain('(30)');
    expect(screen.getByTestId(`select-${serial(31)}`).closest('label')?.className).not.toContain('checked');

    await user.click(screen.getByTestId('clock-sync'));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Set the clock of 30 meters to the system time?');
    expect(api.callsTo(planApi.createplan.path)).toHaveLength(0);
    await user.click(within(dialog).getByTestId(CONFIRM_OK));
    await waitFor(() => expect(api.callsTo(planApi.createplan.path)).toHaveLength(1));
    expect(api.callsTo(planApi.createplan.path)[0]?.body).toMatchObject({
      devs: { itemType: 0, devList: rows(30).map((r) => r.devAddr) },
      orders: [{ cmd: 'clockSync', params: { source: 'system' } }],
    });
    // Each meter's answer arrives in the batch operation's results panel.
    expect(await screen.findByTestId(`result-${serial(30)}`)).toBeTruthy();
  });

  it("shows the server's refusal naming the offline meters", async () => {
    const user = userEvent.setup();
    stubClock(rows(2), {
      [planApi.createplan.path]: () => fail(400, 'MThasOffline', { devices: [serial(2)] }),
    });
    renderInShell(permittedTree([PAGE, OPERATIONS.clockSync.resource]), PAGE);
    await user.click(await screen.findByTestId(`select-${serial(2)}`));
    await user.click(screen.getByTestId('clock-sync'));
    await user.click(within(await screen.findByRole('dialog')).getByTestId(CONFIRM_OK));
    const refusal = await screen.findByTestId('operation-refusal');
    expect(refusal.textContent).toContain(serial(2));
  });

  it('offers no selection or sync to a user without the clock sync button', async () => {
    stubClock(rows(2));
    renderInShell(permittedTree([PAGE]), PAGE);
    await screen.findByText(serial(2));
    expect(screen.queryByTestId('clock-sync')).toBeNull();
    expect(screen.queryByTestId(`select-${serial(1)}`)).toBeNull();
  });
});
