import {
  deviceOnlineApi,
  deviceOnlineChangesApi,
  deviceOnlineDetailApi,
  NETWORK_RES,
  networkMonitorApi,
  utcToday,
} from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const AREA = 'a'.repeat(32);
const DCU = 'd'.repeat(32);
const day = (offset: number) =>
  new Date(Date.parse(`${utcToday()}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

const node = {
  gridId: AREA,
  gridName: 'Area 1',
  gridType: 3,
  parentName: 'Region',
  depth: 1,
  metersOnline: 3,
  metersOffline: 1,
  meterOnlineRate: 75,
  dcusOnline: 1,
  dcusOffline: 0,
};
const now = {
  figures: {
    metersOnline: 3,
    metersOffline: 1,
    meterOnlineRate: 75,
    dcusOnline: 1,
    dcusOffline: 0,
    dcuOnlineRate: 100,
  },
  points: [{ gridName: 'Area 1', metersOnline: 3, metersOffline: 1 }],
};

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  applyLanguage('en');
});

describe('the network pages', () => {
  it('shows the network now without a period: the counts and each grid node as a row of its own', async () => {
    const api = stubApi({
      [networkMonitorApi.list.path]: () => ok({ list: [node], total: 1, curPage: 1, pageSize: 10 }),
      [networkMonitorApi.summary.path]: () => ok(now),
    });
    renderInShell(permittedTree([NETWORK_RES.monitor]), NETWORK_RES.monitor);
    const row = await screen.findByTestId(`network-node-${AREA}`);
    expect(within(row).getByText('Area 1')).toBeTruthy();
    expect(within(row).getByText('Transformer area')).toBeTruthy();
    await waitFor(() =>
      expect(within(screen.getByTestId('analytics-figure-metersOffline')).getByText('1')).toBeTruthy(),
    );
    expect(within(screen.getByTestId('analytics-figure-dcusOnline')).getByText('1')).toBeTruthy();
    expect(api.callsTo(networkMonitorApi.summary.path)[0]?.body).toEqual({});
    expect(api.callsTo(networkMonitorApi.list.path)[0]?.body).not.toHaveProperty('startDay');
    expect(screen.queryByText('Period')).toBeNull();
  });

  it("opens a device's days for the period the report shows, with its link changes", async () => {
    const period = { startDay: day(-6), endDay: day(0) };
    const api = stubApi({
      [deviceOnlineApi.list.path]: () =>
        ok({
          list: [
            {
              deviceId: DCU,
              deviceKind: 'dcu',
              deviceNo: 'DCU-7',
              gridId: AREA,
              gridName: 'Area 1',
              dcuId: DCU,
              dcuNo: 'DCU-7',
              devAddr: null,
              onlineRate: 91.7,
              onlineHours: 154,
              changes: 3,
              daysKnown: 7,
              state: 'offline',
            },
          ],
          total: 1,
          curPage: 1,
          pageSize: 10,
        }),
      [deviceOnlineApi.summary.path]: () =>
        ok({ figures: { devices: 1, onlineRate: 91.7, offlineNow: 1, changes: 3 }, points: [] }),
      [deviceOnlineDetailApi.list.path]: () =>
        ok({
          list: [{ day: day(0), onlineRate: 50, onlineHours: 6, changes: 1, stateAtEnd: 'offline' }],
          total: 1,
          curPage: 1,
          pageSize: 10,
        }),
      [deviceOnlineDetailApi.summary.path]: () =>
        ok({
          figures: {
            deviceNo: 'DCU-7',
            deviceKind: 'dcu',
            onlineRate: 50,
            changes: 1,
            state: 'offline',
            since: `${day(0)}T06:00:00.000Z`,
          },
          points: [{ day: day(0), onlineRate: 50 }],
        }),
      [deviceOnlineChangesApi.path]: () =>
        ok({
          list: [{ at: `${day(0)}T06:00:00.000Z`, state: 'offline', source: 'dcu', deviceNo: 'DCU-7' }],
          total: 1,
          curPage: 1,
          pageSize: 10,
        }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([NETWORK_RES.onlineReport, NETWORK_RES.onlineDetail]), NETWORK_RES.onlineReport);
    const row = (await screen.findByText('91.7', { selector: 'td *, td' })).closest('tr') as HTMLElement;
    expect(within(row).getByText('DCU')).toBeTruthy();
    await user.click(within(row).getByTestId(`row-onlineDetail-${DCU}`));
    await waitFor(() => expect(api.callsTo(deviceOnlineChangesApi.path)).toHaveLength(1));
    expect(api.callsTo(deviceOnlineChangesApi.path)[0]?.body).toEqual({
      deviceId: DCU,
      ...period,
      curPage: 1,
      pageSize: 10,
    });
    expect(api.callsTo(deviceOnlineDetailApi.summary.path)[0]?.body).toEqual({ deviceId: DCU, ...period });
    expect(await screen.findByTestId('analytics-detail-title')).toHaveProperty('textContent', 'Online days of DCU-7');
    const changes = screen.getByTestId('online-changes');
    expect(await within(changes).findByText('Offline')).toBeTruthy();
    // The summary names the device's kind and state by their labels, as the table does, not by their codes.
    expect(screen.getByTestId('analytics-figure-deviceKind').textContent).toContain('DCU');
    expect(screen.getByTestId('analytics-figure-state').textContent).toContain('Offline');
  });
});
