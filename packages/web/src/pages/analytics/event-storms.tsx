import {
  EVENT_NAME_LABELS,
  type EventKey,
  type EventLevel,
  METER_EVENTS_RES,
  type MeterEventRecord,
  meterEventsApi,
  type Page,
  STORM_SORTS,
  type StormGroup,
} from '@meterdesk/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Empty, Flex, Table, type TableColumnsType, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { formatDateTime } from '@/fields/date-text';
import { valueLabel } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';
import { AcknowledgeDialog, type AckTarget } from './acknowledge-dialog';

type Filters = Readonly<Record<string, string | number>>;
type Sort = { field: (typeof STORM_SORTS)[number]; order: 'ascend' | 'descend' };

const LEVEL_COLOURS: Record<EventLevel, string> = { regular: 'default', medium: 'orange', severe: 'red' };
const GROUP_PAGE = 10;
const EVENTS_PAGE = 10;

/** A group's name in test ids: its DCU's number and the code, which a field crew and a journey know. */
export const stormTestKey = (group: Pick<StormGroup, 'dcuNo' | 'code'>) => `${group.dcuNo}-${group.code}`;

/** The storms call's request: the page's filters and period, a page of groups in the chosen order. */
export function stormRequest(filters: Filters, curPage: number, sort: Sort | null): Record<string, unknown> {
  return {
    ...filters,
    curPage,
    pageSize: GROUP_PAGE,
    ...(sort ? { sortField: sort.field, sortOrder: sort.order } : {}),
  };
}

/** The events of one storm (the list call narrowed to its DCU and code), a page at a time. */
export function stormEventsRequest(filters: Filters, group: StormGroup, curPage: number): Record<string, unknown> {
  return { ...filters, dcuId: group.dcuId, code: group.code, curPage, pageSize: EVENTS_PAGE };
}

function LevelTag({ level }: { level: EventLevel }) {
  const { t } = useTranslation();
  return <Tag color={LEVEL_COLOURS[level]}>{t(`eventDefinition.levels.${level}`)}</Tag>;
}

/** The events of a storm, each with its meter's timeline; the unacknowledged ones may be picked and acknowledged. */
function StormEvents({
  filters,
  group,
  canAcknowledge,
  onAcknowledge,
}: {
  filters: Filters;
  group: StormGroup;
  canAcknowledge: boolean;
  onAcknowledge: (target: AckTarget) => void;
}) {
  const { t } = useTranslation();
  const [curPage, setCurPage] = useState(1);
  const [picked, setPicked] = useState<MeterEventRecord[]>([]);
  const body = stormEventsRequest(filters, group, curPage);
  const events = useQuery({
    queryKey: ['meterEvents', 'stormEvents', body],
    queryFn: ({ signal }) => callApi(meterEventsApi.list, body, { signal }) as Promise<Page<MeterEventRecord>>,
    placeholderData: keepPreviousData,
  });
  const testKey = stormTestKey(group);
  // Picked events someone has acknowledged since (this user, a moment ago) are picked no more.
  const open = picked.filter((p) => events.data?.list.some((e) => e.key === p.key && !e.acknowledged));
  const period = { startDay: String(filters.startDay ?? ''), endDay: String(filters.endDay ?? '') };
  const columns: TableColumnsType<MeterEventRecord> = [
    { key: 'time', title: t('meterEvents.fields.time'), render: (_, e) => formatDateTime(e.time) },
    {
      key: 'devAddr',
      title: t('analytics.fields.devAddr'),
      render: (_, e) => (
        <Link
          to={`${METER_EVENTS_RES.detail}?${new URLSearchParams({ meterId: e.meterId, ...period }).toString()}`}
          data-testid={`storm-timeline-${e.devAddr}`}
        >
          {e.devAddr}
        </Link>
      ),
    },
    { key: 'gridName', title: t('analytics.fields.gridName'), dataIndex: 'gridName' },
    {
      key: 'acknowledged',
      title: t('meterEvents.fields.acknowledged'),
      render: (_, e) => (
        <Tag color={e.acknowledged ? 'green' : 'default'}>{t(e.acknowledged ? 'common.yes' : 'common.no')}</Tag>
      ),
    },
    { key: 'ackByName', title: t('meterEvents.fields.ackByName'), dataIndex: 'ackByName' },
    { key: 'ackRemark', title: t('meterEvents.fields.ackRemark'), dataIndex: 'ackRemark' },
  ];
  if (events.error) return <Alert type="error" showIcon title={errorText(t, events.error)} />;
  return (
    <Flex vertical gap="small" data-testid={`storm-events-list-${testKey}`}>
      {canAcknowledge && (
        <Flex justify="end">
          <Button
            disabled={open.length === 0}
            data-testid={`storm-ack-selected-${testKey}`}
            onClick={() =>
              onAcknowledge({ events: open.map(({ meterId, time, code }): EventKey => ({ meterId, time, code })) })
            }
          >
            {t('meterEvents.ack.selected')} ({open.length})
          </Button>
        </Flex>
      )}
      <Table<MeterEventRecord>
        size="small"
        rowKey="key"
        columns={columns}
        dataSource={events.data?.list}
        loading={events.isFetching}
        rowSelection={
          canAcknowledge
            ? {
                selectedRowKeys: open.map((e) => e.key),
                onChange: (_keys, rows) => setPicked(rows),
                getCheckboxProps: (e) => ({ disabled: e.acknowledged }),
              }
            : undefined
        }
        pagination={{
          current: curPage,
          pageSize: EVENTS_PAGE,
          total: events.data?.total ?? 0,
          onChange: (page) => {
            setCurPage(page);
            setPicked([]);
          },
        }}
      />
    </Flex>
  );
}

/**
 * Event storms: the period's events grouped by DCU and code (how many, from how many meters, first and
 * last, how many acknowledged), each opening onto its events, acknowledged as a whole with a remark.
 * `filters` are the page's own (its filter bar and period).
 */
export function EventStorms({ filters }: { filters: Filters }) {
  const { t } = useTranslation();
  const permissions = usePermissions();
  const canAcknowledge = permissions.buttons.has(METER_EVENTS_RES.acknowledge);
  const [curPage, setCurPage] = useState(1);
  const [sort, setSort] = useState<Sort | null>(null);
  const [target, setTarget] = useState<AckTarget | null>(null);
  const body = stormRequest(filters, curPage, sort);
  const storms = useQuery({
    queryKey: ['meterEvents', 'storms', body],
    queryFn: ({ signal }) => callApi(meterEventsApi.storms, body, { signal }) as Promise<Page<StormGroup>>,
    placeholderData: keepPreviousData,
  });
  const gridId = typeof filters.gridId === 'string' ? filters.gridId : undefined;
  const sortable = (field: Sort['field']) => ({
    sorter: true,
    sortOrder: sort?.field === field ? sort.order : null,
  });

  const columns: TableColumnsType<StormGroup> = [
    { key: 'dcuNo', title: t('meterEvents.storms.dcuNo'), dataIndex: 'dcuNo' },
    { key: 'gridName', title: t('meterEvents.storms.gridName'), dataIndex: 'gridName' },
    {
      key: 'name',
      title: t('meterEvents.fields.name'),
      render: (_, g) => `${g.code} · ${valueLabel(t, EVENT_NAME_LABELS, g.name)}`,
    },
    { key: 'level', title: t('meterEvents.fields.level'), render: (_, g) => <LevelTag level={g.level} /> },
    { key: 'meters', title: t('meterEvents.storms.meters'), dataIndex: 'meters' },
    { key: 'events', title: t('meterEvents.storms.events'), dataIndex: 'events', ...sortable('events') },
    {
      key: 'unacknowledged',
      title: t('meterEvents.fields.unacknowledged'),
      dataIndex: 'unacknowledged',
      ...sortable('unacknowledged'),
    },
    { key: 'firstTime', title: t('meterEvents.storms.firstTime'), render: (_, g) => formatDateTime(g.firstTime) },
    {
      key: 'lastTime',
      title: t('meterEvents.storms.lastTime'),
      render: (_, g) => formatDateTime(g.lastTime),
      ...sortable('lastTime'),
    },
    {
      key: 'actions',
      title: t('crud.columnsActions'),
      render: (_, g) =>
        g.unacknowledged === 0 ? (
          <Tag color="green" data-testid={`storm-done-${stormTestKey(g)}`}>
            {t('meterEvents.storms.allAcknowledged')}
          </Tag>
        ) : (
          canAcknowledge && (
            <Button
              size="small"
              type="primary"
              data-testid={`storm-ack-${stormTestKey(g)}`}
              onClick={() => setTarget({ storm: g, gridId })}
            >
              {t('meterEvents.storms.acknowledge')}
            </Button>
          )
        ),
    },
  ];

  return (
    <Card
      size="small"
      title={t('meterEvents.storms.title')}
      data-testid="event-storms"
      extra={<Typography.Text type="secondary">{t('meterEvents.storms.hint')}</Typography.Text>}
    >
      {storms.error ? (
        <Alert type="error" showIcon title={errorText(t, storms.error)} />
      ) : (
        <Table<StormGroup>
          size="small"
          rowKey="key"
          columns={columns}
          dataSource={storms.data?.list}
          loading={storms.isFetching}
          onRow={(g) => ({ 'data-testid': `storm-row-${stormTestKey(g)}` }) as object}
          expandable={{
            expandedRowRender: (g) => (
              <StormEvents
                filters={filters}
                group={g}
                canAcknowledge={canAcknowledge}
                onAcknowledge={(next) => setTarget(next)}
              />
            ),
            expandIcon: ({ expanded, onExpand, record }) => (
              <Button
                size="small"
                type="link"
                data-testid={`storm-events-${stormTestKey(record)}`}
                aria-expanded={expanded}
                onClick={(event) => onExpand(record, event)}
              >
                {t('meterEvents.storms.showEvents')}
              </Button>
            ),
          }}
          onChange={(pagination, _filters, sorter, extra) => {
            const one = Array.isArray(sorter) ? sorter[0] : sorter;
            setSort(
              one?.order && STORM_SORTS.includes(one.columnKey as Sort['field'])
                ? { field: one.columnKey as Sort['field'], order: one.order }
                : null,
            );
            setCurPage(extra.action === 'paginate' ? (pagination.current ?? 1) : 1);
          }}
          locale={{
            emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('meterEvents.storms.empty')} />,
          }}
          pagination={{
            current: curPage,
            pageSize: GROUP_PAGE,
            total: storms.data?.total ?? 0,
            hideOnSinglePage: true,
          }}
        />
      )}
      {target && <AcknowledgeDialog target={target} onClose={() => setTarget(null)} />}
    </Card>
  );
}
