import { GIS_RES, gridApi, type LiveDeviceChange, type Meter, meterApi } from '@meterdesk/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '@/fields/date-text';
import { ok, stubApi } from '@/test/api-stub';
import { followers } from '@/test/fake-broker';
import { gridNode } from '@/test/grid-fixture';
import { meterFixture } from '@/test/meter-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

vi.mock('@/app/live/broker-topics', () => import('@/test/fake-broker'));

const PAGE = '/archiveSetting/meter';
const id = (n: number) => String(n).repeat(32).slice(0, 32);
const online = meterFixture({
  id: id(1),
  devAddr: '210400010001',
  linkState: 'online',
  lastCommTime: '2026-01-05T08:30:00.000Z',
  relayState: 0,
  lastReading: 12345.67,
  lastReadTime: '2026-01-05T08:15:00.000Z',
});
const silent = meterFixture({ id: id(2), devAddr: '210400010002' });
const listOf = (list: Meter[]) => ok({ list, total: list.length, curPage: 1, pageSize: 10 });

function formItem(testId: string): HTMLElement {
  const item = screen.getByTestId(testId).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

describe('a meter’s live state in the archive', () => {
  it('lists online, relay, last reading and communication, filters by online state and sorts by last communication', async () => {
    const api = stubApi({ [meterApi.list.path]: () => listOf([online, silent]) });
    renderInShell(permittedTree([PAGE, GIS_RES]), PAGE);
    const user = userEvent.setup();
    expect((await screen.findByTestId('online-210400010001')).textContent).toBe('Online');
    expect(screen.getByTestId('online-210400010002').textContent).toBe('Offline');
    expect(screen.getByTestId('relay-210400010001').textContent).toBe('Disconnected');
    // Never learnt: said so, muted, so the column is not a bare reading.
    expect(screen.getByTestId('relay-210400010002').textContent).toBe('Unknown');
    expect(screen.getByTestId('relay-210400010002').className).toContain('secondary');
    expect(screen.getByText('12345.67')).toBeTruthy();
    // Each fact beneath its companion, so the list fits a 1440 px screen: the online tag over the last
    // communication, the relay over the last reading, under one header each.
    const cellOf = (testId: string) => screen.getByTestId(testId).closest('td');
    expect(cellOf('online-210400010001')?.textContent).toBe(`Online${formatDateTime(online.lastCommTime ?? '')}`);
    expect(cellOf('relay-210400010001')?.textContent).toBe('Disconnected12345.67');
    expect(screen.getByRole('columnheader', { name: /Online.*Last communication/ })).toBeTruthy();
    // Show on map belongs to the detail page, not to every row.
    expect(screen.queryByTestId(`row-showOnMap-${id(1)}`)).toBeNull();

    // The relay filter still asks for a state.
    fireEvent.mouseDown(within(formItem('field-relayState')).getByRole('combobox'));
    await user.click(await screen.findByTitle('Connected'));
    await user.click(screen.getByTestId('crud-search'));
    await waitFor(() => expect(api.callsTo(meterApi.list.path).at(-1)?.body).toMatchObject({ relayState: 1 }));
    await waitFor(() => expect(document.querySelector('.ant-spin-spinning')).toBeNull());
    await user.click(screen.getByTestId('crud-reset'));
    await waitFor(() => expect(api.callsTo(meterApi.list.path).at(-1)?.body).not.toHaveProperty('relayState'));

    fireEvent.mouseDown(within(formItem('field-linkState')).getByRole('combobox'));
    await user.click(await screen.findByTitle('Offline'));
    await user.click(screen.getByTestId('crud-search'));
    await waitFor(() => expect(api.callsTo(meterApi.list.path).at(-1)?.body).toMatchObject({ linkState: 'offline' }));
    // The table takes no clicks while it loads.
    await waitFor(() => expect(document.querySelector('.ant-spin-spinning')).toBeNull());

    await user.click(screen.getByRole('columnheader', { name: /Last communication/ }));
    await waitFor(() =>
      expect(api.callsTo(meterApi.list.path).at(-1)?.body).toMatchObject({
        sortField: 'lastCommTime',
        sortOrder: 'ascend',
        linkState: 'offline',
      }),
    );
  }, 60_000);

  it('shows the live state on the detail, with Show on map for a user who may open the map', async () => {
    stubApi({
      [meterApi.detail.path]: () => ok(online),
      [meterApi.history.path]: () => ok([]),
    });
    const { router } = renderInShell(permittedTree([`${PAGE}/detail`, GIS_RES]), `${PAGE}/detail?id=${id(1)}`);
    const detail = await screen.findByTestId('meter-detail');
    expect(within(detail).getByTestId('online-210400010001').textContent).toBe('Online');
    expect(within(detail).getByText('Last reading time')).toBeTruthy();
    await userEvent.setup().click(screen.getByTestId('detail-showOnMap'));
    await waitFor(() => expect(router.state.location.pathname).toBe(GIS_RES));
    expect(router.state.location.search).toBe(`?focus=meter%3A${id(1)}`);
  }, 60_000);

  it('offers no Show on map without the map', async () => {
    stubApi({
      [meterApi.detail.path]: () => ok(silent),
      [meterApi.history.path]: () => ok([]),
    });
    renderInShell(permittedTree([`${PAGE}/detail`]), `${PAGE}/detail?id=${id(2)}`);
    expect((await screen.findByTestId('online-210400010002')).textContent).toBe('Offline');
    expect(screen.queryByTestId('detail-showOnMap')).toBeNull();
  }, 60_000);

  it('reads the page again when a shown meter or its DCU changes link, not for other devices', async () => {
    followers.length = 0;
    const region = id(7);
    const dcuId = id(8);
    const behindDcu = { ...online, dcuId, dcuNo: 'DCU-1' };
    let dark = false;
    const api = stubApi({
      [gridApi.tree.path]: () => ok([gridNode(region, 'Region', '0')]),
      [meterApi.list.path]: () => listOf([dark ? { ...behindDcu, linkState: 'offline' } : behindDcu, silent]),
    });
    renderInShell(permittedTree([PAGE]), PAGE);
    expect((await screen.findByTestId('online-210400010001')).textContent).toBe('Online');
    await waitFor(() => expect(followers.length).toBeGreaterThan(0));
    const follower = followers.at(-1)!;
    // No grid node chosen: the top nodes of the caller's tree.
    expect(follower.topics).toEqual([`live/grid/${region}/devices`]);
    act(() => follower.handlers.onLive(true));
    const change = (kind: LiveDeviceChange['kind'], deviceId: string, what: LiveDeviceChange['change']) =>
      JSON.stringify({
        gridId: region,
        changes: [{ kind, id: deviceId, key: 'K', gridId: region, change: what, at: new Date().toISOString() }],
        omitted: 0,
      });
    await waitFor(() => expect(document.querySelector('.ant-spin-spinning')).toBeNull());
    const reads = api.callsTo(meterApi.list.path).length;

    // Another DCU going offline, or the shown meter's supply alone: nothing the column shows.
    act(() => follower.handlers.onMessage(follower.topics[0]!, change('dcu', id(9), 'offline')));
    act(() => follower.handlers.onMessage(follower.topics[0]!, change('meter', id(1), 'powerDown')));
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(api.callsTo(meterApi.list.path)).toHaveLength(reads);

    // The shown meter's DCU goes offline: the page is read again and the meter shows offline.
    dark = true;
    act(() => follower.handlers.onMessage(follower.topics[0]!, change('dcu', dcuId, 'offline')));
    await waitFor(() => expect(screen.getByTestId('online-210400010001').textContent).toBe('Offline'));
    expect(api.callsTo(meterApi.list.path)).toHaveLength(reads + 1);
  }, 60_000);
});
