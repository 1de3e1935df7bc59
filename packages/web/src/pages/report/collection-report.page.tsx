import {
  COLLECTION_REPORT_RES,
  collectionReportApi,
  DEFAULT_REPORT_DAYS,
  DEFAULT_STOPPED_DAYS,
  type ExportFormat,
  MAX_REPORT_DAYS,
  MAX_STOPPED_DAYS,
  type Page,
  type ReportDay,
  type ReportDcuRow,
  type ReportGridRow,
  type ReportMeterRow,
  type ReportTable,
  SILENT_GROUP_FILTERS,
  SILENT_GROUPS,
  type SilentGroup,
  type SilentGroupRow,
} from '@meterdesk/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import {
  Alert,
  App,
  Breadcrumb,
  Button,
  Card,
  DatePicker,
  Empty,
  Flex,
  InputNumber,
  Progress,
  Segmented,
  Space,
  Statistic,
  Table,
  type TableColumnsType,
  Tabs,
  Tag,
  TreeSelect,
  Typography,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import type { TFunction } from 'i18next';
import { type ReactNode, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { downloadFile } from '@/api/download';
import { usePermissions } from '@/app/permissions/permission-context';
import { isGranted } from '@/app/permissions/permission-index';
import { isDisabledRangeDay, keepTypedDate, presetRange, presetsWithin } from '@/fields/date-range';
import { useLookup } from '@/fields/use-lookup';
import { errorText } from '@/i18n/message-text';
import { addDays, utcToday } from '@/pages/collection/meter-data-days';
import type { LookupOption } from '@/resources/lookups';

const PAGE_SIZE = 20;
const DAY = 'YYYY-MM-DD';

/**
 * Today's UTC date as a local calendar day: the store files days by UTC, so the picker's "today" and
 * its shortcuts are counted on the UTC calendar whatever the browser's time zone.
 */
const utcNow = () => dayjs(utcToday());

/** The nodes from a root of the tree down to `id`, or none when the tree does not hold it. */
function nodePath(options: readonly LookupOption[], id: string): LookupOption[] {
  for (const option of options) {
    if (option.value === id) return [option];
    const below = nodePath(option.children ?? [], id);
    if (below.length) return [option, ...below];
  }
  return [];
}

interface Filters {
  gridId: string | undefined;
  startDay: string;
  endDay: string;
  days: number;
}

/** A group of never-read or stopped meters the user opened: its meters only, until the filter is removed. */
interface GroupFilter {
  groupBy: SilentGroup;
  key: SilentGroupRow['key'];
  name: string;
}

const SILENT_TABS: readonly ReportTable[] = ['neverRead', 'stopped'];

/** A group as the page names it: a module type by its label, the meters without one as such. */
function groupLabel(t: TFunction, groupBy: SilentGroup, row: Pick<SilentGroupRow, 'key' | 'name'>): string {
  if (row.key === null) return t(`silentMeters.none.${groupBy}`);
  if (groupBy === 'moduleType') return t(`module.deviceTypes.${row.key}`);
  return row.name ?? String(row.key);
}

/** /report/dataCollectionReport: read success by day, grid node and DCU, and the meters that do not read. */
export function CollectionReportPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const permissions = usePermissions();
  const gridTree = useLookup('gridTree');
  const [filters, setFilters] = useState<Filters>(() => ({
    gridId: undefined,
    startDay: addDays(utcToday(), 1 - DEFAULT_REPORT_DAYS),
    endDay: utcToday(),
    days: DEFAULT_STOPPED_DAYS,
  }));
  const [tab, setTab] = useState<ReportTable>('daily');
  // The never-read and stopped lists, grouped for field crews, and the groups opened as filters.
  const [groupBy, setGroupBy] = useState<SilentGroup | undefined>(undefined);
  const [groupFilters, setGroupFilters] = useState<GroupFilter[]>([]);
  const [pages, setPages] = useState<Record<ReportTable, number>>({
    daily: 1,
    grid: 1,
    dcu: 1,
    neverRead: 1,
    stopped: 1,
  });
  const { gridId, startDay, endDay, days } = filters;
  const firstPages = () => setPages({ daily: 1, grid: 1, dcu: 1, neverRead: 1, stopped: 1 });
  const change = (next: Partial<Filters>) => {
    setFilters((current) => ({ ...current, ...next }));
    firstPages();
  };
  const paged = { pageSize: PAGE_SIZE, curPage: pages[tab] };
  const period = { gridId, startDay, endDay };
  const silentTab = SILENT_TABS.includes(tab);
  const grouping = silentTab ? groupBy : undefined;
  const groupKeys = Object.fromEntries(groupFilters.map((f) => [SILENT_GROUP_FILTERS[f.groupBy], f.key]));
  const regroup = (next: SilentGroup | undefined) => {
    setGroupBy(next);
    firstPages();
  };
  const openGroup = (row: SilentGroupRow) => {
    if (!groupBy) return;
    const name = groupLabel(t, groupBy, row);
    setGroupFilters((current) => [...current.filter((f) => f.groupBy !== groupBy), { groupBy, key: row.key, name }]);
    regroup(undefined);
  };
  const dropGroup = (dropped: SilentGroup | null) => {
    setGroupFilters((current) => (dropped ? current.filter((f) => f.groupBy !== dropped) : []));
    firstPages();
  };

  // Each tab asks only while shown; the daily figures also feed the headline.
  const daily = useQuery({
    queryKey: ['collectionReport', 'daily', period],
    queryFn: ({ signal }) => callApi(collectionReportApi.daily, period, { signal }),
  });
  const table = useQuery<Page<ReportGridRow | ReportDcuRow | ReportMeterRow | SilentGroupRow>>({
    queryKey: ['collectionReport', tab, period, days, paged.curPage, grouping, groupKeys],
    queryFn: ({ signal }) => {
      if (grouping && (tab === 'neverRead' || tab === 'stopped'))
        return callApi(
          collectionReportApi.groups,
          { table: tab, groupBy: grouping, gridId, days, ...groupKeys, ...paged },
          { signal },
        );
      switch (tab) {
        case 'grid':
          return callApi(collectionReportApi.byGrid, { ...period, ...paged }, { signal });
        case 'dcu':
          return callApi(collectionReportApi.byDcu, { ...period, ...paged }, { signal });
        case 'neverRead':
          return callApi(collectionReportApi.neverRead, { gridId, ...groupKeys, ...paged }, { signal });
        default:
          return callApi(collectionReportApi.stopped, { gridId, days, ...groupKeys, ...paged }, { signal });
      }
    },
    enabled: tab !== 'daily',
  });
  const exportFile = useMutation({
    mutationFn: (format: ExportFormat) =>
      downloadFile(collectionReportApi.export, {
        table: tab,
        format,
        ...period,
        days,
        ...(silentTab ? { ...groupKeys, ...(grouping ? { groupBy: grouping } : {}) } : {}),
      }),
    onError: (error) => message.error(errorText(t, error)),
  });
  const refresh = () => {
    void daily.refetch();
    if (tab !== 'daily') void table.refetch();
  };

  const canExport = isGranted(permissions, COLLECTION_REPORT_RES.export);
  // The meter lists are as of today (never read; nothing for the last days): the period is not theirs.
  const overPeriod = tab === 'daily' || tab === 'grid' || tab === 'dcu';
  const totals = (daily.data?.days ?? []).reduce(
    (sum, day) => ({ expected: sum.expected + day.expected, stored: sum.stored + day.stored }),
    { expected: 0, stored: 0 },
  );
  const periodRate = totals.expected ? Math.round((totals.stored * 1000) / totals.expected) / 10 : null;

  const pagination = (total: number) => ({
    current: pages[tab],
    pageSize: PAGE_SIZE,
    total,
    showSizeChanger: false,
    showTotal: () => t('crud.total', { count: total }),
    onChange: (curPage: number) => setPages((current) => ({ ...current, [tab]: curPage })),
  });
  const pagedTable = <R extends object>(testId: string, rowKey: (row: R) => string, columns: TableColumnsType<R>) =>
    table.error ? (
      <Alert type="error" showIcon title={errorText(t, table.error)} />
    ) : (
      <Table<R>
        data-testid={testId}
        rowKey={rowKey}
        size="small"
        loading={table.isFetching}
        columns={columns}
        dataSource={(table.data?.list as R[] | undefined) ?? []}
        pagination={pagination(table.data?.total ?? 0)}
        locale={{
          emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('collectionReport.emptyMeters')} />,
        }}
      />
    );

  const figureColumns = <R extends ReportDay>(): TableColumnsType<R> => [
    { key: 'meters', title: t('collectionReport.fields.meters'), dataIndex: 'meters', align: 'right' },
    { key: 'expected', title: t('collectionReport.fields.expected'), dataIndex: 'expected', align: 'right' },
    { key: 'stored', title: t('collectionReport.fields.stored'), dataIndex: 'stored', align: 'right' },
    {
      key: 'successRate',
      title: t('collectionReport.fields.successRate'),
      width: 200,
      render: (_, row) => <Rate value={row.successRate} />,
    },
    {
      key: 'metersComplete',
      title: t('collectionReport.fields.metersComplete'),
      dataIndex: 'metersComplete',
      align: 'right',
    },
  ];
  const dayColumn = { key: 'day', title: t('collectionReport.fields.day'), dataIndex: 'day', width: 120 };
  const meterColumns = (withLastDay: boolean): TableColumnsType<ReportMeterRow> => [
    { key: 'devAddr', title: t('collectionReport.fields.devAddr'), dataIndex: 'devAddr' },
    { key: 'dcuNo', title: t('collectionReport.fields.dcuNo'), render: (_, row) => row.dcuNo ?? '—' },
    { key: 'gridName', title: t('collectionReport.fields.gridName'), dataIndex: 'gridName' },
    {
      key: 'moduleType',
      title: t('silentMeters.fields.moduleType'),
      render: (_, row) => (row.moduleType === null ? '—' : t(`module.deviceTypes.${row.moduleType}`)),
    },
    {
      key: 'supplierName',
      title: t('silentMeters.fields.supplierName'),
      render: (_, row) => row.supplierName ?? '—',
    },
    {
      key: 'status',
      title: t('collectionReport.fields.status'),
      render: (_, row) => t(`meter.statuses.${row.status}`),
    },
    ...(withLastDay
      ? [{ key: 'lastDay', title: t('collectionReport.fields.lastDay'), dataIndex: 'lastDay' as const }]
      : []),
  ];

  const groupColumns: TableColumnsType<SilentGroupRow> = [
    {
      key: 'name',
      title: groupBy ? t(`silentMeters.groupBy.${groupBy}`) : '',
      // A group's row opens its meters, its key a filter of the list.
      render: (_, row) => (
        <Typography.Link data-testid={`report-group-${row.key ?? 'none'}`} onClick={() => openGroup(row)}>
          {groupBy ? groupLabel(t, groupBy, row) : ''}
        </Typography.Link>
      ),
    },
    { key: 'meters', title: t('silentMeters.meters'), dataIndex: 'meters', align: 'right', width: 160 },
  ];
  /** The never-read or stopped meters: grouped with their counts, or listed, narrowed to the groups opened. */
  const silentTable = (testId: string, columns: TableColumnsType<ReportMeterRow>) => (
    <Flex vertical gap="small">
      <Flex gap="middle" align="center" wrap>
        <Typography.Text>{t('silentMeters.groupByLabel')}</Typography.Text>
        <Segmented<SilentGroup | 'none'>
          data-testid="report-group-by"
          value={groupBy ?? 'none'}
          onChange={(value) => regroup(value === 'none' ? undefined : value)}
          options={[
            { value: 'none', label: <span data-testid="report-group-by-none">{t('silentMeters.ungrouped')}</span> },
            ...SILENT_GROUPS.map((value) => ({
              value,
              label: <span data-testid={`report-group-by-${value}`}>{t(`silentMeters.groupBy.${value}`)}</span>,
            })),
          ]}
        />
        {groupFilters.map((filter) => (
          <Tag
            key={filter.groupBy}
            closable
            onClose={() => dropGroup(filter.groupBy)}
            data-testid={`report-group-filter-${filter.groupBy}`}
          >
            {t(`silentMeters.groupBy.${filter.groupBy}`)}: {filter.name}
          </Tag>
        ))}
        {groupFilters.length > 1 && (
          <Typography.Link data-testid="report-group-filters-clear" onClick={() => dropGroup(null)}>
            {t('silentMeters.clearFilters')}
          </Typography.Link>
        )}
      </Flex>
      {groupBy
        ? pagedTable<SilentGroupRow>('report-groups', (row) => String(row.key ?? 'none'), groupColumns)
        : pagedTable<ReportMeterRow>(testId, (row) => row.meterId, columns)}
    </Flex>
  );

  const tabs: { key: ReportTable; children: ReactNode }[] = [
    {
      key: 'daily',
      children: daily.error ? (
        <Alert type="error" showIcon title={errorText(t, daily.error)} />
      ) : daily.data?.days.every((day) => day.meters === 0) ? (
        <Empty data-testid="report-empty" description={t('collectionReport.empty')} />
      ) : (
        <Table<ReportDay>
          data-testid="report-daily"
          rowKey="day"
          size="small"
          loading={daily.isFetching}
          columns={[dayColumn, ...figureColumns<ReportDay>()]}
          dataSource={daily.data?.days ?? []}
          pagination={false}
        />
      ),
    },
    {
      key: 'grid',
      children: pagedTable<ReportGridRow>('report-grid', (row) => `${row.day}|${row.gridId}|${row.own}`, [
        dayColumn,
        {
          key: 'gridName',
          title: t('collectionReport.fields.gridName'),
          // A node's row opens its children, as choosing it in the picker does; its own meters have none.
          render: (_, row) =>
            row.own ? (
              t('collectionReport.ownMeters', { name: row.gridName })
            ) : (
              <Typography.Link
                data-testid={`report-drill-${row.gridId}`}
                onClick={() => change({ gridId: row.gridId })}
              >
                {row.gridName}
              </Typography.Link>
            ),
        },
        ...figureColumns<ReportGridRow>(),
      ]),
    },
    {
      key: 'dcu',
      children: pagedTable<ReportDcuRow>('report-dcu', (row) => `${row.day}|${row.dcuId}`, [
        dayColumn,
        { key: 'dcuNo', title: t('collectionReport.fields.dcuNo'), dataIndex: 'dcuNo' },
        { key: 'gridName', title: t('collectionReport.fields.gridName'), dataIndex: 'gridName' },
        ...figureColumns<ReportDcuRow>(),
      ]),
    },
    {
      key: 'neverRead',
      children: silentTable('report-never-read', meterColumns(false)),
    },
    {
      key: 'stopped',
      children: silentTable('report-stopped', meterColumns(true)),
    },
  ];

  return (
    <Card
      title={t('collectionReport.title')}
      data-testid="collection-report"
      extra={
        <Space>
          <Button onClick={refresh} data-testid="report-refresh">
            {t('collectionReport.refresh')}
          </Button>
          {canExport && (
            <>
              <Button
                data-testid="report-export-xlsx"
                loading={exportFile.isPending && exportFile.variables === 'xlsx'}
                onClick={() => exportFile.mutate('xlsx')}
              >
                {t('collectionReport.exportXlsx')}
              </Button>
              <Button
                data-testid="report-export-pdf"
                loading={exportFile.isPending && exportFile.variables === 'pdf'}
                onClick={() => exportFile.mutate('pdf')}
              >
                {t('collectionReport.exportPdf')}
              </Button>
            </>
          )}
        </Space>
      }
    >
      <Flex vertical gap="middle">
        <Flex gap="middle" align="center" wrap>
          <GridPicker
            value={gridId}
            options={gridTree.options}
            loading={gridTree.loading}
            onChange={(next) => change({ gridId: next })}
          />
          {overPeriod && (
            <DayRange
              value={[startDay, endDay]}
              onChange={([start, end]) => change({ startDay: start, endDay: end })}
            />
          )}
          {tab === 'stopped' && (
            <Space>
              <Typography.Text>{t('collectionReport.stoppedDays')}</Typography.Text>
              <InputNumber
                data-testid="report-stopped-days"
                min={1}
                max={MAX_STOPPED_DAYS}
                precision={0}
                value={days}
                onChange={(next) => typeof next === 'number' && change({ days: next })}
              />
              <Typography.Text>{t('collectionReport.daysUnit')}</Typography.Text>
            </Space>
          )}
          {overPeriod && <Typography.Text type="secondary">{t('collectionReport.periodHint')}</Typography.Text>}
        </Flex>
        {gridId && (
          <NodeBreadcrumb options={gridTree.options} gridId={gridId} onChange={(next) => change({ gridId: next })} />
        )}
        {overPeriod && (
          <Statistic
            data-testid="report-period-rate"
            title={t('collectionReport.periodRate')}
            loading={daily.isLoading}
            value={periodRate ?? '—'}
            suffix={periodRate === null ? undefined : '%'}
          />
        )}
        <Tabs
          activeKey={tab}
          onChange={(key) => setTab(key as ReportTable)}
          items={tabs.map(({ key, children }) => ({
            key,
            label: <span data-testid={`report-tab-${key}`}>{t(`collectionReport.tabs.${key}`)}</span>,
            // The paged tables share one query: only the shown tab may draw it.
            children: key === tab ? children : null,
          }))}
        />
      </Flex>
    </Card>
  );
}

/** A success rate as a bar: green from the 98 % regulators ask for, orange below, red under half. */
function Rate({ value }: { value: number | null }) {
  if (value === null) return '—';
  const color = value >= 98 ? '#52c41a' : value >= 50 ? '#fa8c16' : '#f5222d';
  return (
    <Progress percent={Math.min(100, value)} strokeColor={color} size="small" format={() => `${value.toFixed(1)} %`} />
  );
}

function GridPicker({
  value,
  options,
  loading,
  onChange,
}: {
  value: string | undefined;
  options: LookupOption[];
  loading: boolean;
  onChange: (next: string | undefined) => void;
}) {
  const { t } = useTranslation();
  return (
    <Space>
      <Typography.Text>{t('collectionReport.gridId')}</Typography.Text>
      <TreeSelect
        data-testid="report-grid-node"
        value={value}
        onChange={(next) => onChange(next ?? undefined)}
        treeData={options}
        loading={loading}
        allowClear
        showSearch={{ treeNodeFilterProp: 'title' }}
        treeDefaultExpandedKeys={options.map((option) => option.value)}
        placeholder={t('collectionReport.allScope')}
        style={{ minWidth: 240 }}
      />
    </Space>
  );
}

/** Where the chosen node lies, from all the user's nodes down; each step above it chooses that node. */
function NodeBreadcrumb({
  options,
  gridId,
  onChange,
}: {
  options: readonly LookupOption[];
  gridId: string;
  onChange: (next: string | undefined) => void;
}) {
  const { t } = useTranslation();
  const path = nodePath(options, gridId);
  const step = (title: string, testId: string, next: string | undefined) => ({
    title: (
      <Typography.Link data-testid={testId} onClick={() => onChange(next)}>
        {title}
      </Typography.Link>
    ),
  });
  return (
    <Breadcrumb
      data-testid="report-node-path"
      items={[
        step(t('collectionReport.allScope'), 'report-node-path-all', undefined),
        ...path.map((node, i) =>
          i === path.length - 1
            ? { title: node.title }
            : step(node.title, `report-node-path-${node.value}`, node.value),
        ),
      ]}
    />
  );
}

/** Whole UTC days, at most MAX_REPORT_DAYS, none after today, with the spec §9 shortcuts that fit. */
function DayRange({ value, onChange }: { value: [string, string]; onChange: (next: [string, string]) => void }) {
  const { t } = useTranslation();
  const presets = useMemo(
    () =>
      presetsWithin(MAX_REPORT_DAYS, utcNow()).map((preset) => ({
        label: t(`crud.rangePresets.${preset}`),
        value: presetRange(preset, utcNow()),
      })),
    [t],
  );
  return (
    <Space>
      <Typography.Text>{t('collectionReport.period')}</Typography.Text>
      <DatePicker.RangePicker
        data-testid="report-period"
        allowClear={false}
        onKeyDown={keepTypedDate}
        value={[dayjs(value[0]), dayjs(value[1])] as [Dayjs, Dayjs]}
        presets={presets}
        disabledDate={(date, info) => isDisabledRangeDay(date, info.from, MAX_REPORT_DAYS, utcNow())}
        onChange={(dates) => {
          if (dates?.[0] && dates[1]) onChange([dates[0].format(DAY), dates[1].format(DAY)]);
        }}
      />
    </Space>
  );
}
