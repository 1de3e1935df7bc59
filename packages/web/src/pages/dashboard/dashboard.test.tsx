import {
  ALARM_DAYS,
  type AlarmPage,
  type AlarmTrend,
  type ArchiveSummary,
  addUtcDays,
  type CollectionKpi,
  type ConsumerSummary,
  DASHBOARD_CARD_KEYS,
  DASHBOARD_CARDS,
  DASHBOARD_REFRESH_DELAY_MS,
  type DashboardCard,
  dashboardApi,
  type EnergySummary,
  type ModuleSummary,
  type OperationLog,
  RES,
  utcToday,
} from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { fail, ok, type StubAnswer, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const METER = 'a'.repeat(32);
const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const alarm = (n: number) => ({
  meterId: METER,
  devAddr: `M00${n}`,
  gridName: 'North feeder',
  time: `${day(1)}T12:0${n}:00.000Z`,
  code: 1,
  name: 'Power down',
});
const kpiDay = (d: string, stored: number) => ({
  day: d,
  meters: 2,
  expected: 192,
  stored,
  successRate: Math.round((stored * 1000) / 192) / 10,
  metersComplete: stored === 192 ? 2 : 1,
});
const trendDays = (severe: number) =>
  Array.from({ length: 30 }, (_, i) => ({
    day: day(29 - i),
    regular: 0,
    medium: i === 29 ? 1 : 0,
    severe: i === 28 ? severe : 0,
  }));

/** What every card's call answers when there is something to show. */
const DATA: Record<DashboardCard, (body: Record<string, unknown>) => unknown> = {
  alarms: (body) =>
    ({
      list: body.curPage === 2 ? [alarm(6)] : [alarm(1), alarm(2)],
      curPage: (body.curPage as number) ?? 1,
      pageSize: 5,
      more: body.curPage !== 2,
      total: 7,
    }) satisfies AlarmPage,
  archive: () =>
    ({
      gridNodes: 3,
      dcus: 2,
      meters: 1200,
      byStatus: [0, 1, 2, 3, 4, 5].map((status) => ({ status, count: status === 2 ? 1200 : 0 })),
    }) satisfies ArchiveSummary,
  consumers: () =>
    ({
      consumers: 40,
      byType: [
        { consumerType: 'residential', count: 30 },
        { consumerType: 'commercial', count: 10 },
        { consumerType: 'industrial', count: 0 },
      ],
      byPayment: [
        { paymentMode: 'prepay', count: 25 },
        { paymentMode: 'postpay', count: 15 },
      ],
      special: 3,
    }) satisfies ConsumerSummary,
  modules: () =>
    ({
      modules: 5,
      byDeviceType: [{ deviceType: 2, count: 5 }],
      byWorkingMode: [
        { workingMode: 'client', count: 0 },
        { workingMode: 'server', count: 5 },
        { workingMode: 'webService', count: 0 },
      ],
    }) satisfies ModuleSummary,
  energy: () =>
    ({
      yesterday: { day: day(1), value: 1234.5, meters: 2 },
      dayBefore: { day: day(2), value: 1000, meters: 2 },
      month: { startDay: `${day(0).slice(0, 7)}-01`, endDay: day(0), value: 5678.125 },
      days: [
        { day: day(1), value: 1234.5, meters: 2 },
        { day: day(0), value: null, meters: 0 },
      ],
    }) satisfies EnergySummary,
  collection: () => ({ yesterday: kpiDay(day(1), 192), today: kpiDay(day(0), 96) }) satisfies CollectionKpi,
  alarmTrend: () => ({ days: trendDays(4) }) satisfies AlarmTrend,
  operations: () =>
    ({
      list: [
        {
          id: 'b'.repeat(32),
          logType: 'operation',
          actorKind: 'user',
          username: 'operator1',
          operatingType: 'update',
          logLevel: 'info',
          content: 'Meter › Edit M001',
          result: 200,
          ip: '',
          ua: '',
          os: '',
          browser: '',
          requestUrl: '/apis/meter/update',
          time: `${day(0)}T08:00:00.000Z`,
        },
      ],
    }) satisfies OperationLog,
};

/** What every card's call answers when there is nothing to show. */
const EMPTY: Record<DashboardCard, () => unknown> = {
  alarms: () => ({ list: [], curPage: 1, pageSize: 5, more: false, total: 0 }),
  archive: () => ({ gridNodes: 0, dcus: 0, meters: 0, byStatus: [] }),
  consumers: () => ({ consumers: 0, byType: [], byPayment: [], special: 0 }),
  modules: () => ({ modules: 0, byDeviceType: [], byWorkingMode: [] }),
  energy: () => ({
    yesterday: { day: day(1), value: null, meters: 0 },
    dayBefore: { day: day(2), value: null, meters: 0 },
    month: { startDay: day(0), endDay: day(0), value: null },
    days: [],
  }),
  collection: () => ({
    yesterday: { ...kpiDay(day(1), 0), meters: 0, expected: 0, successRate: null },
    today: { ...kpiDay(day(0), 0), meters: 0, expected: 0, successRate: null },
  }),
  alarmTrend: () => ({ days: trendDays(0).map((d) => ({ ...d, medium: 0 })) }),
  operations: () => ({ list: [] }),
};

const EVERY_CARD = [RES.dashboard, ...new Set(Object.values(DASHBOARD_CARDS))];
const path = (card: DashboardCard) => dashboardApi[card].path.replace('/apis', '');
const answering = (answer: (card: DashboardCard, body: Record<string, unknown>) => StubAnswer) =>
  stubApi(Object.fromEntries(DASHBOARD_CARD_KEYS.map((card) => [path(card), (body) => answer(card, body)])));
const card = (key: DashboardCard) => screen.getByTestId(`dashboard-card-${key}`);
const settled = (key: DashboardCard, state: string) =>
  waitFor(() => expect(card(key).getAttribute('data-state')).toBe(state));

describe('dashboard', () => {
  it("shows every card's figures, each linking to the page that explains it", async () => {
    answering((key, body) => ok(DATA[key](body)));
    renderInShell(permittedTree(EVERY_CARD), RES.dashboard);
    for (const key of DASHBOARD_CARD_KEYS) await settled(key, 'data');
    expect(screen.queryByTestId('later-release')).toBeNull();

    expect(screen.getByTestId('dashboard-archive-meters').textContent).toContain('1,200');
    expect(within(card('archive')).getByText('Activated')).toBeTruthy();
    expect(screen.getByTestId('dashboard-consumers-total').textContent).toContain('40');
    expect(within(card('consumers')).getByText('Commercial')).toBeTruthy();
    expect(within(card('modules')).getByText('Server')).toBeTruthy();
    expect(screen.getByTestId('dashboard-energy-yesterday').textContent).toContain('1,234.5');
    expect(within(card('energy')).getByText('+23.5 % on the day before')).toBeTruthy();
    expect(screen.getByTestId('dashboard-energy-month').textContent).toContain('5,678.125');
    expect(screen.getByTestId('dashboard-collection-yesterday').textContent).toContain('100');
    expect(screen.getByTestId('dashboard-collection-today').textContent).toContain('96 of 192 intervals');
    expect(screen.getByTestId('dashboard-alarmTrend-total').textContent).toBe('5 events, 4 severe');
    // The figures are charted (ECharts arrives in its own chunk).
    for (const chart of ['dashboard-alarmTrend-chart', 'dashboard-energy-chart'])
      expect(screen.getByTestId(chart).getAttribute('data-state')).not.toBe('empty');
    expect(within(card('operations')).getByText('operator1')).toBeTruthy();
    expect(within(card('operations')).getByText('Update')).toBeTruthy();
    expect(screen.getByTestId('dashboard-alarms-total').textContent).toBe(
      '7 unacknowledged severe events in the last 30 days',
    );
    expect(screen.getByTestId('dashboard-alarm-link-0').getAttribute('href')).toBe(
      `/dataAnalytic/meterEvents/meterEventsDetail?meterId=${METER}`,
    );
    const link = (key: DashboardCard) =>
      new URL(screen.getByTestId(`dashboard-card-${key}-link`).getAttribute('href') ?? '', 'http://x');
    for (const key of DASHBOARD_CARD_KEYS) expect(link(key).pathname).toBe(DASHBOARD_CARDS[key]);
    // A card counting a period or a kind of event opens its page on them, so the page shows the card's figures.
    const today = utcToday();
    const days = { startDay: addUtcDays(today, 1 - ALARM_DAYS), endDay: today };
    expect(Object.fromEntries(link('alarms').searchParams)).toEqual({
      level: 'severe',
      acknowledged: 'false',
      ...days,
    });
    expect(Object.fromEntries(link('alarmTrend').searchParams)).toEqual(days);
    expect(Object.fromEntries(link('energy').searchParams)).toEqual({
      startDay: `${today.slice(0, 8)}01`,
      endDay: today,
    });
    expect(link('archive').search).toBe('');
  });

  it('pages the alarm log with previous and next', async () => {
    const api = answering((key, body) => ok(DATA[key](body)));
    renderInShell(permittedTree([RES.dashboard, DASHBOARD_CARDS.alarms]), RES.dashboard);
    const user = userEvent.setup();
    await settled('alarms', 'data');
    expect(screen.getByTestId('dashboard-alarm-1').textContent).toContain('M002');
    expect(screen.getByTestId('dashboard-alarms-previous').hasAttribute('disabled')).toBe(true);

    await user.click(screen.getByTestId('dashboard-alarms-next'));
    await waitFor(() => expect(screen.getByTestId('dashboard-alarm-0').textContent).toContain('M006'));
    expect(api.callsTo('/dashboard/alarms').at(-1)?.body).toEqual({ curPage: 2, pageSize: 5 });
    expect(screen.getByTestId('dashboard-alarms-next').hasAttribute('disabled')).toBe(true);

    await user.click(screen.getByTestId('dashboard-alarms-previous'));
    await waitFor(() => expect(screen.getByTestId('dashboard-alarm-0').textContent).toContain('M001'));
    expect(screen.getByTestId('dashboard-alarms-previous').hasAttribute('disabled')).toBe(true);
  });

  it('says of each card when it has nothing to show', async () => {
    answering((key) => ok(EMPTY[key]()));
    renderInShell(permittedTree(EVERY_CARD), RES.dashboard);
    for (const key of DASHBOARD_CARD_KEYS) await settled(key, 'empty');
    expect(within(card('alarms')).getByText('No unacknowledged severe event in the last 30 days')).toBeTruthy();
    expect(within(card('collection')).getByText('No meter of your grid nodes is expected to report')).toBeTruthy();
    expect(screen.queryByTestId('dashboard-alarms-next')).toBeNull();
  });

  it('shows a card that fails as failed, leaves the others standing, and asks it again on retry', async () => {
    let failing = true;
    const api = answering((key, body) =>
      key === 'energy' && failing ? fail(500, 'interfaceError') : ok(DATA[key](body)),
    );
    renderInShell(permittedTree(EVERY_CARD), RES.dashboard);
    await settled('energy', 'error');
    for (const key of DASHBOARD_CARD_KEYS.filter((k) => k !== 'energy')) await settled(key, 'data');
    expect(within(card('energy')).getByRole('alert')).toBeTruthy();

    failing = false;
    await userEvent.setup().click(screen.getByTestId('dashboard-card-energy-retry'));
    await settled('energy', 'data');
    expect(api.callsTo('/dashboard/energy').length).toBeGreaterThan(1);
  });

  it('shows a card loading while its call has not answered', async () => {
    answering((key, body) => (key === 'operations' ? new Promise<never>(() => {}) : ok(DATA[key](body))) as StubAnswer);
    renderInShell(permittedTree(EVERY_CARD), RES.dashboard);
    await settled('archive', 'data');
    expect(card('operations').getAttribute('data-state')).toBe('loading');
  });

  it('shows only the cards of the pages the user holds, and says so when it holds none', async () => {
    const api = answering((key, body) => ok(DATA[key](body)));
    const view = renderInShell(
      permittedTree([RES.dashboard, DASHBOARD_CARDS.archive, DASHBOARD_CARDS.operations]),
      RES.dashboard,
    );
    await settled('archive', 'data');
    await settled('operations', 'data');
    expect(screen.queryByTestId('dashboard-card-alarms')).toBeNull();
    expect(screen.queryByTestId('dashboard-card-energy')).toBeNull();
    expect(api.callsTo('/dashboard/alarms')).toHaveLength(0);
    view.unmount();

    renderInShell(permittedTree([RES.dashboard]), RES.dashboard);
    expect(await screen.findByTestId('dashboard-empty')).toBeTruthy();
  });

  it(`asks its cards again ${DASHBOARD_REFRESH_DELAY_MS} ms after the router brings it back, showing the last figures meanwhile`, async () => {
    const api = answering((key, body) => ok(DATA[key](body)));
    const { router } = renderInShell(permittedTree([RES.dashboard, DASHBOARD_CARDS.archive]), RES.dashboard);
    await settled('archive', 'data');
    // The first visit asks once: the refresh leaves what this visit fetched.
    await new Promise((resolve) => setTimeout(resolve, DASHBOARD_REFRESH_DELAY_MS + 300));
    expect(api.callsTo('/dashboard/archive')).toHaveLength(1);

    await router.navigate('/version');
    await waitFor(() => expect(screen.queryByTestId('dashboard-card-archive')).toBeNull());
    await router.navigate(RES.dashboard);
    await settled('archive', 'data');
    const back = Date.now();
    expect(api.callsTo('/dashboard/archive')).toHaveLength(1);
    await waitFor(() => expect(api.callsTo('/dashboard/archive')).toHaveLength(2));
    expect(Date.now() - back).toBeGreaterThanOrEqual(DASHBOARD_REFRESH_DELAY_MS - 100);

    await userEvent.setup().click(screen.getByTestId('dashboard-refresh'));
    await waitFor(() => expect(api.callsTo('/dashboard/archive')).toHaveLength(3));
  }, 20_000);

  it('speaks Chinese', async () => {
    applyLanguage('zh');
    answering((key, body) => ok(DATA[key](body)));
    renderInShell(permittedTree(EVERY_CARD), RES.dashboard);
    await settled('alarms', 'data');
    expect(within(card('alarms')).getByText('告警日志')).toBeTruthy();
    expect(screen.getByTestId('dashboard-alarms-total').textContent).toBe('近 30 天共 7 条未确认的严重事件');
    expect(screen.getByTestId('dashboard-alarms-next').textContent).toBe('下一页');
    // A standard event is named as the meter events page names it; a name of the operator's own stays as written.
    expect(screen.getByTestId('dashboard-alarm-0').textContent).toContain('掉电');
    expect(screen.getByTestId('dashboard-alarm-0').textContent).not.toContain('Power down');
    applyLanguage('en');
  });
});
