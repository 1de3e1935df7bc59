import { type LoadProfileRow, loadProfileApi, loadProfileDetailApi, utcToday } from '@meterdesk/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { ChartData } from '@/charts/chart-option';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

// What the chart is given, shown as text: ECharts draws nothing in a DOM without layout.
vi.mock('@/charts/chart', () => ({
  Chart: ({ data, testId }: { data: ChartData; testId: string }) => (
    <div data-testid={testId} data-x={data.x.slice(0, 3).join(',')} data-y={data.yName}>
      {data.series.map((s) => (
        <span key={s.name} data-testid="curve" data-values={JSON.stringify(s.values.slice(0, 4))}>
          {s.name}
        </span>
      ))}
    </div>
  ),
}));
const curves = () => screen.queryAllByTestId('curve').map((curve) => curve.textContent);

const PAGE = '/dataAnalytic/loadProfile';
const DETAIL = `${PAGE}/detail`;
const day = (offset: number) =>
  new Date(Date.parse(`${utcToday()}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
const YESTERDAY = day(-1);
const id = (n: number) => String(n).padStart(32, '0');
const row = (n: number, intervals: number): LoadProfileRow => ({
  meterId: id(n),
  devAddr: `LP${String(n).padStart(4, '0')}`,
  gridId: 'b'.repeat(32),
  gridName: 'Area 1',
  dcuId: null,
  dcuNo: null,
  consumerType: null,
  state: intervals >= 96 ? 'complete' : intervals > 0 ? 'partial' : 'none',
  intervals,
  completeness: Math.round((intervals * 1000) / 96) / 10,
  demandMax: intervals ? 2.5 : null,
  demandAvg: intervals ? 1.1 : null,
  consumption: intervals ? 26.4 : null,
});
const page = <R,>(list: R[]) => ok({ list, total: list.length, curPage: 1, pageSize: 10 });
const listSummary = {
  figures: { meters: 2, metersComplete: 1, metersPartial: 1, metersNone: 0, completeness: 55.2, demandMax: 2.5 },
  points: [
    { state: 'complete', meters: 1 },
    { state: 'partial', meters: 1 },
    { state: 'none', meters: 0 },
  ],
};
const curveSummary = (curves: string[]) => ({
  figures: {
    curves: curves.length,
    intervals: 2 * curves.length,
    expected: 96 * curves.length,
    demandMax: 2.5,
    peakAt: null,
  },
  points: curves.flatMap((curve) => [
    {
      slot: '00:15',
      curve,
      activePower: 1,
      activeImport: 0.25,
      activeExport: null,
      reactiveImport: null,
      reactiveExport: null,
      voltageL1: 230,
      currentL1: 4,
    },
    {
      slot: '00:45',
      curve,
      activePower: 2,
      activeImport: 0.5,
      activeExport: null,
      reactiveImport: null,
      reactiveExport: null,
      voltageL1: 231,
      currentL1: 8,
    },
  ]),
});

describe('load profile', () => {
  const stubList = () =>
    stubApi({
      [loadProfileApi.list.path]: () => page([row(1, 96), row(2, 10)]),
      [loadProfileApi.summary.path]: () => ok(listSummary),
      [loadProfileDetailApi.list.path]: () => page([]),
      [loadProfileDetailApi.summary.path]: (body) =>
        ok(curveSummary((body.meterIds as string[]).map((m) => `LP${m.slice(-4)}`))),
    });

  it("lists yesterday's profiles and opens a meter's curve on that day", async () => {
    const user = userEvent.setup();
    const api = stubList();
    renderInShell(permittedTree([PAGE, DETAIL]), PAGE);
    const first = (await screen.findByText('LP0001')).closest('tr') as HTMLElement;
    expect(within(first).getByText('Complete')).toBeTruthy();
    expect(api.callsTo(loadProfileApi.summary.path)[0]?.body).toEqual({ startDay: YESTERDAY, endDay: YESTERDAY });
    // The chart names the states, not their codes.
    await waitFor(() =>
      expect(screen.getByTestId('analytics-chart-loadProfile').getAttribute('data-x')).toBe('Complete,Partial,None'),
    );

    await user.click(screen.getByTestId(`row-detail-${id(2)}`));
    await waitFor(() => expect(curves()).toEqual(['LP0002']));
    expect(api.callsTo(loadProfileDetailApi.summary.path)[0]?.body).toEqual({
      meterIds: [id(2)],
      startDay: YESTERDAY,
      endDay: YESTERDAY,
    });
  });

  it('overlays the meters selected in the list on its day', async () => {
    const user = userEvent.setup();
    const api = stubList();
    renderInShell(permittedTree([PAGE, DETAIL]), `${PAGE}?startDay=${day(-2)}&endDay=${day(-2)}`);
    await user.click(await screen.findByTestId(`select-${id(1)}`));
    await user.click(screen.getByTestId(`select-${id(2)}`));
    expect(screen.getByTestId('load-profile-compare').textContent).toContain('(2)');
    await user.click(screen.getByTestId('load-profile-compare'));
    await waitFor(() => expect(curves()).toEqual(['LP0001', 'LP0002']));
    expect(api.callsTo(loadProfileDetailApi.summary.path)[0]?.body).toEqual({
      meterIds: [id(1), id(2)],
      startDay: day(-2),
      endDay: day(-2),
    });
  });

  it("overlays one meter's days, adds a meter by its serial on the last day, and draws the channel chosen", async () => {
    const user = userEvent.setup();
    const api = stubApi({
      [loadProfileApi.list.path]: (body) => page(body.devAddr === 'LP0002' ? [row(2, 10)] : []),
      [loadProfileDetailApi.list.path]: () => page([]),
      [loadProfileDetailApi.summary.path]: (body) =>
        ok(curveSummary((body.meterIds as string[]).length > 1 ? ['LP0001', 'LP0002'] : [day(-3), day(-2), day(-1)])),
    });
    renderInShell(permittedTree([PAGE, DETAIL]), `${DETAIL}?meterIds=${id(1)}&startDay=${day(-3)}&endDay=${day(-1)}`);
    await waitFor(() => expect(curves()).toEqual([day(-3), day(-2), day(-1)]));
    expect(api.callsTo(loadProfileDetailApi.summary.path)[0]?.body).toEqual({
      meterIds: [id(1)],
      startDay: day(-3),
      endDay: day(-1),
    });
    const chart = screen.getByTestId('analytics-chart-loadProfileDetail');
    expect(chart.getAttribute('data-y')).toBe('Active power (kW)');
    // The day's 96 slots are the axis: 00:30 holds no interval, a gap between 00:15 and 00:45.
    expect(screen.getAllByTestId('curve')[0]?.getAttribute('data-values')).toBe('[1,null,2,null]');
    expect(screen.getByTestId('load-profile-hint').textContent).toBe(
      'Several meters are compared on one day; one meter alone may span up to 7 days.',
    );

    fireEvent.mouseDown(within(screen.getByTestId('load-profile-channel')).getByRole('combobox'));
    await user.click(await screen.findByTitle('Voltage L1 (V)'));
    await waitFor(() => expect(chart.getAttribute('data-y')).toBe('Voltage L1 (V)'));
    expect(screen.getAllByTestId('curve')[0]?.getAttribute('data-values')).toBe('[230,null,231,null]');

    const add = within(screen.getByTestId('load-profile-add'));
    await user.type(add.getByRole('searchbox'), 'NOPE');
    await user.click(add.getByRole('button'));
    expect(await screen.findByText('No meter NOPE in your grid scope')).toBeTruthy();
    await user.clear(add.getByRole('searchbox'));
    await user.type(add.getByRole('searchbox'), 'LP0002');
    await user.click(add.getByRole('button'));
    await waitFor(() => expect(curves()).toEqual(['LP0001', 'LP0002']));
    expect(add.getByRole('searchbox')).toHaveProperty('value', '');
    expect(api.callsTo(loadProfileDetailApi.summary.path).at(-1)?.body).toEqual({
      meterIds: [id(1), id(2)],
      startDay: day(-1),
      endDay: day(-1),
    });
    // The channel chosen stays.
    expect(chart.getAttribute('data-y')).toBe('Voltage L1 (V)');
  });
});
