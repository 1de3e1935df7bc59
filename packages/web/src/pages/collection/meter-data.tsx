import {
  FROZEN_REGISTER_KEYS,
  type MeterFrozen,
  PROFILE_CHANNEL_KEYS,
  type ProfileChannelKey,
  readingsApi,
} from '@meterdesk/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, DatePicker, Empty, Flex, Segmented, Select, Spin, Table, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { errorText } from '@/i18n/message-text';
import { useLanguage } from '@/i18n/use-language';
import { addDays, dayShortcuts, type FrozenKind, frozenRange, isAfterToday, utcToday } from './meter-data-days';
import { ProfileChart } from './profile-chart';

type FrozenRow = MeterFrozen['rows'][number];

/**
 * A meter's data tab: the load profile of a chosen day as a chart and its frozen values beside it.
 * Days are UTC days, as the store files them; the picker offers none after today.
 */
export function MeterData({ id }: { id: string }) {
  const { t } = useTranslation();
  const [day, setDay] = useState(() => addDays(utcToday(), -1));
  const [channel, setChannel] = useState<ProfileChannelKey>('activePower');
  const [kind, setKind] = useState<FrozenKind>('daily');
  const shortcuts = dayShortcuts();

  const profile = useQuery({
    queryKey: ['readings', 'profile', id, day],
    queryFn: ({ signal }) => callApi(readingsApi.profile, { meterId: id, day }, { signal }),
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
          <Select<ProfileChannelKey>
            data-testid="readings-channel"
            aria-label={t('readings.profile.channel')}
            value={channel}
            onChange={setChannel}
            style={{ width: 200 }}
            options={PROFILE_CHANNEL_KEYS.map((key) => ({ value: key, label: t(`readings.channels.${key}`) }))}
          />
        }
      >
        {profile.error ? (
          <Alert type="error" showIcon title={errorText(t, profile.error)} />
        ) : !profile.data ? (
          <Flex justify="center" style={{ padding: 48 }}>
            <Spin data-testid="profile-loading" />
          </Flex>
        ) : profile.data.rows.length === 0 ? (
          <Empty data-testid="profile-empty" description={t('readings.profile.empty')} />
        ) : (
          <Flex vertical gap="small">
            <Typography.Text type="secondary" data-testid="profile-received">
              {t('readings.profile.received', { received: profile.data.rows.length, expected: profile.data.expected })}
            </Typography.Text>
            <ProfileChart profile={profile.data} channel={channel} />
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
