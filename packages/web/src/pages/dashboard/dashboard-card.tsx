import { DASHBOARD_CARDS, DASHBOARD_REFRESH_DELAY_MS, type DashboardCard, type Operation } from '@meterdesk/contracts';
import { type QueryClient, type UseQueryResult, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Empty } from 'antd';
import { type ReactNode, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { z } from 'zod';
import { callApi } from '@/api/api-client';
import { errorText } from '@/i18n/message-text';

/** Every card's query key starts here, so the router refresh finds them all. */
const DASHBOARD_KEY = 'dashboard';

/**
 * A card's call. Cached figures are shown at once when the dashboard comes back and are asked again
 * only by the router refresh (`useRouterRefresh`), never on mount.
 */
export function useCardQuery<Req extends z.ZodType, Res extends z.ZodType>(
  op: Operation<Req, Res>,
  body: z.input<Req>,
): UseQueryResult<z.output<Res>> {
  return useQuery({
    queryKey: [DASHBOARD_KEY, op.path, body],
    queryFn: ({ signal }) => callApi(op, body, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
    placeholderData: (previous) => previous,
  });
}

/** Asks every card whose figures predate `shownAt` again (not one still loading). */
function refreshCards(queryClient: QueryClient, shownAt: number): Promise<void> {
  return queryClient.invalidateQueries({
    queryKey: [DASHBOARD_KEY],
    predicate: ({ state }) =>
      state.fetchStatus === 'idle' && Math.max(state.dataUpdatedAt, state.errorUpdatedAt) < shownAt,
  });
}

/**
 * spec §9: the dashboard refreshes DASHBOARD_REFRESH_DELAY_MS after the router has shown it, so the
 * figures kept from the last visit show at once and the page settles before the calls go out. A card
 * asked for the first time on this visit is not asked twice.
 */
export function useRouterRefresh(): () => void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const shownAt = Date.now();
    const timer = setTimeout(() => void refreshCards(queryClient, shownAt), DASHBOARD_REFRESH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [queryClient]);
  return () => void refreshCards(queryClient, Date.now());
}

export type CardState = 'loading' | 'error' | 'empty' | 'data';

/**
 * One card: it links to the page that explains it; its body is the figures, or the card's own
 * loading, empty or error state (`data-state`), so a card that fails leaves the others standing.
 */
export function DashboardCardFrame<T>({
  card,
  title,
  query,
  isEmpty,
  empty,
  footer,
  linkParams,
  children,
}: {
  card: DashboardCard;
  title: string;
  query: UseQueryResult<T>;
  isEmpty: (data: T) => boolean;
  empty: string;
  /** Below the figures (the alarm log's paging). */
  footer?: (data: T) => ReactNode;
  /** The filters and period the page it links to opens with, so that it shows what the card counts. */
  linkParams?: Readonly<Record<string, string>>;
  children: (data: T) => ReactNode;
}) {
  const { t } = useTranslation();
  const { data, error } = query;
  const state: CardState =
    error && data === undefined ? 'error' : data === undefined ? 'loading' : isEmpty(data) ? 'empty' : 'data';
  const testId = `dashboard-card-${card}`;
  return (
    <Card
      data-testid={testId}
      data-state={state}
      size="small"
      loading={state === 'loading'}
      style={{ height: '100%' }}
      title={title}
      extra={
        <Link
          to={{ pathname: DASHBOARD_CARDS[card], search: linkParams && `?${new URLSearchParams(linkParams)}` }}
          data-testid={`${testId}-link`}
        >
          {t('dashboard.details')}
        </Link>
      }
    >
      {state === 'error' && (
        <Alert
          type="error"
          showIcon
          title={errorText(t, error)}
          action={
            <Button size="small" data-testid={`${testId}-retry`} onClick={() => void query.refetch()}>
              {t('dashboard.retry')}
            </Button>
          }
        />
      )}
      {state === 'empty' && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} />}
      {data !== undefined && state === 'data' && children(data)}
      {data !== undefined && state === 'data' && footer?.(data)}
    </Card>
  );
}
