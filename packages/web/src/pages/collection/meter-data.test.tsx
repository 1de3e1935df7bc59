import { FROZEN_REGISTER_KEYS, type MeterFrozen, type MeterProfile, meterApi, readingsApi } from '@meterdesk/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { App } from 'antd';
import { describe, expect, it, vi } from 'vitest';
import { type ChartData, chartOption } from '@/charts/chart-option';
import { applyLanguage } from '@/i18n/i18n';
import '@/locales/screen-texts';
import { ok, stubApi } from '@/test/api-stub';
import { meterFixture } from '@/test/meter-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { MeterData } from './meter-data';
import { addDays, dayShortcuts, frozenRange, isAfterToday, utcToday } from './meter-data-days';
import { profileChartData, profileDays } from './profile-data';

const METER = 'a'.repeat(32);
const at = (day: string, minutes: number) => new Date(Date.parse(`${day}T00:00:00Z`) + minutes * 60_000).toISOString();

// What the chart is given, shown as text: ECharts draws nothing in a DOM without layout.
vi.mock('@/charts/chart', () => ({
  Chart: ({ data, testId }: { data: ChartData; testId: string }) => (
    <div data-testid={testId} data-y={data.yName}>
      {data.series.map((s) => (
        <span key={s.name} data-testid="profile-curve" data-values={JSON.stringify(s.values.slice(0, 4))}>
          {s.name}
        </span>
      ))}
    </div>
  ),
}));
const curves = () => screen.queryAllByTestId('profile-curve').map((curve) => curve.textContent);

describe('profile chart data', () => {
  const day = '2026-11-01';
  const profile = (d: string, minutes: number[], value: (m: number) => number | null): MeterProfile => ({
    day: d,
    expected: 96,
    channels: [],
    rows: minutes.map((m) => ({
      ts: at(d, m),
      values: {
        activeImport: null,
        activeExport: null,
        reactiveImport: null,
        reactiveExport: null,
        activePower: value(m),
        voltageL1: null,
        currentL1: null,
      },
    })),
  });

  it("lays a day's intervals on its 96 slots by their end, a missing interval or value a gap", () => {
    const data = profileChartData([profile(day, [15, 45, 60, 1440], (m) => (m === 60 ? null : m))], 'activePower', {
      channel: 'P (W)',
      time: 'T',
    });
    expect(data.x).toHaveLength(96);
    expect([data.x[0], data.x.at(-1)]).toEqual(['00:15', '24:00']);
    expect([data.yName, data.xName]).toEqual(['P (W)', 'T']);
    expect(data.series).toHaveLength(1);
    expect(data.series[0]?.name).toBe(day);
    expect(data.series[0]?.values.slice(0, 5)).toEqual([15, null, 45, null, null]);
    // The interval ending at midnight is its day's last.
    expect(data.series[0]?.values.at(-1)).toBe(1440);
    const option = chartOption(data) as { series: { connectNulls: boolean }[] };
    expect(option.series[0]?.connectNulls).toBe(false);
  });

  it('overlays the days compared, the chosen one first, each a line of its own', () => {
    expect(profileDays(day, 'none')).toEqual([day]);
    expect(profileDays(day, 'dayBefore')).toEqual([day, '2026-10-31']);
    expect(profileDays(day, 'weekBefore')).toHaveLength(7);
    const data = profileChartData(
      [profile(day, [15], () => 1), profile('2026-10-31', [15, 30], () => 2)],
      'activePower',
      { channel: 'P', time: 'T' },
    );
    expect(data.series.map((s) => [s.name, s.values.slice(0, 2)])).toEqual([
      [day, [1, null]],
      ['2026-10-31', [2, 2]],
    ]);
  });
});

describe('data tab days', () => {
  const now = new Date('2026-11-25T23:30:00+08:00');
  it('counts days in UTC, offers yesterday and today, and nothing after today', () => {
    expect(utcToday(now)).toBe('2026-11-25');
    expect(dayShortcuts(now)).toEqual({ yesterday: '2026-11-24', today: '2026-11-25' });
    expect(isAfterToday('2026-11-25', now)).toBe(false);
    expect(isAfterToday('2026-11-26', now)).toBe(true);
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });

  it('shows the 31 days or 12 months up to the chosen day', () => {
    expect(frozenRange('daily', '2026-11-10')).toEqual({ startDay: '2026-10-11', endDay: '2026-11-10' });
    expect(frozenRange('monthly', '2026-11-10')).toEqual({ startDay: '2025-12-01', endDay: '2026-11-10' });
    expect(frozenRange('monthly', '2026-01-31')).toEqual({ startDay: '2025-02-01', endDay: '2026-01-31' });
  });
});

const POWER = new Set(['activePower', 'maxDemand']);
const channels = (keys: string[]) => keys.map((key) => ({ key, obis: key, unit: POWER.has(key) ? 'W' : 'Wh' }));
const profileOf = (day: string, count: number): MeterProfile => ({
  day,
  expected: 96,
  channels: channels(['activeImport', 'activePower']),
  rows: Array.from({ length: count }, (_, i) => ({
    ts: at(day, (i + 1) * 15),
    values: {
      activeImport: 1000 + i,
      activeExport: null,
      reactiveImport: null,
      reactiveExport: null,
      activePower: 400 + i,
      voltageL1: 230.5,
      currentL1: 1.2,
    },
  })),
});
const registers = (activeImport: number, maxDemand: number) => ({
  ...(Object.fromEntries(FROZEN_REGISTER_KEYS.map((key) => [key, null])) as MeterFrozen['rows'][number]['values']),
  activeImport,
  maxDemand,
});
const frozen: MeterFrozen = {
  channels: channels(['activeImport', 'maxDemand']),
  rows: [
    { day: '2026-11-01', values: registers(5000, 900) },
    { day: '2026-11-02', values: registers(5600, 950) },
  ],
};

function renderTab() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <App>
        <MeterData id={METER} />
      </App>
    </QueryClientProvider>,
  );
}

describe('meter data tab', () => {
  it("asks for yesterday's profile, draws it and lists the frozen values newest first", async () => {
    const yesterday = addDays(utcToday(), -1);
    const api = stubApi({
      [readingsApi.profile.path]: (body) => ok(profileOf(String(body.day), 90)),
      [readingsApi.daily.path]: () => ok(frozen),
    });
    renderTab();
    expect(screen.getByTestId('profile-loading')).toBeTruthy();
    expect((await screen.findByTestId('profile-received')).textContent).toBe('90 of 96 intervals received');
    expect(curves()).toEqual([yesterday]);
    expect(screen.getByTestId('profile-chart').getAttribute('data-y')).toBe('Active power (W)');
    expect(screen.getAllByTestId('profile-curve')[0]?.getAttribute('data-values')).toBe('[400,401,402,403]');
    expect(api.callsTo(readingsApi.profile.path)[0]?.body).toEqual({ meterId: METER, day: yesterday });
    expect(api.callsTo(readingsApi.daily.path)[0]?.body).toEqual({
      meterId: METER,
      ...frozenRange('daily', yesterday),
    });
    const table = screen.getByTestId('readings-frozen');
    await waitFor(() => expect(within(table).getAllByRole('row').length).toBe(3));
    expect(within(table).getAllByRole('row')[1]?.textContent).toContain('2026-11-02');
    // Its days are UTC days, said in the picker's label and the column's header.
    expect(screen.getByText('Day (UTC)', { selector: '.ant-typography' })).toBeTruthy();
    expect(within(table).getByRole('columnheader', { name: 'Day (UTC)' })).toBeTruthy();
    expect(within(table).getByText('5,600')).toBeTruthy();
    expect(within(table).getAllByText('Active import (+A) (Wh)').length).toBeGreaterThan(0);
    // Maximum demand (stored in W) carries its unit like the energy registers.
    expect(within(table).getAllByText('Maximum demand (W)').length).toBeGreaterThan(0);
    expect(within(table).getByText('950')).toBeTruthy();
    // A month of rows runs past the window; the header stays in sight above them.
    expect(table.querySelector('.ant-table-sticky-holder')?.textContent).toContain('Day (UTC)');
  });

  it('overlays the days before the chosen one when asked, and draws the channel chosen', async () => {
    const yesterday = addDays(utcToday(), -1);
    const api = stubApi({
      [readingsApi.profile.path]: (body) => ok(profileOf(String(body.day), body.day === yesterday ? 96 : 40)),
      [readingsApi.daily.path]: () => ok(frozen),
    });
    renderTab();
    await waitFor(() => expect(curves()).toEqual([yesterday]));
    fireEvent.mouseDown(within(screen.getByTestId('readings-compare')).getByRole('combobox'));
    fireEvent.click(await screen.findByTitle('With the day before'));
    await waitFor(() => expect(curves()).toEqual([yesterday, addDays(yesterday, -1)]));
    expect(api.callsTo(readingsApi.profile.path).map((call) => call.body.day)).toEqual([
      yesterday,
      addDays(yesterday, -1),
    ]);
    // The received count stays the chosen day's.
    expect(screen.getByTestId('profile-received').textContent).toBe('96 of 96 intervals received');

    fireEvent.mouseDown(within(screen.getByTestId('readings-channel')).getByRole('combobox'));
    fireEvent.click(await screen.findByTitle('Active import (+A)'));
    await waitFor(() =>
      expect(screen.getByTestId('profile-chart').getAttribute('data-y')).toBe('Active import (+A) (Wh)'),
    );
    expect(screen.getAllByTestId('profile-curve')[1]?.getAttribute('data-values')).toBe('[1000,1001,1002,1003]');
  });

  it('says so when the day holds no profile, in Chinese too', async () => {
    applyLanguage('zh');
    stubApi({
      [readingsApi.profile.path]: (body) => ok(profileOf(String(body.day), 0)),
      [readingsApi.daily.path]: () => ok({ channels: [], rows: [] }),
    });
    renderTab();
    expect((await screen.findByTestId('profile-empty')).textContent).toContain('该日无负荷曲线数据');
    expect(await screen.findByText('该范围内无冻结数据')).toBeTruthy();
    expect(screen.getByText('日期 (UTC)', { selector: '.ant-typography' })).toBeTruthy();
    expect(
      within(screen.getByTestId('readings-frozen')).getByRole('columnheader', { name: '日期 (UTC)' }),
    ).toBeTruthy();
  });

  it("opens as the meter detail page's Data tab, kept in the URL", async () => {
    const meter = meterFixture({ id: METER, devAddr: 'DATA0001', gridId: 'b'.repeat(32) });
    stubApi({
      [meterApi.detail.path]: () => ok(meter),
      [meterApi.history.path]: () => ok([]),
      [readingsApi.profile.path]: (body) => ok(profileOf(String(body.day), 96)),
      [readingsApi.daily.path]: () => ok(frozen),
    });
    const detail = '/archiveSetting/meter/detail';
    const { router } = renderInShell(permittedTree([detail]), `${detail}?id=${METER}`);
    fireEvent.click(await screen.findByTestId('meter-tab-data'));
    await waitFor(() => expect(router.state.location.search).toBe(`?id=${METER}&tab=data`));
    expect((await screen.findByTestId('profile-received')).textContent).toBe('96 of 96 intervals received');
  });
});
