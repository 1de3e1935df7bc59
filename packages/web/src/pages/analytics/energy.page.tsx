import {
  CUMULATIVE_ENERGY_RES,
  type CumulativeEnergyRow,
  cumulativeEnergyAnalytics,
  cumulativeEnergyApi,
  cumulativeEnergyDetailAnalytics,
  cumulativeEnergyDetailApi,
  ENERGY_GAIN_RES,
  type EnergyGainNodeRow,
  energyGainAnalytics,
  energyGainApi,
  energyGainGridAnalytics,
  energyGainGridApi,
} from '@meterdesk/contracts';
import { Alert, Segmented } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { RowAction } from '@/crud/crud-config';
import { AnalyticsDetailHeader, MeterDetailMissing, meterDetail } from './analytics-detail';
import { AnalyticsPage, type AnalyticsScreen, periodParams } from './analytics-page';

/** Cumulative energy: each meter's registers at a date, per tariff rate; a meter's registers by day in its detail. */
export function CumulativeEnergyPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const date = periodParams(cumulativeEnergyAnalytics, params).endDay ?? '';
  const screen = useMemo<AnalyticsScreen>(
    () => ({
      definition: cumulativeEnergyAnalytics,
      api: cumulativeEnergyApi,
      rowKey: 'meterId',
      // The detail opens on the month up to the date the list shows.
      rowActions: [
        meterDetail<CumulativeEnergyRow>(CUMULATIVE_ENERGY_RES.detail, CUMULATIVE_ENERGY_RES.detail, {
          startDay: addDays(date, -30),
          endDay: date,
        }),
      ],
    }),
    [date],
  );
  return (
    <AnalyticsPage screen={screen}>
      <Alert type="info" showIcon title={t('analyticsEnergy.readingDayHelp')} data-testid="cumulative-help" />
    </AnalyticsPage>
  );
}

const addDays = (day: string, days: number) =>
  day ? new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10) : day;

const registerDaysScreen: AnalyticsScreen = {
  definition: cumulativeEnergyDetailAnalytics,
  api: cumulativeEnergyDetailApi,
  rowKey: 'day',
};

export function CumulativeEnergyDetailPage() {
  const [params] = useSearchParams();
  const meterId = params.get('meterId');
  if (!meterId) return <MeterDetailMissing list={CUMULATIVE_ENERGY_RES.page} />;
  return (
    <AnalyticsPage
      screen={registerDaysScreen}
      fixed={{ meterId }}
      header={(figures) => (
        <AnalyticsDetailHeader
          title="analyticsEnergy.cumulativeDetailTitle"
          name={figures?.devAddr}
          list={CUMULATIVE_ENERGY_RES.page}
        />
      )}
    />
  );
}

const VIEW = 'view';
type GainView = 'meters' | 'grid';

/**
 * Energy gain: the meters by gain between two dates, largest first, or the grid nodes below the chosen
 * one with their subtrees' gains (`?view=grid`); a node's row opens the nodes below it.
 */
export function EnergyGainPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const view: GainView = params.get(VIEW) === 'grid' ? 'grid' : 'meters';
  const period = JSON.stringify(periodParams(energyGainAnalytics, params));
  const screen = useMemo<AnalyticsScreen>(() => {
    if (view === 'meters') return { definition: energyGainAnalytics, api: energyGainApi, rowKey: 'meterId' };
    const below: RowAction<EnergyGainNodeRow> = {
      key: 'below',
      label: 'analyticsEnergy.openNode',
      permission: ENERGY_GAIN_RES.page,
      to: (row) =>
        `${ENERGY_GAIN_RES.page}?${new URLSearchParams({ [VIEW]: 'grid', gridId: row.gridId, ...JSON.parse(period) }).toString()}`,
    };
    return {
      definition: energyGainGridAnalytics,
      api: energyGainGridApi,
      rowKey: 'gridId',
      rowActions: [below as unknown as RowAction],
    };
  }, [view, period]);
  const switchTo = (next: GainView) => {
    // The period and the grid node carry over; the other view's own filters and sort do not.
    const kept = new URLSearchParams({
      ...JSON.parse(period),
      ...(params.get('gridId') ? { gridId: params.get('gridId') as string } : {}),
    });
    if (next === 'grid') kept.set(VIEW, 'grid');
    setParams(kept);
  };
  return (
    <AnalyticsPage
      key={view}
      screen={screen}
      keepParams={[VIEW]}
      header={() => (
        <Segmented<GainView>
          data-testid="energy-gain-view"
          value={view}
          onChange={switchTo}
          options={[
            { value: 'meters', label: t('analyticsEnergy.gainViews.meters') },
            { value: 'grid', label: t('analyticsEnergy.gainViews.grid') },
          ]}
        />
      )}
    >
      <Alert type="info" showIcon title={t('analyticsEnergy.gainHelp')} data-testid="energy-gain-help" />
    </AnalyticsPage>
  );
}
