import {
  addMonths,
  MONTHLY_BILLING_RES,
  MONTHLY_CONSUMPTION_RES,
  type MonthlyBillingRow,
  type MonthlyConsumptionRow,
  monthlyBillingAnalytics,
  monthlyBillingApi,
  monthlyBillingDetailAnalytics,
  monthlyBillingDetailApi,
  monthlyConsumptionAnalytics,
  monthlyConsumptionApi,
  monthlyConsumptionDetailAnalytics,
  monthlyConsumptionDetailApi,
} from '@meterdesk/contracts';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { AnalyticsDetailHeader, MeterDetailMissing, meterDetail } from './analytics-detail';
import { AnalyticsPage, type AnalyticsScreen, periodParams } from './analytics-page';

/** Monthly consumption: a row per meter and month of the period; a meter's months in its detail. */
export function MonthlyConsumptionPage() {
  const [params] = useSearchParams();
  // The drill-down opens the meter on the months the list shows.
  const period = JSON.stringify(periodParams(monthlyConsumptionAnalytics, params));
  const screen = useMemo<AnalyticsScreen>(
    () => ({
      definition: monthlyConsumptionAnalytics,
      api: monthlyConsumptionApi,
      // A meter has a row per month.
      rowKey: ['meterId', 'month'],
      rowActions: [
        meterDetail<MonthlyConsumptionRow>(
          MONTHLY_CONSUMPTION_RES.detail,
          MONTHLY_CONSUMPTION_RES.detail,
          JSON.parse(period),
        ),
      ],
    }),
    [period],
  );
  return <AnalyticsPage screen={screen} />;
}

const consumptionMonthsScreen: AnalyticsScreen = {
  definition: monthlyConsumptionDetailAnalytics,
  api: monthlyConsumptionDetailApi,
  rowKey: 'month',
};

export function MonthlyConsumptionDetailPage() {
  const [params] = useSearchParams();
  const meterId = params.get('meterId');
  if (!meterId) return <MeterDetailMissing list={MONTHLY_CONSUMPTION_RES.page} />;
  return (
    <AnalyticsPage
      screen={consumptionMonthsScreen}
      fixed={{ meterId }}
      header={(figures) => (
        <AnalyticsDetailHeader
          title="analyticsMonthly.consumption.detailTitle"
          name={figures?.devAddr}
          list={MONTHLY_CONSUMPTION_RES.page}
        />
      )}
    />
  );
}

/** The detail's months: a year of billing, up to the month the list shows. */
const BILLING_DETAIL_MONTHS = 12;

/** Monthly billing: each meter's freeze of a billing month, per tariff rate; a meter's billing months in its detail. */
export function MonthlyBillingPage() {
  const [params] = useSearchParams();
  const month = periodParams(monthlyBillingAnalytics, params).endMonth ?? '';
  const screen = useMemo<AnalyticsScreen>(
    () => ({
      definition: monthlyBillingAnalytics,
      api: monthlyBillingApi,
      rowKey: 'meterId',
      rowActions: [
        meterDetail<MonthlyBillingRow>(MONTHLY_BILLING_RES.detail, MONTHLY_BILLING_RES.detail, {
          startMonth: addMonths(month, 1 - BILLING_DETAIL_MONTHS),
          endMonth: month,
        }),
      ],
    }),
    [month],
  );
  return <AnalyticsPage screen={screen} />;
}

const billingMonthsScreen: AnalyticsScreen = {
  definition: monthlyBillingDetailAnalytics,
  api: monthlyBillingDetailApi,
  rowKey: 'month',
};

export function MonthlyBillingDetailPage() {
  const [params] = useSearchParams();
  const meterId = params.get('meterId');
  if (!meterId) return <MeterDetailMissing list={MONTHLY_BILLING_RES.page} />;
  return (
    <AnalyticsPage
      screen={billingMonthsScreen}
      fixed={{ meterId }}
      header={(figures) => (
        <AnalyticsDetailHeader
          title="analyticsMonthly.billing.detailTitle"
          name={figures?.devAddr}
          list={MONTHLY_BILLING_RES.page}
        />
      )}
    />
  );
}
