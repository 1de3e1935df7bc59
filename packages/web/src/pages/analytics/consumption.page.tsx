import {
  CONSUMPTION_RES,
  type ConsumptionRow,
  consumptionAnalytics,
  consumptionApi,
  consumptionDetailAnalytics,
  consumptionDetailApi,
} from '@meterdesk/contracts';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import type { RowAction } from '@/crud/crud-config';
import { AnalyticsDetailHeader, MeterDetailMissing } from './analytics-detail';
import { AnalyticsPage, type AnalyticsScreen, periodParams } from './analytics-page';

/** Consumption data: each meter's consumption over the period, a meter's days in its detail. */
export function ConsumptionPage() {
  const [params] = useSearchParams();
  // The drill-down opens the meter for the period the list shows.
  const period = JSON.stringify(periodParams(consumptionAnalytics, params));
  const screen = useMemo<AnalyticsScreen>(() => {
    const detail: RowAction<ConsumptionRow> = {
      key: 'detail',
      label: 'analytics.openDetail',
      permission: CONSUMPTION_RES.detail,
      to: (row) =>
        `${CONSUMPTION_RES.detail}?${new URLSearchParams({ meterId: row.meterId, ...JSON.parse(period) }).toString()}`,
    };
    return {
      definition: consumptionAnalytics,
      api: consumptionApi,
      rowKey: 'meterId',
      rowActions: [detail as unknown as RowAction],
    };
  }, [period]);
  return <AnalyticsPage screen={screen} />;
}

const detailScreen: AnalyticsScreen = {
  definition: consumptionDetailAnalytics,
  api: consumptionDetailApi,
  rowKey: 'day',
};

export function ConsumptionDetailPage() {
  const [params] = useSearchParams();
  const meterId = params.get('meterId');
  if (!meterId) return <MeterDetailMissing list={CONSUMPTION_RES.page} />;
  return (
    <AnalyticsPage
      screen={detailScreen}
      fixed={{ meterId }}
      header={(figures) => (
        <AnalyticsDetailHeader
          title="analytics.consumption.detailTitle"
          name={figures?.devAddr}
          list={CONSUMPTION_RES.page}
        />
      )}
    />
  );
}
