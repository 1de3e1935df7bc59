import {
  METER_EVENTS_RES,
  meterEventsApi,
  meterEventsDetailApi,
  type StormGroup,
  utcToday,
} from '@meterdesk/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from 'antd';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PermissionProvider } from '@/app/permissions/permission-context';
import { indexPermissions } from '@/app/permissions/permission-index';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { EventStorms } from './event-storms';

const DCU = 'd'.repeat(32);
const METER = 'a'.repeat(32);
const day = (offset: number) =>
  new Date(Date.parse(`${utcToday()}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
const PERIOD = { startDay: day(-6), endDay: day(0) };
const DOWN = `${day(-1)}T10:00:00.000Z`;

const storm: StormGroup = {
  key: `${DCU}/1`,
  dcuId: DCU,
  dcuNo: 'DCU0007',
  gridName: 'T1',
  code: 1,
  name: 'Power down',
  level: 'severe',
  events: 240,
  meters: 240,
  acknowledged: 0,
  unacknowledged: 240,
  firstTime: DOWN,
  lastTime: `${day(-1)}T10:00:02.000Z`,
};
const event = (n: number, acknowledged = false) => ({
  key: `${METER.slice(0, 31)}${n}/${DOWN}/1`,
  meterId: `${METER.slice(0, 31)}${n}`,
  devAddr: `MTR000${n}`,
  gridId: 'b'.repeat(32),
  gridName: 'T1',
  dcuId: DCU,
  dcuNo: 'DCU0007',
  time: DOWN,
  code: 1,
  name: 'Power down',
  level: 'severe',
  acknowledged,
  ackByName: acknowledged ? 'ops' : null,
  ackAt: acknowledged ? DOWN : null,
  ackRemark: acknowledged ? 'Feeder tripped' : null,
});

/** The calls of the storms panel; `storms` answers the groups as they stand (acknowledging changes them). */
function stubStorms(groups: () => StormGroup[]) {
  return stubApi({
    [meterEventsApi.list.path]: () => ok({ list: [event(1), event(2, true)], total: 2, curPage: 1, pageSize: 10 }),
    [meterEventsApi.storms.path]: () => ok({ list: groups(), total: groups().length, curPage: 1, pageSize: 10 }),
    [meterEventsApi.acknowledge.path]: () => ok({ acknowledged: 240, already: 0 }),
  });
}

/** The storms panel alone, for a user holding `uris`, under the page's filters. */
function renderStorms(uris: readonly string[], filters: Record<string, string> = PERIOD) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={queryClient}>
      <App>
        <PermissionProvider index={indexPermissions(permittedTree(uris))}>
          <MemoryRouter>
            <EventStorms filters={filters} />
          </MemoryRouter>
        </PermissionProvider>
      </App>
    </QueryClientProvider>,
  );
}

const ACKNOWLEDGER = [METER_EVENTS_RES.page, METER_EVENTS_RES.detail, METER_EVENTS_RES.acknowledge];

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('meter events: storms and their acknowledgement', () => {
  it('groups a storm by DCU and code, and acknowledges it whole once a remark is given', async () => {
    let groups = [storm];
    const api = stubStorms(() => groups);
    const user = userEvent.setup();
    renderStorms(ACKNOWLEDGER);

    const row = await screen.findByTestId('storm-row-DCU0007-1');
    expect(within(row).getByText('1 · Power down')).toBeTruthy();
    expect(within(row).getAllByText('240')).toHaveLength(3);
    expect(api.callsTo(meterEventsApi.storms.path)[0]?.body).toEqual({ ...PERIOD, curPage: 1, pageSize: 10 });

    await user.click(within(row).getByTestId('storm-ack-DCU0007-1'));
    const dialog = await screen.findByTestId('ack-dialog');
    expect(within(dialog).getByTestId('ack-text').textContent).toContain('240');
    expect(within(dialog).getByTestId('ack-text').textContent).toContain('DCU0007');
    // The remark is required: nothing is sent without one.
    await user.click(screen.getByTestId('ack-confirm'));
    expect(await within(dialog).findByText('This part is mandatory')).toBeTruthy();
    expect(api.callsTo(meterEventsApi.acknowledge.path)).toHaveLength(0);

    groups = [{ ...storm, acknowledged: 240, unacknowledged: 0 }];
    await user.type(within(dialog).getByTestId('field-remark'), 'F1 trip');
    await user.click(screen.getByTestId('ack-confirm'));
    await waitFor(() => expect(api.callsTo(meterEventsApi.acknowledge.path)).toHaveLength(1));
    expect(api.callsTo(meterEventsApi.acknowledge.path)[0]?.body).toEqual({
      remark: 'F1 trip',
      storm: { dcuId: DCU, code: 1, from: storm.firstTime, to: storm.lastTime },
    });
    expect(await screen.findByText('Events acknowledged: 240')).toBeTruthy();
    // The groups are asked again and show the storm acknowledged.
    expect(await screen.findByTestId('storm-done-DCU0007-1')).toBeTruthy();
    expect(screen.queryByTestId('ack-dialog')).toBeNull();
  });

  it("opens a storm's events and acknowledges those picked; without the button nothing is offered", async () => {
    const api = stubStorms(() => [storm]);
    const user = userEvent.setup();
    const { unmount } = renderStorms(ACKNOWLEDGER, { ...PERIOD, gridId: 'c'.repeat(32) });
    await user.click(await screen.findByTestId('storm-events-DCU0007-1'));
    const events = await screen.findByTestId('storm-events-list-DCU0007-1');
    await within(events).findByText('MTR0001');
    expect(api.callsTo(meterEventsApi.list.path).map((call) => call.body)).toContainEqual({
      ...PERIOD,
      gridId: 'c'.repeat(32),
      dcuId: DCU,
      code: 1,
      curPage: 1,
      pageSize: 10,
    });
    // An acknowledged event cannot be picked again.
    const checkboxes = within(events).getAllByRole('checkbox');
    const second = within(events).getByText('MTR0002').closest('tr') as HTMLElement;
    expect((within(second).getByRole('checkbox') as HTMLInputElement).disabled).toBe(true);
    const first = within(events).getByText('MTR0001').closest('tr') as HTMLElement;
    await user.click(within(first).getByRole('checkbox'));
    expect(checkboxes.length).toBeGreaterThan(1);
    await user.click(screen.getByTestId('storm-ack-selected-DCU0007-1'));
    const dialog = await screen.findByTestId('ack-dialog');
    expect(within(dialog).getByTestId('ack-text').textContent).toContain('1');
    await user.type(within(dialog).getByTestId('field-remark'), 'ok');
    await user.click(screen.getByTestId('ack-confirm'));
    await waitFor(() => expect(api.callsTo(meterEventsApi.acknowledge.path)).toHaveLength(1));
    expect(api.callsTo(meterEventsApi.acknowledge.path)[0]?.body).toEqual({
      remark: 'ok',
      events: [{ meterId: event(1).meterId, time: DOWN, code: 1 }],
    });
    unmount();

    stubStorms(() => [storm]);
    renderStorms([METER_EVENTS_RES.page]);
    const row = await screen.findByTestId('storm-row-DCU0007-1');
    expect(within(row).queryByTestId('storm-ack-DCU0007-1')).toBeNull();
    await user.click(within(row).getByTestId('storm-events-DCU0007-1'));
    const list = await screen.findByTestId('storm-events-list-DCU0007-1');
    await within(list).findByText('MTR0001');
    expect(within(list).queryAllByRole('checkbox')).toHaveLength(0);
  });

  it("draws a meter's timeline from the storm's event, with the meter and period it was opened with", async () => {
    const api = stubApi({
      [meterEventsDetailApi.list.path]: () => ok({ list: [event(1)], total: 1, curPage: 1, pageSize: 10 }),
      [meterEventsDetailApi.summary.path]: () =>
        ok({
          figures: { devAddr: 'MTR0001', events: 1, severe: 1, unacknowledged: 1 },
          points: [{ time: DOWN, regular: null, medium: null, severe: 1 }],
        }),
      [meterEventsApi.codes.path]: () => ok([]),
    });
    renderInShell(
      permittedTree([METER_EVENTS_RES.page, METER_EVENTS_RES.detail]),
      `${METER_EVENTS_RES.detail}?meterId=${METER}&startDay=${PERIOD.startDay}&endDay=${PERIOD.endDay}`,
    );
    expect(await screen.findByTestId('analytics-chart-meterEventsDetail')).toBeTruthy();
    expect((await screen.findByTestId('analytics-detail-title')).textContent).toBe('Events of meter MTR0001');
    expect(api.callsTo(meterEventsDetailApi.summary.path)[0]?.body).toEqual({ ...PERIOD, meterId: METER });
  });
});
