import { LineChartOutlined } from '@ant-design/icons';
import {
  LOAD_PROFILE_CURVE_CHANNELS,
  LOAD_PROFILE_RES,
  type LoadProfileCurveChannel,
  type LoadProfileRow,
  loadProfileAnalytics,
  loadProfileApi,
  loadProfileDetailAnalytics,
  loadProfileDetailApi,
  MAX_OVERLAY_CURVES,
  MAX_OVERLAY_DAYS,
} from '@meterdesk/contracts';
import { App, Button, Flex, Input, Select, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import type { Row, RowAction } from '@/crud/crud-config';
import type { SelectedRowsAction } from '@/crud/crud-list-page';
import { errorText } from '@/i18n/message-text';
import { AnalyticsDetailHeader, MeterDetailMissing } from './analytics-detail';
import { AnalyticsPage, type AnalyticsScreen, periodParams } from './analytics-page';

/** The detail's URL parameters: the meters overlaid (ids joined by commas) and the channel drawn. */
const METERS = 'meterIds';
const CHANNEL = 'channel';

/** The detail's parameters for `meterIds` on `day`: several meters are compared on one day. */
const curvesParams = (meterIds: readonly string[], day: string) =>
  new URLSearchParams({ [METERS]: meterIds.join(','), startDay: day, endDay: day });
const curvesOf = (meterIds: readonly string[], day: string) =>
  `${LOAD_PROFILE_RES.detail}?${curvesParams(meterIds, day)}`;

/**
 * Load profile: each meter's profile of a day (complete, partial, none) from the day rollups. A row
 * opens its meter's curve; the meters selected (at most MAX_OVERLAY_CURVES) open overlaid.
 */
export function LoadProfilePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const permissions = usePermissions();
  const [params] = useSearchParams();
  const day = periodParams(loadProfileAnalytics, params).endDay ?? '';
  const screen = useMemo<AnalyticsScreen>(() => {
    const curve: RowAction<LoadProfileRow> = {
      key: 'detail',
      label: 'analytics.openDetail',
      permission: LOAD_PROFILE_RES.detail,
      to: (row) => curvesOf([row.meterId], day),
    };
    return {
      definition: loadProfileAnalytics,
      api: loadProfileApi,
      rowKey: 'meterId',
      rowActions: [curve as unknown as RowAction],
    };
  }, [day]);
  const compare: SelectedRowsAction | undefined = permissions.pages.has(LOAD_PROFILE_RES.detail)
    ? {
        max: MAX_OVERLAY_CURVES,
        limitText: 'analyticsMonthly.loadProfile.meterLimit',
        render: (rows: Row[]) => (
          <Button
            type="primary"
            icon={<LineChartOutlined />}
            disabled={rows.length === 0}
            data-testid="load-profile-compare"
            onClick={() =>
              navigate(
                curvesOf(
                  (rows as unknown as LoadProfileRow[]).map((r) => r.meterId),
                  day,
                ),
              )
            }
          >
            {t('analyticsMonthly.loadProfile.compare')} ({rows.length})
          </Button>
        ),
      }
    : undefined;
  return <AnalyticsPage screen={screen} selectedAction={compare} />;
}

const curvesScreen: AnalyticsScreen = {
  definition: loadProfileDetailAnalytics,
  api: loadProfileDetailApi,
  rowKey: ['meterId', 'ts'],
};
/** Several meters are overlaid on one day only: their page's period is a single day. */
const meterCurvesScreen: AnalyticsScreen = {
  ...curvesScreen,
  definition: { ...loadProfileDetailAnalytics, period: { unit: 'day', maxDays: 1, defaultDays: 1, defaultEndsAgo: 1 } },
};

const isChannel = (value: string | null): value is LoadProfileCurveChannel =>
  (LOAD_PROFILE_CURVE_CHANNELS as readonly (string | null)[]).includes(value);

/**
 * Load profile curves: one meter's days (up to MAX_OVERLAY_DAYS) or several meters on one day, one
 * line each, in the channel chosen; a meter is added by its serial.
 */
export function LoadProfileDetailPage() {
  const [params] = useSearchParams();
  const meterIds = useMemo(() => (params.get(METERS) ?? '').split(',').filter(Boolean), [params]);
  const channel = params.get(CHANNEL);
  const chosen: LoadProfileCurveChannel = isChannel(channel) ? channel : 'activePower';
  const chart = useMemo(() => ({ ...loadProfileDetailAnalytics.chart, series: [chosen] }), [chosen]);
  if (meterIds.length === 0) return <MeterDetailMissing list={LOAD_PROFILE_RES.page} />;
  const screen = meterIds.length > 1 ? meterCurvesScreen : curvesScreen;
  return (
    <AnalyticsPage
      // One meter's days and several meters' day are periods of different lengths: a fresh filter bar.
      key={screen === curvesScreen ? 'days' : 'meters'}
      screen={screen}
      fixed={{ [METERS]: meterIds }}
      keepParams={[CHANNEL]}
      chart={chart}
      header={() => <CurvesHeader meterIds={meterIds} channel={chosen} />}
    />
  );
}

function CurvesHeader({ meterIds, channel }: { meterIds: readonly string[]; channel: LoadProfileCurveChannel }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [params, setParams] = useSearchParams();
  const [adding, setAdding] = useState(false);
  const [serial, setSerial] = useState('');
  const day = periodParams(loadProfileDetailAnalytics, params).endDay ?? '';
  const add = async (serial: string) => {
    const devAddr = serial.trim();
    if (!devAddr) return;
    setAdding(true);
    try {
      // The list of the day finds the meter by its serial, within the caller's grid scope.
      const found = await callApi(loadProfileApi.list, {
        devAddr,
        startDay: day,
        endDay: day,
        curPage: 1,
        pageSize: 1,
      });
      const meterId = found.list[0]?.meterId;
      if (!meterId) message.error(t('analyticsMonthly.loadProfile.meterNotFound', { serial: devAddr }));
      else {
        setSerial('');
        if (meterIds.includes(meterId)) return;
        const next = curvesParams([...meterIds, meterId], day);
        next.set(CHANNEL, channel);
        setParams(next);
      }
    } catch (error) {
      message.error(errorText(t, error));
    } finally {
      setAdding(false);
    }
  };
  return (
    <Flex vertical gap={12}>
      <AnalyticsDetailHeader title="analyticsMonthly.loadProfile.detailTitle" name="" list={LOAD_PROFILE_RES.page} />
      <Flex gap={16} align="center" wrap>
        <Flex gap={8} align="center">
          <Typography.Text>{t('analyticsMonthly.loadProfile.channel')}</Typography.Text>
          <Select<LoadProfileCurveChannel>
            data-testid="load-profile-channel"
            aria-label={t('analyticsMonthly.loadProfile.channel')}
            value={channel}
            style={{ width: 220 }}
            options={LOAD_PROFILE_CURVE_CHANNELS.map((key) => ({
              value: key,
              label: t(`analyticsMonthly.loadProfile.fields.${key}`),
            }))}
            onChange={(next) => {
              const kept = new URLSearchParams(params);
              kept.set(CHANNEL, next);
              setParams(kept);
            }}
          />
        </Flex>
        <Input.Search
          data-testid="load-profile-add"
          style={{ width: 280 }}
          placeholder={t('analyticsMonthly.loadProfile.addMeter')}
          enterButton={t('common.actions.add')}
          loading={adding}
          value={serial}
          onChange={(event) => setSerial(event.target.value)}
          disabled={meterIds.length >= MAX_OVERLAY_CURVES}
          onSearch={(value) => void add(value)}
        />
        <Typography.Text type="secondary" data-testid="load-profile-hint">
          {meterIds.length >= MAX_OVERLAY_CURVES
            ? t('analyticsMonthly.loadProfile.meterLimit', { max: MAX_OVERLAY_CURVES })
            : t('analyticsMonthly.loadProfile.overlayHint', { days: MAX_OVERLAY_DAYS })}
        </Typography.Text>
      </Flex>
    </Flex>
  );
}
