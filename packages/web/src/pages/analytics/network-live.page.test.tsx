import { gridApi, type LiveDeviceChange, NETWORK_RES, networkMonitorApi } from '@meterdesk/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ok, stubApi } from '@/test/api-stub';
import { followers } from '@/test/fake-broker';
import { gridNode } from '@/test/grid-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { tellsLinks } from './network.page';

vi.mock('@/app/live/broker-topics', () => import('@/test/fake-broker'));

const REGION = 'a'.repeat(32);
const AREA = 'b'.repeat(32);
const DCU = 'c'.repeat(32);
const node = (metersOnline: number, metersOffline: number, dcusOffline: number) => ({
  gridId: AREA,
  gridName: 'Area 1',
  gridType: 3,
  parentName: 'Region',
  depth: 0,
  metersOnline,
  metersOffline,
  meterOnlineRate: null,
  dcusOnline: 1 - dcusOffline,
  dcusOffline,
});
const figures = (metersOnline: number, metersOffline: number, dcusOffline: number) => ({
  metersOnline,
  metersOffline,
  meterOnlineRate: null,
  dcusOnline: 1 - dcusOffline,
  dcusOffline,
  dcuOnlineRate: null,
});
const change = (what: LiveDeviceChange['change']): LiveDeviceChange => ({
  kind: 'dcu',
  id: DCU,
  key: 'DCU-1',
  gridId: AREA,
  change: what,
  at: new Date().toISOString(),
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('network monitor, live', () => {
  it("reads the counts and the rows again when a device's link changes, without a reload", async () => {
    followers.length = 0;
    // The area goes dark once its DCU's change has been announced.
    let dark = false;
    const api = stubApi({
      [gridApi.tree.path]: () => ok([gridNode(REGION, 'Region', '0')]),
      [networkMonitorApi.summary.path]: () => ok({ figures: dark ? figures(0, 5, 1) : figures(5, 0, 0), points: [] }),
      [networkMonitorApi.list.path]: () =>
        ok({ list: [dark ? node(0, 5, 1) : node(5, 0, 0)], total: 1, curPage: 1, pageSize: 10 }),
    });
    renderInShell(permittedTree([NETWORK_RES.monitor]), NETWORK_RES.monitor);
    const offline = () => within(screen.getByTestId('analytics-figure-metersOffline')).queryByText('5');
    // The row's meters offline (the fifth column: name, type, parent, online, offline).
    const metersOfflineCell = () => screen.getByTestId(`network-node-${AREA}`).querySelectorAll('td')[4]?.textContent;
    await screen.findByTestId(`network-node-${AREA}`);
    expect(metersOfflineCell()).toBe('0');
    await waitFor(() => expect(followers).toHaveLength(1));
    const follower = followers[0]!;
    // The whole scope: the top nodes of the tree the user sees.
    expect(follower.topics).toEqual([`live/grid/${REGION}/devices`]);
    act(() => follower.handlers.onLive(true));
    expect(screen.getByTestId('network-live').getAttribute('data-live')).toBe('true');

    const summaries = api.callsTo(networkMonitorApi.summary.path).length;
    dark = true;
    act(() =>
      follower.handlers.onMessage(
        follower.topics[0]!,
        JSON.stringify({ gridId: REGION, changes: [change('offline')], omitted: 0 }),
      ),
    );
    await waitFor(() => expect(offline()).toBeTruthy());
    expect(api.callsTo(networkMonitorApi.summary.path)).toHaveLength(summaries + 1);
    await waitFor(() => expect(metersOfflineCell()).toBe('5'));
  });

  it('reads again for a link change or an unlisted storm, not for a supply change alone', () => {
    expect(tellsLinks({ changes: [change('offline')], omitted: 0 })).toBe(true);
    expect(tellsLinks({ changes: [change('online'), change('powerUp')], omitted: 0 })).toBe(true);
    expect(tellsLinks({ changes: [change('powerDown')], omitted: 0 })).toBe(false);
    expect(tellsLinks({ changes: [], omitted: 12 })).toBe(true);
  });
});
