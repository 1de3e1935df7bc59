import {
  type ConcentratorRow,
  concentratorAnalytics,
  concentratorApi,
  type DeviceOnlineRow,
  deviceOnlineAnalytics,
  deviceOnlineApi,
  deviceOnlineChangesApi,
  deviceOnlineDetailAnalytics,
  deviceOnlineDetailApi,
  NETWORK_RES,
  type NetworkDcuHistoryRow,
  networkHistoryAnalytics,
  networkHistoryApi,
  networkMonitorAnalytics,
  networkMonitorApi,
  OnlineChangeRowSchema,
} from '@meterdesk/contracts';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Card, Table, type TableColumnsType, Tag, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import type { LiveDeviceUpdate } from '@/app/live/live-devices';
import { useLiveRefresh } from '@/app/live/live-refresh';
import { describeSchemaField, type RowAction } from '@/crud/crud-config';
import { FieldValue } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';
import { AnalyticsDetailHeader, MeterDetailMissing } from './analytics-detail';
import { AnalyticsPage, type AnalyticsScreen, type AnyAnalytics, periodParams } from './analytics-page';

/** A drill-down from a row to the device's online days, for the period the list shows (or the detail's default). */
function onlineDetailAction<R extends Record<string, unknown>>(
  deviceId: (row: R) => string,
  period: Record<string, string>,
): RowAction {
  const action: RowAction<R> = {
    key: 'onlineDetail',
    label: 'analytics.openDetail',
    permission: NETWORK_RES.onlineDetail,
    to: (row) =>
      `${NETWORK_RES.onlineDetail}?${new URLSearchParams({ deviceId: deviceId(row), ...period }).toString()}`,
  };
  return action as unknown as RowAction;
}

/** The period a list shows, passed on to the detail it opens (none for a page about now). */
function usePeriodOf(definition: AnyAnalytics) {
  const [params] = useSearchParams();
  return JSON.stringify(periodParams(definition, params));
}

/** Whether an update may change what the monitor shows: a link change, or changes a storm left unlisted. */
export const tellsLinks = (update: LiveDeviceUpdate) =>
  update.omitted > 0 || update.changes.some((c) => c.change === 'online' || c.change === 'offline');

function LiveTag({ live }: { live: boolean }) {
  const { t } = useTranslation();
  return (
    // Its own width, not the page column's: a tag, not a banner across the page.
    <Tag
      color={live ? 'green' : 'default'}
      data-testid="network-live"
      data-live={live}
      style={{ alignSelf: 'flex-start' }}
    >
      {t(live ? 'network.live.on' : 'network.live.off')}
    </Tag>
  );
}

const monitorScreen: AnalyticsScreen = {
  definition: networkMonitorAnalytics,
  api: networkMonitorApi,
  rowKey: 'gridId',
  rowTestId: 'network-node',
};

/** Network monitor: each grid node's devices online and offline now, read again as links change. */
export function NetworkMonitorPage() {
  const [params] = useSearchParams();
  const gridId = params.get('gridId');
  const nodes = useMemo(() => (gridId ? [gridId] : undefined), [gridId]);
  const queryClient = useQueryClient();
  // The summary, chart and rows all read again: a DCU going dark takes its meters with it.
  const live = useLiveRefresh(nodes, {
    concerns: tellsLinks,
    refresh: () => void queryClient.invalidateQueries({ queryKey: [networkMonitorAnalytics.entity.name] }),
    poll: true,
  });
  return <AnalyticsPage screen={monitorScreen} header={() => <LiveTag live={live} />} />;
}

/** Network historical monitor: the online rate per day, and each DCU's over the period. */
export function NetworkHistoryPage() {
  const period = usePeriodOf(networkHistoryAnalytics);
  const screen = useMemo<AnalyticsScreen>(
    () => ({
      definition: networkHistoryAnalytics,
      api: networkHistoryApi,
      rowKey: 'dcuId',
      rowActions: [onlineDetailAction<NetworkDcuHistoryRow>((row) => row.dcuId as string, JSON.parse(period))],
    }),
    [period],
  );
  return <AnalyticsPage screen={screen} />;
}

/** Concentrator monitoring: each DCU's link, heartbeat, meters online and today's reads. */
export function ConcentratorMonitoringPage() {
  const screen = useMemo<AnalyticsScreen>(
    () => ({
      definition: concentratorAnalytics,
      api: concentratorApi,
      rowKey: 'dcuId',
      rowActions: [onlineDetailAction<ConcentratorRow>((row) => row.dcuId as string, {})],
    }),
    [],
  );
  return <AnalyticsPage screen={screen} />;
}

/** Device online report: each meter's and DCU's online rate over the period. */
export function DeviceOnlineReportPage() {
  const period = usePeriodOf(deviceOnlineAnalytics);
  const screen = useMemo<AnalyticsScreen>(
    () => ({
      definition: deviceOnlineAnalytics,
      api: deviceOnlineApi,
      rowKey: 'deviceId',
      rowActions: [onlineDetailAction<DeviceOnlineRow>((row) => row.deviceId, JSON.parse(period))],
    }),
    [period],
  );
  return <AnalyticsPage screen={screen} />;
}

const detailScreen: AnalyticsScreen = {
  definition: deviceOnlineDetailAnalytics,
  api: deviceOnlineDetailApi,
  rowKey: 'day',
};

const CHANGE_FIELDS = ['at', 'state', 'source', 'deviceNo'] as const;
const CHANGES_PAGE = 10;

/** The device's link changes in the period shown, and a meter's DCU's: newest first, a page at a time. */
function OnlineChanges({ deviceId }: { deviceId: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [curPage, setCurPage] = useState(1);
  const period = periodParams(deviceOnlineDetailAnalytics, params);
  const body = { deviceId, ...period, curPage, pageSize: CHANGES_PAGE };
  const changes = useQuery({
    // The kit's refresh asks again for everything under the page's entity name.
    queryKey: [deviceOnlineDetailAnalytics.entity.name, 'changes', body],
    queryFn: ({ signal }) => callApi(deviceOnlineChangesApi, body, { signal }),
    placeholderData: keepPreviousData,
  });
  const columns: TableColumnsType<Record<string, unknown>> = CHANGE_FIELDS.map((key) => {
    const field = describeSchemaField(key, OnlineChangeRowSchema.shape[key], 'network.fields');
    return {
      key,
      dataIndex: key,
      title: t(field.label),
      render: (value: unknown) => <FieldValue field={field} value={value} />,
    };
  });
  return (
    <Card size="small" data-testid="online-changes">
      <Typography.Title level={5}>{t('network.deviceOnlineDetail.changes')}</Typography.Title>
      {changes.error ? (
        <Alert type="error" showIcon title={errorText(t, changes.error)} />
      ) : (
        <Table
          size="small"
          rowKey={(row) => `${row.at}-${row.source}`}
          columns={columns}
          dataSource={changes.data?.list as Record<string, unknown>[] | undefined}
          loading={changes.isFetching}
          pagination={{
            current: curPage,
            pageSize: CHANGES_PAGE,
            total: changes.data?.total ?? 0,
            onChange: setCurPage,
            showSizeChanger: false,
          }}
        />
      )}
    </Card>
  );
}

/** One device's days: its online rate per day, and its link changes. */
export function DeviceOnlineDetailPage() {
  const [params] = useSearchParams();
  const deviceId = params.get('deviceId');
  if (!deviceId) return <MeterDetailMissing list={NETWORK_RES.onlineReport} />;
  return (
    <AnalyticsPage
      screen={detailScreen}
      fixed={{ deviceId }}
      header={(figures) => (
        <AnalyticsDetailHeader
          title="network.deviceOnlineDetail.title"
          name={figures?.deviceNo}
          list={NETWORK_RES.onlineReport}
        />
      )}
    >
      <OnlineChanges deviceId={deviceId} />
    </AnalyticsPage>
  );
}
