import { gridApi, type LiveDeviceChange } from '@meterdesk/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ok, stubApi } from '@/test/api-stub';
import { followers } from '@/test/fake-broker';
import { gridNode } from '@/test/grid-fixture';
import { type LiveDeviceUpdate, useLiveDeviceChanges } from './live-devices';

vi.mock('@/app/live/broker-topics', () => import('@/test/fake-broker'));

const id = (n: number) => n.toString(16).padStart(32, 'a');
const change = (n: number, gridId: string, what: LiveDeviceChange['change'] = 'offline'): LiveDeviceChange => ({
  kind: 'meter',
  id: id(100 + n),
  key: `M${n}`,
  gridId,
  change: what,
  at: '2024-05-01T10:00:00.000Z',
});
const message = (gridId: string, changes: LiveDeviceChange[], omitted = 0) =>
  JSON.stringify({ gridId, changes, omitted });

function wrapper({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={new QueryClient()}>{children}</QueryClientProvider>;
}

describe('useLiveDeviceChanges', () => {
  it("follows the top nodes of the caller's scope, once per change however many nodes carry it", async () => {
    followers.length = 0;
    const [north, south, area] = [id(1), id(2), id(3)];
    stubApi({
      [gridApi.tree.path]: () =>
        ok([gridNode(north, 'North', '0', [gridNode(area, 'Area', north)]), gridNode(south, 'South', '0')]),
    });
    const heard: LiveDeviceUpdate[] = [];
    const { result, unmount } = renderHook(() => useLiveDeviceChanges(undefined, (u) => heard.push(u)), { wrapper });
    await waitFor(() => expect(followers).toHaveLength(1));
    const follower = followers[0]!;
    expect([...follower.topics].sort()).toEqual([`live/grid/${north}/devices`, `live/grid/${south}/devices`].sort());

    act(() => follower.handlers.onLive(true));
    expect(result.current.live).toBe(true);
    act(() => follower.handlers.onMessage(follower.topics[0]!, message(north, [change(1, area)])));
    // The same change on another followed node, and a message that is not the server's: nothing new.
    act(() => follower.handlers.onMessage(follower.topics[1]!, message(south, [change(1, area)])));
    act(() => follower.handlers.onMessage(follower.topics[1]!, '{"changes": "nonsense"}'));
    act(() => follower.handlers.onMessage(follower.topics[1]!, message(south, [change(2, south, 'powerDown')], 7)));
    expect(heard).toEqual([
      { changes: [change(1, area)], omitted: 0 },
      { changes: [change(2, south, 'powerDown')], omitted: 7 },
    ]);
    unmount();
    expect(follower.stopped).toBe(true);
  });

  it('follows the nodes a page names and moves when they change', async () => {
    followers.length = 0;
    const { rerender } = renderHook(({ nodes }) => useLiveDeviceChanges(nodes, () => undefined), {
      wrapper,
      initialProps: { nodes: [id(5)] },
    });
    await waitFor(() => expect(followers).toHaveLength(1));
    expect(followers[0]!.topics).toEqual([`live/grid/${id(5)}/devices`]);
    // A new array with the same nodes keeps the subscription.
    rerender({ nodes: [id(5)] });
    expect(followers).toHaveLength(1);
    rerender({ nodes: [id(6)] });
    await waitFor(() => expect(followers).toHaveLength(2));
    expect(followers[0]!.stopped).toBe(true);
    expect(followers[1]!.topics).toEqual([`live/grid/${id(6)}/devices`]);
  });
});
