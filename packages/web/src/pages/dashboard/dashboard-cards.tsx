import {
  ALARM_DAYS,
  ALARM_PAGE_SIZE,
  addUtcDays,
  type DashboardCard,
  dashboardApi,
  EVENT_LEVEL_TONES,
  EVENT_LEVELS,
  EVENT_NAME_LABELS,
  type EventLevel,
  METER_EVENTS_DETAIL_PATH,
  systemLogEntity,
  utcToday,
} from '@meterdesk/contracts';
import { Button, Col, Flex, Progress, Row, Space, Statistic, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Chart } from '@/charts/chart';
import { describeSchemaField } from '@/crud/crud-config';
import { formatDateTime } from '@/fields/date-text';
import { fieldText, valueLabel } from '@/fields/field-value';
import { useLanguage } from '@/i18n/use-language';
import { DashboardCardFrame, useCardQuery } from './dashboard-card';

/** Numbers as the reader's language writes them. */
function useNumber(): (value: number, fractionDigits?: number) => string {
  const language = useLanguage();
  const locale = language === 'zh' ? 'zh-CN' : 'en';
  return (value, fractionDigits = 0) => value.toLocaleString(locale, { maximumFractionDigits: fractionDigits });
}

/** Counts of a field's values, each with its share of `total` as a bar. */
function Breakdown({ title, rows, total }: { title: string; rows: { label: string; count: number }[]; total: number }) {
  const number = useNumber();
  return (
    <div style={{ marginTop: 12 }}>
      <Typography.Text type="secondary">{title}</Typography.Text>
      {rows.map((row) => (
        <Flex key={row.label} gap={8} align="center">
          <span style={{ flex: '0 0 40%' }}>{row.label}</span>
          <Progress
            style={{ flex: 1, margin: 0 }}
            size="small"
            showInfo={false}
            percent={total ? (row.count * 100) / total : 0}
          />
          <span style={{ flex: '0 0 64px', textAlign: 'right' }}>{number(row.count)}</span>
        </Flex>
      ))}
    </div>
  );
}

/** Widths of a row's cells: a time, a name, a short text, and the rest for the last. */
const CELL_WIDTHS = ['0 0 150px', '0 0 120px', '0 0 110px', '1 1 0'];

/**
 * A short list of one-line rows (alarms, log entries), each cell cut with an ellipsis and its full text
 * in `title`: plain markup, so the dashboard brings no table code before its first chart.
 */
function Rows({ rows, busy = false }: { rows: { key: string; testId: string; cells: ReactNode[] }[]; busy?: boolean }) {
  return (
    <div style={{ opacity: busy ? 0.5 : 1 }} aria-busy={busy}>
      {rows.map((row) => (
        <Flex
          key={row.key}
          gap={8}
          data-testid={row.testId}
          style={{ padding: '4px 0', borderBottom: '1px solid #f0f0f0' }}
        >
          {row.cells.map((cell, i) => (
            <span
              // biome-ignore lint/suspicious/noArrayIndexKey: a row's cells never move
              key={i}
              title={typeof cell === 'string' ? cell : undefined}
              style={{
                flex: CELL_WIDTHS[i],
                minWidth: 0,
                overflow: 'hidden',
                textOverflow: 'ellipsis',
                whiteSpace: 'nowrap',
              }}
            >
              {cell}
            </span>
          ))}
        </Flex>
      ))}
    </div>
  );
}

const title = (card: DashboardCard) => `dashboard.cards.${card}`;

/** The days the alarm cards count (the server's window: today and the days before it), as a page's period. */
const alarmDays = () => ({ startDay: addUtcDays(utcToday(), 1 - ALARM_DAYS), endDay: utcToday() });

export function AlarmsCard() {
  const { t } = useTranslation();
  const number = useNumber();
  const [curPage, setCurPage] = useState(1);
  const query = useCardQuery(dashboardApi.alarms, { curPage, pageSize: ALARM_PAGE_SIZE });
  return (
    <DashboardCardFrame
      card="alarms"
      linkParams={{ level: 'severe', acknowledged: 'false', ...alarmDays() }}
      title={t(title('alarms'))}
      query={query}
      isEmpty={(page) => page.list.length === 0 && page.curPage === 1}
      empty={t('dashboard.alarms.empty', { days: ALARM_DAYS })}
      footer={(page) => (
        <Flex justify="space-between" align="center" style={{ marginTop: 8 }}>
          <Typography.Text type="secondary" data-testid="dashboard-alarms-total">
            {t('dashboard.alarms.total', { total: number(page.total), days: ALARM_DAYS })}
          </Typography.Text>
          <Space>
            <Typography.Text type="secondary">{t('dashboard.alarms.page', { page: curPage })}</Typography.Text>
            <Button
              size="small"
              data-testid="dashboard-alarms-previous"
              disabled={curPage === 1 || query.isFetching}
              onClick={() => setCurPage((page) => page - 1)}
            >
              {t('dashboard.alarms.previous')}
            </Button>
            <Button
              size="small"
              data-testid="dashboard-alarms-next"
              disabled={!page.more || query.isFetching}
              onClick={() => setCurPage((page) => page + 1)}
            >
              {t('dashboard.alarms.next')}
            </Button>
          </Space>
        </Flex>
      )}
    >
      {(page) => (
        <Rows
          busy={query.isFetching}
          rows={page.list.map((alarm, index) => ({
            key: `${alarm.meterId}|${alarm.time}|${alarm.code}`,
            testId: `dashboard-alarm-${index}`,
            cells: [
              formatDateTime(alarm.time),
              <Link
                key="meter"
                to={`${METER_EVENTS_DETAIL_PATH}?meterId=${alarm.meterId}`}
                data-testid={`dashboard-alarm-link-${index}`}
              >
                {alarm.devAddr}
              </Link>,
              // Named as the meter events page names it (the event's `valueLabels`): a standard event translated.
              alarm.name
                ? valueLabel(t, EVENT_NAME_LABELS, alarm.name)
                : t('dashboard.alarms.code', { code: alarm.code }),
              alarm.gridName,
            ],
          }))}
        />
      )}
    </DashboardCardFrame>
  );
}

export function ArchiveCard() {
  const { t } = useTranslation();
  const number = useNumber();
  const query = useCardQuery(dashboardApi.archive, {});
  return (
    <DashboardCardFrame
      card="archive"
      title={t(title('archive'))}
      query={query}
      isEmpty={(summary) => summary.gridNodes === 0 && summary.meters === 0 && summary.dcus === 0}
      empty={t('dashboard.archive.empty')}
    >
      {(summary) => (
        <>
          <Row gutter={8}>
            {(['gridNodes', 'dcus', 'meters'] as const).map((key) => (
              <Col span={8} key={key}>
                <Statistic
                  title={t(`dashboard.archive.${key}`)}
                  value={number(summary[key])}
                  data-testid={`dashboard-archive-${key}`}
                />
              </Col>
            ))}
          </Row>
          <Breakdown
            title={t('dashboard.archive.byStatus')}
            total={summary.meters}
            rows={summary.byStatus.map((s) => ({ label: t(`meter.statuses.${s.status}`), count: s.count }))}
          />
        </>
      )}
    </DashboardCardFrame>
  );
}

export function ConsumersCard() {
  const { t } = useTranslation();
  const number = useNumber();
  const query = useCardQuery(dashboardApi.consumers, {});
  return (
    <DashboardCardFrame
      card="consumers"
      title={t(title('consumers'))}
      query={query}
      isEmpty={(summary) => summary.consumers === 0}
      empty={t('dashboard.consumers.empty')}
    >
      {(summary) => (
        <>
          <Row gutter={8}>
            <Col span={12}>
              <Statistic
                title={t('dashboard.consumers.consumers')}
                value={number(summary.consumers)}
                data-testid="dashboard-consumers-total"
              />
            </Col>
            <Col span={12}>
              <Statistic title={t('dashboard.consumers.special')} value={number(summary.special)} />
            </Col>
          </Row>
          <Breakdown
            title={t('dashboard.consumers.byType')}
            total={summary.consumers}
            rows={summary.byType.map((r) => ({ label: t(`consumer.consumerTypes.${r.consumerType}`), count: r.count }))}
          />
          <Breakdown
            title={t('dashboard.consumers.byPayment')}
            total={summary.consumers}
            rows={summary.byPayment.map((r) => ({
              label: t(`consumer.paymentModes.${r.paymentMode}`),
              count: r.count,
            }))}
          />
        </>
      )}
    </DashboardCardFrame>
  );
}

export function ModulesCard() {
  const { t } = useTranslation();
  const number = useNumber();
  const query = useCardQuery(dashboardApi.modules, {});
  return (
    <DashboardCardFrame
      card="modules"
      title={t(title('modules'))}
      query={query}
      isEmpty={(summary) => summary.modules === 0}
      empty={t('dashboard.modules.empty')}
    >
      {(summary) => (
        <>
          <Statistic
            title={t('dashboard.modules.modules')}
            value={number(summary.modules)}
            data-testid="dashboard-modules-total"
          />
          <Breakdown
            title={t('dashboard.modules.byDeviceType')}
            total={summary.modules}
            rows={summary.byDeviceType.map((r) => ({ label: t(`module.deviceTypes.${r.deviceType}`), count: r.count }))}
          />
          <Breakdown
            title={t('dashboard.modules.byWorkingMode')}
            total={summary.modules}
            rows={summary.byWorkingMode.map((r) => ({
              label: t(`module.workingModes.${r.workingMode}`),
              count: r.count,
            }))}
          />
        </>
      )}
    </DashboardCardFrame>
  );
}

/** The change from `before` to `value` in percent, signed; none without both. */
function change(value: number | null, before: number | null): number | null {
  if (value === null || before === null || before === 0) return null;
  return Math.round(((value - before) * 1000) / before) / 10;
}

export function EnergyCard() {
  const { t } = useTranslation();
  const number = useNumber();
  const query = useCardQuery(dashboardApi.energy, {});
  return (
    <DashboardCardFrame
      card="energy"
      // The month so far, whose days the card's chart draws.
      linkParams={{ startDay: `${utcToday().slice(0, 8)}01`, endDay: utcToday() }}
      title={t(title('energy'))}
      query={query}
      isEmpty={(energy) => energy.yesterday.value === null && energy.month.value === null}
      empty={t('dashboard.energy.empty')}
    >
      {(energy) => {
        const delta = change(energy.yesterday.value, energy.dayBefore.value);
        return (
          <>
            <Row gutter={8}>
              <Col span={12}>
                <Statistic
                  title={t('dashboard.energy.yesterday')}
                  value={energy.yesterday.value === null ? '—' : number(energy.yesterday.value, 3)}
                  data-testid="dashboard-energy-yesterday"
                />
                <Typography.Text type="secondary">
                  {delta === null
                    ? t('dashboard.energy.meters', { count: energy.yesterday.meters })
                    : t('dashboard.energy.change', { change: `${delta > 0 ? '+' : ''}${number(delta, 1)} %` })}
                </Typography.Text>
              </Col>
              <Col span={12}>
                <Statistic
                  title={t('dashboard.energy.month')}
                  value={energy.month.value === null ? '—' : number(energy.month.value, 3)}
                  data-testid="dashboard-energy-month"
                />
                <Typography.Text type="secondary">
                  {t('dashboard.energy.monthRange', { from: energy.month.startDay, to: energy.month.endDay })}
                </Typography.Text>
              </Col>
            </Row>
            <Chart
              testId="dashboard-energy-chart"
              height={200}
              data={{
                x: energy.days.map((d) => d.day),
                xType: 'day',
                yName: 'kWh',
                series: [{ name: t('dashboard.energy.daily'), kind: 'bar', values: energy.days.map((d) => d.value) }],
              }}
            />
          </>
        );
      }}
    </DashboardCardFrame>
  );
}

export function CollectionCard() {
  const { t } = useTranslation();
  const number = useNumber();
  const query = useCardQuery(dashboardApi.collection, {});
  return (
    <DashboardCardFrame
      card="collection"
      title={t(title('collection'))}
      query={query}
      isEmpty={(kpi) => kpi.yesterday.meters === 0 && kpi.today.meters === 0}
      empty={t('dashboard.collection.empty')}
    >
      {(kpi) => (
        <Row gutter={8}>
          {(['today', 'yesterday'] as const).map((key) => {
            const day = kpi[key];
            return (
              <Col span={12} key={key} data-testid={`dashboard-collection-${key}`}>
                <Statistic
                  title={`${t(`dashboard.collection.${key}`)} (${day.day})`}
                  value={day.successRate === null ? '—' : number(day.successRate, 1)}
                  suffix={day.successRate === null ? undefined : '%'}
                />
                <Progress size="small" showInfo={false} percent={Math.min(day.successRate ?? 0, 100)} />
                <Typography.Text type="secondary" style={{ display: 'block' }}>
                  {t('dashboard.collection.intervals', { stored: number(day.stored), expected: number(day.expected) })}
                </Typography.Text>
                <Typography.Text type="secondary">
                  {t('dashboard.collection.complete', {
                    count: number(day.metersComplete),
                    meters: number(day.meters),
                  })}
                </Typography.Text>
              </Col>
            );
          })}
        </Row>
      )}
    </DashboardCardFrame>
  );
}

export function AlarmTrendCard() {
  const { t } = useTranslation();
  const number = useNumber();
  const query = useCardQuery(dashboardApi.alarmTrend, {});
  return (
    <DashboardCardFrame
      card="alarmTrend"
      linkParams={alarmDays()}
      title={t(title('alarmTrend'), { days: ALARM_DAYS })}
      query={query}
      isEmpty={(trend) => trend.days.every((d) => d.regular + d.medium + d.severe === 0)}
      empty={t('dashboard.alarmTrend.empty', { days: ALARM_DAYS })}
    >
      {(trend) => {
        const sum = (level: EventLevel) => trend.days.reduce((n, d) => n + d[level], 0);
        return (
          <>
            <Typography.Text data-testid="dashboard-alarmTrend-total">
              {t('dashboard.alarmTrend.total', {
                count: number(sum('regular') + sum('medium') + sum('severe')),
                severe: number(sum('severe')),
              })}
            </Typography.Text>
            <Chart
              testId="dashboard-alarmTrend-chart"
              height={220}
              data={{
                x: trend.days.map((d) => d.day),
                xType: 'day',
                series: EVENT_LEVELS.map((level) => ({
                  name: t(`eventDefinition.levels.${level}`),
                  kind: 'bar' as const,
                  stack: 'events',
                  tone: EVENT_LEVEL_TONES[level],
                  values: trend.days.map((d) => d[level]),
                })),
              }}
            />
          </>
        );
      }}
    </DashboardCardFrame>
  );
}

/** The log's fields a row of the card shows, in order. */
const LOG_KEYS = ['time', 'username', 'operatingType', 'content'] as const;
/** Each as the system log's table shows it (its entity's field: an option's label, a time, the worded content). */
const LOG_FIELDS = LOG_KEYS.map((key) =>
  describeSchemaField(key, systemLogEntity.record.shape[key], `${systemLogEntity.name}.fields`),
);

export function OperationsCard() {
  const { t } = useTranslation();
  const query = useCardQuery(dashboardApi.operations, {});
  return (
    <DashboardCardFrame
      card="operations"
      title={t(title('operations'))}
      query={query}
      isEmpty={(log) => log.list.length === 0}
      empty={t('dashboard.operations.empty')}
    >
      {(log) => (
        <Rows
          rows={log.list.map((entry, index) => ({
            key: entry.id,
            testId: `dashboard-operation-${index}`,
            cells: LOG_FIELDS.map((field, i) => fieldText(field, entry[LOG_KEYS[i] as (typeof LOG_KEYS)[number]], t)),
          }))}
        />
      )}
    </DashboardCardFrame>
  );
}
