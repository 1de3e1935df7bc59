import {
  DCU_KPI_SORTS,
  type DcuKpi,
  MAX_ANALYSIS_RANGE_DAYS,
  type RUN_KPI_SORTS,
  type RunKpi,
  type TaskAnalysisDetail,
  taskAnalysisApi,
} from '@meterdesk/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  Descriptions,
  Flex,
  Space,
  Table,
  type TableColumnsType,
  type TablePaginationConfig,
  type TableProps,
  Tag,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { readRange } from '@/fields/date-range';
import { DateRangeInput } from '@/fields/date-range-input';
import { browserTimeZone, formatDateTime } from '@/fields/date-text';
import { errorText } from '@/i18n/message-text';

const PAGE_SIZE = 10;

type Sort<F extends string> = { sortField?: F; sortOrder?: 'ascend' | 'descend' };
type Code = TaskAnalysisDetail['byCode'][number];

const rateText = (rate: number | null) => (rate === null ? '—' : String(rate));

/** A table's paging and sorting as the server takes them; another sort starts again at page 1. */
function usePagedSort<F extends string>() {
  const [state, setState] = useState<Sort<F> & { curPage: number }>({ curPage: 1 });
  const onChange = <R,>(
    pagination: TablePaginationConfig,
    sorter: Parameters<NonNullable<TableProps<R>['onChange']>>[2],
    action: string,
  ) => {
    const sort = Array.isArray(sorter) ? sorter[0] : sorter;
    const sortOrder = sort?.order ?? undefined;
    setState({
      curPage: action === 'paginate' ? (pagination.current ?? 1) : 1,
      sortField: sortOrder ? (String(sort?.columnKey) as F) : undefined,
      sortOrder,
    });
  };
  const sortOrderOf = (key: F) => (state.sortField === key ? (state.sortOrder ?? null) : null);
  return { state, onChange, sortOrderOf };
}

/**
 * Task analysis detail: one task's read success over a period (the list's, else the last 7 days) —
 * its occurrences with what their repairs added, its meters by result code and its success by DCU.
 */
export function TaskAnalysisDetailPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const planid = params.get('id') ?? '';
  const [startTime, endTime] = readRange(params.get('startTime'), params.get('endTime'), MAX_ANALYSIS_RANGE_DAYS);
  const period = { planid, startTime, endTime };
  const runsTable = usePagedSort<(typeof RUN_KPI_SORTS)[number]>();
  const dcusTable = usePagedSort<(typeof DCU_KPI_SORTS)[number]>();

  const detail = useQuery({
    queryKey: ['taskAnalysis', 'detail', period],
    queryFn: ({ signal }) => callApi(taskAnalysisApi.detail, period, { signal }),
    enabled: !!planid,
  });
  const runs = useQuery({
    queryKey: ['taskAnalysis', 'runs', period, runsTable.state],
    queryFn: ({ signal }) =>
      callApi(taskAnalysisApi.runs, { ...period, ...runsTable.state, pageSize: PAGE_SIZE }, { signal }),
    enabled: !!planid,
    placeholderData: keepPreviousData,
  });
  const dcus = useQuery({
    queryKey: ['taskAnalysis', 'dcus', period, dcusTable.state],
    queryFn: ({ signal }) =>
      callApi(taskAnalysisApi.dcus, { ...period, ...dcusTable.state, pageSize: PAGE_SIZE }, { signal }),
    enabled: !!planid,
    placeholderData: keepPreviousData,
  });

  if (!planid) return <Card>{t('taskAnalysis.detail.noTask')}</Card>;
  const task = detail.data?.task;
  const refresh = () => Promise.all([detail.refetch(), runs.refetch(), dcus.refetch()]);
  const error = detail.error ?? runs.error ?? dcus.error;

  const runColumns: TableColumnsType<RunKpi> = [
    {
      key: 'dueAt',
      title: t('taskAnalysis.runFields.dueAt', { zone: browserTimeZone() }),
      sorter: true,
      sortOrder: runsTable.sortOrderOf('dueAt'),
      render: (_, r) => formatDateTime(r.dueAt),
    },
    { key: 'kind', title: t('taskAnalysis.runFields.kind'), render: (_, r) => t(`runs.kinds.${r.kind}`) },
    { key: 'status', title: t('taskAnalysis.runFields.status'), render: (_, r) => t(`runs.statuses.${r.status}`) },
    { key: 'devices', title: t('taskAnalysis.runFields.devices'), dataIndex: 'devices' },
    ...(['expected', 'received'] as const).map((key) => ({
      key,
      title: t(`taskAnalysis.runFields.${key}`),
      dataIndex: key,
      sorter: true,
      sortOrder: runsTable.sortOrderOf(key),
    })),
    {
      key: 'successRate',
      title: t('taskAnalysis.runFields.successRate'),
      sorter: true,
      sortOrder: runsTable.sortOrderOf('successRate'),
      render: (_, r) => rateText(r.successRate),
    },
    { key: 'repairs', title: t('taskAnalysis.runFields.repairs'), dataIndex: 'repairs' },
    {
      key: 'repairedShare',
      title: t('taskAnalysis.runFields.repairedShare'),
      sorter: true,
      sortOrder: runsTable.sortOrderOf('repairedShare'),
      render: (_, r) => rateText(r.repairedShare),
    },
    {
      key: 'failedDevices',
      title: t('taskAnalysis.runFields.failedDevices'),
      dataIndex: 'failedDevices',
      sorter: true,
      sortOrder: runsTable.sortOrderOf('failedDevices'),
    },
  ];

  const answered = (detail.data?.byCode ?? []).reduce((sum, c) => sum + c.devices, 0);
  const codeColumns: TableColumnsType<Code> = [
    {
      key: 'code',
      title: t('taskAnalysis.codeFields.code'),
      render: (_, c) => <Tag color={c.code === '00' ? 'green' : 'red'}>{c.code}</Tag>,
    },
    {
      key: 'meaning',
      title: t('taskAnalysis.codeFields.meaning'),
      render: (_, c) => t(`operations.resultCodes.${c.code}`),
    },
    { key: 'devices', title: t('taskAnalysis.codeFields.devices'), dataIndex: 'devices' },
    {
      key: 'share',
      title: t('taskAnalysis.codeFields.share'),
      render: (_, c) => (answered ? String(Math.round((1000 * c.devices) / answered) / 10) : '—'),
    },
  ];

  const dcuColumns: TableColumnsType<DcuKpi> = [
    ...DCU_KPI_SORTS.map((key) => ({
      key,
      title: t(`taskAnalysis.dcuFields.${key}`),
      sorter: true,
      sortOrder: dcusTable.sortOrderOf(key),
      render: (_: unknown, d: DcuKpi) =>
        key === 'dcuNo'
          ? (d.dcuNo ?? t('taskAnalysis.detail.noDcu'))
          : key === 'successRate'
            ? rateText(d.successRate)
            : d[key],
    })),
  ];

  return (
    <Flex vertical gap={16} data-testid="task-analysis-detail">
      <Card
        title={t('taskAnalysis.detail.title', { name: task?.planName ?? '' })}
        loading={detail.isLoading}
        extra={
          <Space wrap>
            <DateRangeInput
              testId="analysis-period"
              maxDays={MAX_ANALYSIS_RANGE_DAYS}
              value={[startTime, endTime]}
              onChange={(range) => {
                if (!range) return;
                const next = new URLSearchParams(params);
                next.set('startTime', range[0]);
                next.set('endTime', range[1]);
                setParams(next);
              }}
            />
            <Button onClick={() => void refresh()} data-testid="analysis-refresh">
              {t('taskAnalysis.detail.refresh')}
            </Button>
          </Space>
        }
      >
        {error && <Alert type="error" showIcon message={errorText(t, error)} style={{ marginBottom: 16 }} />}
        {task && (
          <Descriptions size="small" column={{ xs: 1, sm: 2, lg: 3 }} data-testid="analysis-summary">
            {(['runs', 'devices', 'expected', 'received', 'successRate', 'failedDevices'] as const).map((key) => (
              <Descriptions.Item key={key} label={t(`taskAnalysis.fields.${key}`)}>
                {key === 'successRate' ? rateText(task.successRate) : task[key]}
              </Descriptions.Item>
            ))}
          </Descriptions>
        )}
      </Card>
      <Card title={t('taskAnalysis.detail.runs')}>
        <Table<RunKpi>
          rowKey="runId"
          size="small"
          data-testid="analysis-runs"
          loading={runs.isFetching}
          columns={runColumns}
          dataSource={runs.data?.list ?? []}
          onChange={(pagination, _filters, sorter, extra) => runsTable.onChange(pagination, sorter, extra.action)}
          pagination={{
            current: runsTable.state.curPage,
            pageSize: PAGE_SIZE,
            total: runs.data?.total ?? 0,
            showSizeChanger: false,
          }}
        />
      </Card>
      <Flex gap={16} wrap align="start">
        <Card title={t('taskAnalysis.detail.byCode')} style={{ flex: '1 1 320px' }}>
          <Table<Code>
            rowKey="code"
            size="small"
            data-testid="analysis-codes"
            loading={detail.isFetching}
            columns={codeColumns}
            dataSource={detail.data?.byCode ?? []}
            pagination={false}
          />
        </Card>
        <Card title={t('taskAnalysis.detail.dcus')} style={{ flex: '2 1 480px' }}>
          <Table<DcuKpi>
            rowKey={(d) => d.dcuNo ?? ''}
            size="small"
            data-testid="analysis-dcus"
            loading={dcus.isFetching}
            columns={dcuColumns}
            dataSource={dcus.data?.list ?? []}
            onChange={(pagination, _filters, sorter, extra) => dcusTable.onChange(pagination, sorter, extra.action)}
            pagination={{
              current: dcusTable.state.curPage,
              pageSize: PAGE_SIZE,
              total: dcus.data?.total ?? 0,
              showSizeChanger: false,
            }}
          />
        </Card>
      </Flex>
    </Flex>
  );
}
