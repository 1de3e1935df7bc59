import {
  FROZEN_REGISTER_KEYS,
  type MeterFrozen,
  PROFILE_CHANNEL_KEYS,
  type ProfileChannelKey,
  readingsApi,
} from '@meterdesk/contracts';
import { useQueries, useQuery } from '@tanstack/react-query';
import { Alert, Card, DatePicker, Empty, Flex, Segmented, Select, Spin, Table, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { Chart } from '@/charts/chart';
import { errorText } from '@/i18n/message-text';
import { useLanguage } from '@/i18n/use-language';
import { addDays, dayShortcuts, type FrozenKind, frozenRange, isAfterToday, utcToday } from './meter-data-days';
import { COMPARE_DAYS, type CompareChoice, profileChartData, profileDays } from './profile-data';

type FrozenRow = MeterFrozen['rows'][number];

/**
 * A meter's data tab: the load profile of a chosen day as a chart, with the days before it overlaid
 * when asked, and its frozen values beside it. Days are UTC days, as the store files them; the picker
 * offers none after today.
 */
export function MeterData({ id }: { id: string }) {
  const { t } = useTranslation();
  const [day, setDay] = useState(() => addDays(utcToday(), -1));
  const [channel, setChannel] = useState<ProfileChannelKey>('activePower');
  const [compare, setCompare] = useState<CompareChoice>('none');
  const [kind, setKind] = useState<FrozenKind>('daily');
  const shortcuts = dayShortcuts();

  const profiles = useQueries({
    queries: profileDays(day, compare).map((shown) => ({
      queryKey: ['readings', 'profile', id, shown],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        callApi(readingsApi.profile, { meterId: id, day: shown }, { signal }),
    })),
  });
  const [profile] = profiles as [(typeof profiles)[number]];
  const profileError = profiles.find((p) => p.error)?.error;
  const arrived = profiles.flatMap((p) => (p.data ? [p.data] : []));
  const unit = profile.data?.channels.find((c) => c.key === channel)?.unit;
  const channelLabel = `${t(`readings.channels.${channel}`)}${unit ? ` (${unit})` : ''}`;
  // The chart redraws only when what it is given changes (it compares its option by value).
  const chartData = profileChartData(arrived, channel, {
    channel: channelLabel,
    time: t('readings.profile.time'),
  });
  const range = frozenRange(kind, day);
  const frozen = useQuery({
    queryKey: ['readings', kind, id, range.startDay, range.endDay],
    queryFn: ({ signal }) => callApi(readingsApi[kind], { meterId: id, ...range }, { signal }),
  });

  const language = useLanguage();
  const unitOf = (key: string) => frozen.data?.channels.find((c) => c.key === key)?.unit;
  const columns = [
    {
      key: 'day',
      title: t(kind === 'daily' ? 'readings.frozen.day' : 'readings.frozen.month'),
      width: 110,
      render: (_: unknown, row: FrozenRow) => (kind === 'daily' ? row.day : row.day.slice(0, 7)),
    },
    ...FROZEN_REGISTER_KEYS.map((key) => ({
      key,
      title: `${t(`readings.channels.${key}`)}${unitOf(key) ? ` (${unitOf(key)})` : ''}`,
      align: 'right' as const,
      // Registers run to eight digits and more: grouped, as the interface language writes numbers.
      render: (_: unknown, row: FrozenRow) => row.values[key]?.toLocaleString(language) ?? '',
    })),
  ];

  return (
    <Flex vertical gap="middle" data-testid="meter-data">
      <Flex gap="small" align="center" wrap>
        <Typography.Text>{t('readings.day')}</Typography.Text>
        <DatePicker
          data-testid="readings-day"
          allowClear={false}
          value={dayjs(day)}
          disabledDate={(date) => isAfterToday(date.format('YYYY-MM-DD'))}
          presets={Object.entries(shortcuts).map(([name, value]) => ({
            label: t(`readings.shortcuts.${name}`),
            value: dayjs(value),
          }))}
          onChange={(date) => date && !isAfterToday(date.format('YYYY-MM-DD')) && setDay(date.format('YYYY-MM-DD'))}
        />
        <Typography.Text type="secondary">{t('readings.dayHint')}</Typography.Text>
      </Flex>
      <Card
        title={t('readings.profile.title')}
        extra={
          <Flex gap="small" wrap>
            <Select<CompareChoice>
              data-testid="readings-compare"
              aria-label={t('readings.profile.compare')}
              value={compare}
              onChange={setCompare}
              style={{ width: 200 }}
              options={Object.keys(COMPARE_DAYS).map((key) => ({
                value: key as CompareChoice,
                label: t(`readings.profile.compareDays.${key}`),
              }))}
            />
            <Select<ProfileChannelKey>
              data-testid="readings-channel"
              aria-label={t('readings.profile.channel')}
              value={channel}
              onChange={setChannel}
              style={{ width: 200 }}
              options={PROFILE_CHANNEL_KEYS.map((key) => ({ value: key, label: t(`readings.channels.${key}`) }))}
            />
          </Flex>
        }
      >
        {profileError ? (
          <Alert type="error" showIcon title={errorText(t, profileError)} />
        ) : !profile.data ? (
          <Flex justify="center" style={{ padding: 48 }}>
            <Spin data-testid="profile-loading" />
          </Flex>
        ) : arrived.every((p) => p.rows.length === 0) ? (
          <Empty data-testid="profile-empty" description={t('readings.profile.empty')} />
        ) : (
          <Flex vertical gap="small">
            <Typography.Text type="secondary" data-testid="profile-received">
              {t('readings.profile.received', { received: profile.data.rows.length, expected: profile.data.expected })}
            </Typography.Text>
            <Chart data={chartData} testId="profile-chart" />
          </Flex>
        )}
      </Card>
      <Card
        title={t('readings.frozen.title')}
        extra={
          <Segmented<FrozenKind>
            data-testid="readings-frozen-kind"
            value={kind}
            onChange={setKind}
            options={[
              { value: 'daily', label: t('readings.frozen.daily') },
              { value: 'monthly', label: t('readings.frozen.monthly') },
            ]}
          />
        }
      >
        {frozen.error ? (
          <Alert type="error" showIcon title={errorText(t, frozen.error)} />
        ) : (
          <Table<FrozenRow>
            data-testid="readings-frozen"
            rowKey="day"
            size="small"
            scroll={{ x: true }}
            // 31 days run past the window: the registers' names stay in sight above their values.
            sticky
            loading={frozen.isLoading}
            columns={columns}
            dataSource={frozen.data ? [...frozen.data.rows].reverse() : []}
            pagination={false}
            locale={{
              emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('readings.frozen.empty')} />,
            }}
          />
        )}
      </Card>
    </Flex>
  );
}
