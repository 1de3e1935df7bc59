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
import { AnalyticsDetailHeader, MeterDetailMissing, meterDetail } from './analytics-detail';
import { AnalyticsPage, type AnalyticsScreen, periodParams } from './analytics-page';

/** Consumption data: each meter's consumption over the period, a meter's days in its detail. */
export function ConsumptionPage() {
  const [params] = useSearchParams();
  // The drill-down opens the meter for the period the list shows.
  const period = JSON.stringify(periodParams(consumptionAnalytics, params));
  const screen = useMemo<AnalyticsScreen>(
    () => ({
      definition: consumptionAnalytics,
      api: consumptionApi,
      rowKey: 'meterId',
      rowActions: [meterDetail<ConsumptionRow>(CONSUMPTION_RES.detail, CONSUMPTION_RES.detail, JSON.parse(period))],
    }),
    [period],
  );
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
