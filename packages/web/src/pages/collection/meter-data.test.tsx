import { FROZEN_REGISTER_KEYS, type MeterFrozen, type MeterProfile, meterApi, readingsApi } from '@meterdesk/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { App } from 'antd';
import { describe, expect, it } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import '@/locales/screen-texts';
import { ok, stubApi } from '@/test/api-stub';
import { meterFixture } from '@/test/meter-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { MeterData } from './meter-data';
import { addDays, dayShortcuts, frozenRange, isAfterToday, utcToday } from './meter-data-days';
import { niceStep, profileGeometry } from './profile-geometry';

const SIZE = { width: 1000, height: 110, left: 40, bottom: 10 };
const METER = 'a'.repeat(32);
const at = (day: string, minutes: number) => new Date(Date.parse(`${day}T00:00:00Z`) + minutes * 60_000).toISOString();

describe('profile geometry', () => {
  it('places a day across the width from 00:00 to 24:00 and values up from a baseline holding zero', () => {
    const g = profileGeometry(
      [
        { ts: at('2026-11-01', 0), value: 0 },
        { ts: at('2026-11-01', 720), value: 100 },
      ],
      '2026-11-01',
      SIZE,
    );
    expect(g.points.map((p) => [p.x, p.y])).toEqual([
      [40, 100],
      [520, 0],
    ]);
    expect(g.xTicks.map((t) => t.label)).toEqual([
      '00:00',
      '03:00',
      '06:00',
      '09:00',
      '12:00',
      '15:00',
      '18:00',
      '21:00',
      '24:00',
    ]);
    expect(g.yTicks.map((t) => t.label)).toEqual(['0', '20', '40', '60', '80', '100']);
  });

  it('breaks the line where an interval is missing or has no value', () => {
    const day = '2026-11-01';
    const rows = [0, 15, 30, 60, 75, 90].map((m) => ({ ts: at(day, m), value: m === 75 ? null : 5 }));
    const g = profileGeometry(rows, day, SIZE);
    expect(g.path.split(' ').filter((part) => part.startsWith('M'))).toHaveLength(3);
    expect(g.points).toHaveLength(5);
    expect(profileGeometry([], day, SIZE).path).toBe('');
  });

  it('takes steps of 1, 2 or 5 times a power of ten', () => {
    expect([niceStep(100, 5), niceStep(7, 5), niceStep(2305, 5), niceStep(0, 5)]).toEqual([20, 2, 500, 1]);
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
    ts: at(day, i * 15),
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
    expect(screen.getByTestId('profile-line').getAttribute('d')).toMatch(/^M/);
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
