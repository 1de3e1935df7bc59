import { noticeApi } from '@meterdesk/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { brokerUrl } from '@/app/live/broker-topics';
import { parseCount, type UnreadFeed, type UnreadFeedHandlers, unreadTopic } from '@/app/notices/unread-feed';
import { PermissionProvider } from '@/app/permissions/permission-context';
import { indexPermissions } from '@/app/permissions/permission-index';
import { ok, stubApi } from '@/test/api-stub';
import { permittedTree } from '@/test/resource-tree';
import { NoticeBadge, UnreadFeedProvider } from './notice-badge';

/** Stands in for the broker: the test pushes what the server would publish. */
function fakeFeed() {
  const feed = {
    username: '',
    handlers: undefined as UnreadFeedHandlers | undefined,
    stopped: false,
    connect: ((username, handlers) => {
      feed.username = username;
      feed.handlers = handlers;
      return () => {
        feed.stopped = true;
      };
    }) as UnreadFeed,
  };
  return feed;
}

function renderBadge(feed: ReturnType<typeof fakeFeed>) {
  const index = indexPermissions(permittedTree(['/sysMGT/notifyMGT/subscribe']));
  const router = createMemoryRouter([
    {
      path: '*',
      element: (
        <PermissionProvider index={index}>
          <UnreadFeedProvider value={feed.connect}>
            <NoticeBadge username="meter.reader" />
          </UnreadFeedProvider>
        </PermissionProvider>
      ),
    },
  ]);
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

const count = () => screen.getByTestId('notice-badge-count').getAttribute('data-count');

afterEach(() => vi.useRealTimers());

describe('notice badge', () => {
  it('shows each pushed count at once and fetches the count again when the subscription starts', async () => {
    let stored = 2;
    const api = stubApi({ [noticeApi.countunreadnoticenum.path]: () => ok({ count: stored }) });
    const feed = fakeFeed();
    renderBadge(feed);

    await waitFor(() => expect(count()).toBe('2'));
    expect(feed.username).toBe('meter.reader');

    stored = 4;
    act(() => feed.handlers?.onLive(true));
    await waitFor(() => expect(count()).toBe('4'));
    expect(api.callsTo(noticeApi.countunreadnoticenum.path)).toHaveLength(2);

    act(() => feed.handlers?.onCount(7));
    await waitFor(() => expect(count()).toBe('7'));
    expect(screen.getByTestId('notice-badge-count').textContent).toContain('7');
    act(() => feed.handlers?.onCount(0));
    await waitFor(() => expect(count()).toBe('0'));
    expect(api.callsTo(noticeApi.countunreadnoticenum.path)).toHaveLength(2);
  });

  it('polls every minute only while nothing is pushed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const api = stubApi({ [noticeApi.countunreadnoticenum.path]: () => ok({ count: 1 }) });
    const calls = () => api.callsTo(noticeApi.countunreadnoticenum.path).length;
    const feed = fakeFeed();
    renderBadge(feed);
    await waitFor(() => expect(calls()).toBe(1));

    await act(() => vi.advanceTimersByTimeAsync(60_000));
    await waitFor(() => expect(calls()).toBe(2));

    act(() => feed.handlers?.onLive(true));
    await waitFor(() => expect(calls()).toBe(3));
    await act(() => vi.advanceTimersByTimeAsync(180_000));
    expect(calls()).toBe(3);

    act(() => feed.handlers?.onLive(false));
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    await waitFor(() => expect(calls()).toBe(4));
  });

  it('stops following the count when the shell goes (logout)', async () => {
    stubApi({ [noticeApi.countunreadnoticenum.path]: () => ok({ count: 0 }) });
    const feed = fakeFeed();
    const view = renderBadge(feed);
    await waitFor(() => expect(feed.handlers).toBeDefined());

    view.unmount();

    expect(feed.stopped).toBe(true);
  });
});

describe('unread feed helpers', () => {
  it('reaches a broker path through this host, with wss behind https', () => {
    expect(brokerUrl('/mqtt', { protocol: 'http:', host: 'localhost:8080' })).toBe('ws://localhost:8080/mqtt');
    expect(brokerUrl('/mqtt', { protocol: 'https:', host: 'ami.example' })).toBe('wss://ami.example/mqtt');
    expect(brokerUrl('wss://broker.example/mqtt', { protocol: 'http:', host: 'x' })).toBe('wss://broker.example/mqtt');
  });

  it('puts the username into the topic and reads only well-formed counts', () => {
    const config = { url: '/mqtt', protocolVersion: 4 as const, topics: { unread: 'notice/{username}/unread' } };
    expect(unreadTopic(config, 'admin')).toBe('notice/admin/unread');
    expect(parseCount(new TextEncoder().encode('{"count":3}'))).toBe(3);
    expect(parseCount('{"count":-1}')).toBeUndefined();
    expect(parseCount('{"total":3}')).toBeUndefined();
    expect(parseCount('not json')).toBeUndefined();
  });
});
