import {
  COLLECT_ITEM_LABELS,
  type CollectionRun,
  progressTopic,
  type RunDevice,
  RunProgressSchema,
  RunStartedSchema,
  runApi,
  type Task,
  taskApi,
} from '@meterdesk/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Checkbox, Flex, Progress, Space, Table, type TableColumnsType, Tag } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { followTopic } from '@/app/live/broker-topics';
import { usePermissions } from '@/app/permissions/permission-context';
import { isGranted } from '@/app/permissions/permission-index';
import type { RowAction } from '@/crud/crud-config';
import { useRowActions } from '@/crud/row-actions';
import { browserTimeZone, formatDateTime } from '@/fields/date-text';
import { valueLabel } from '@/fields/field-value';
import { runNowAction, taskCrud } from './task.resource';

/** While a run is open the list is asked again this often (the live stream only reaches who pressed run now). */
const OPEN_POLL_MS = 3_000;
const isOpen = (run: CollectionRun) => run.status === 'queued' || run.status === 'running';

interface LiveProgress {
  runId: string;
  done: number;
  total: number;
  expected: number;
  received: number;
}

/** A run's progress as the list counts it: its meters read so far (by result code) of its meters. */
function listedProgress(run: CollectionRun): LiveProgress {
  const done = Object.values(run.byCode).reduce((sum, n) => sum + n, 0);
  return { runId: run.runId, done, total: run.devices, expected: run.expected, received: run.received };
}

/** Follows `progress/{jobId}` of a run this user started; null until the first message. */
function useRunProgress(jobId: string | null): LiveProgress | null {
  const [progress, setProgress] = useState<LiveProgress | null>(null);
  useEffect(() => {
    if (!jobId) return;
    setProgress(null);
    return followTopic(() => progressTopic(jobId), {
      onMessage: (payload) => {
        try {
          const parsed = RunProgressSchema.safeParse(
            JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload)),
          );
          if (parsed.success) setProgress(parsed.data);
        } catch {
          // A message that does not parse is skipped; the list's refresh shows the counts anyway.
        }
      },
      onLive: () => {},
    });
  }, [jobId]);
  return progress;
}

/** taskMGT view/detail: a task's runs (expected, received, success rate, result codes) and each run's meters. */
export function TaskRunsPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const planid = params.get('id') ?? '';
  const permissions = usePermissions();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<string | null>(null);
  const [started, setStarted] = useState<{ jobId: string; runId: string } | null>(null);
  const live = useRunProgress(started?.jobId ?? null);

  const runs = useQuery({
    queryKey: ['plan', 'runs', planid, page],
    queryFn: ({ signal }) => callApi(runApi.runs, { planid, pageSize: 10, curPage: page }, { signal }),
    enabled: !!planid,
    refetchInterval: (query) => (query.state.data?.list.some(isOpen) || started ? OPEN_POLL_MS : false),
  });
  const task = useQuery({
    queryKey: ['task', 'detail', planid],
    queryFn: ({ signal }) => callApi(taskApi.detail, { id: planid }, { signal }),
    enabled: !!planid,
  });
  const rowActions = useRowActions(taskCrud);
  const runNow = (row: Task) =>
    rowActions.trigger(runNowAction as unknown as RowAction, row, (answer) => {
      const run = RunStartedSchema.parse(answer);
      setStarted(run);
      setSelected(run.runId);
      void queryClient.invalidateQueries({ queryKey: ['plan', 'runs', planid] });
    });

  if (!planid) return <Card>{t('runs.noTask')}</Card>;
  const list = runs.data?.list ?? [];
  const current = list.find((r) => r.runId === selected) ?? null;
  // The stream says each meter as it is read, but a short run can end before the page has subscribed
  // (the call that starts it answers first) and a message can be lost: the list, asked every few
  // seconds, then shows how far the run got.
  const startedRun = list.find((r) => r.runId === started?.runId);
  const listed = startedRun ? listedProgress(startedRun) : null;
  const progress = live && (!listed || live.done >= listed.done) ? live : listed;
  const zone = browserTimeZone();

  const columns: TableColumnsType<CollectionRun> = [
    { key: 'dueAt', title: t('runs.fields.dueAt', { zone }), render: (_, r) => formatDateTime(r.dueAt) },
    { key: 'kind', title: t('runs.fields.kind'), render: (_, r) => t(`runs.kinds.${r.kind}`) },
    {
      key: 'status',
      title: t('runs.fields.status'),
      render: (_, r) => <Tag color={isOpen(r) ? 'processing' : 'default'}>{t(`runs.statuses.${r.status}`)}</Tag>,
    },
    {
      key: 'period',
      title: t('runs.fields.period', { zone }),
      render: (_, r) => `${formatDateTime(r.periodFrom)} – ${formatDateTime(r.periodTo)}`,
    },
    { key: 'devices', title: t('runs.fields.devices'), dataIndex: 'devices' },
    { key: 'expected', title: t('runs.fields.expected'), dataIndex: 'expected' },
    { key: 'received', title: t('runs.fields.received'), dataIndex: 'received' },
    {
      key: 'successRate',
      title: t('runs.fields.successRate'),
      render: (_, r) => (r.successRate === null ? '—' : `${r.successRate} %`),
    },
    { key: 'byCode', title: t('runs.fields.byCode'), render: (_, r) => <CodeTags byCode={r.byCode} /> },
    { key: 'requests', title: t('runs.fields.requests'), dataIndex: 'requests' },
  ];

  return (
    <Flex vertical gap={16}>
      <Card
        title={task.data ? t('runs.titleOf', { name: task.data.planName }) : t('runs.title')}
        extra={
          <Space>
            <Button onClick={() => void runs.refetch()} data-testid="runs-refresh">
              {t('runs.refresh')}
            </Button>
            {task.data && isGranted(permissions, runNowAction.permission) && (
              <Button type="primary" onClick={() => task.data && runNow(task.data)} data-testid="run-now">
                {t('task.actions.runNow')}
              </Button>
            )}
          </Space>
        }
      >
        {progress && progress.total > 0 && (
          <Progress
            data-testid="run-progress"
            percent={Math.round((100 * progress.done) / progress.total)}
            format={() => t('runs.progress', { ...progress })}
          />
        )}
        <Table<CollectionRun>
          rowKey="runId"
          size="small"
          loading={runs.isLoading}
          columns={columns}
          dataSource={list}
          onRow={(r) => ({ onClick: () => setSelected(r.runId) })}
          rowClassName={(r) => (r.runId === selected ? 'ant-table-row-selected' : '')}
          pagination={{
            current: page,
            pageSize: 10,
            total: runs.data?.total ?? 0,
            onChange: setPage,
            showSizeChanger: false,
          }}
        />
      </Card>
      {current && <RunDevices run={current} />}
    </Flex>
  );
}

function CodeTags({ byCode }: { byCode: Record<string, number> }) {
  const { t } = useTranslation();
  return (
    <Space size={4} wrap>
      {Object.entries(byCode).map(([code, n]) => (
        <Tag key={code} color={code === '00' ? 'green' : 'red'} title={t(`operations.resultCodes.${code}`)}>
          {code}: {n}
        </Tag>
      ))}
    </Space>
  );
}

/** A run's meters with their result code and the items read (expected and received per item). */
function RunDevices({ run }: { run: CollectionRun }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const [failedOnly, setFailedOnly] = useState(false);
  const devices = useQuery({
    queryKey: ['plan', 'runDevices', run.runId, page, failedOnly, run.status, run.received],
    queryFn: ({ signal }) =>
      callApi(runApi.runDevices, { runId: run.runId, pageSize: 20, curPage: page, failedOnly }, { signal }),
  });
  const columns: TableColumnsType<RunDevice> = [
    { key: 'devAddr', title: t('runs.fields.devAddr'), dataIndex: 'devAddr' },
    { key: 'dcuNo', title: t('runs.fields.dcuNo'), render: (_, d) => d.dcuNo ?? '—' },
    {
      key: 'resultCode',
      title: t('runs.fields.resultCode'),
      render: (_, d) =>
        d.resultCode ? (
          <Tag color={d.resultCode === '00' ? 'green' : 'red'}>
            {d.resultCode} {t(`operations.resultCodes.${d.resultCode}`)}
          </Tag>
        ) : d.requested ? (
          '…'
        ) : (
          t('runs.notRequested')
        ),
    },
    { key: 'expected', title: t('runs.fields.expected'), dataIndex: 'expected' },
    { key: 'received', title: t('runs.fields.received'), dataIndex: 'received' },
    {
      key: 'items',
      title: t('runs.fields.items'),
      render: (_, d) =>
        d.items.map((i) => `${valueLabel(t, COLLECT_ITEM_LABELS, i.cgcode)} ${i.received}/${i.expected}`).join(', '),
    },
  ];
  return (
    <Card
      title={t('runs.devicesOf', { time: formatDateTime(run.dueAt), zone: browserTimeZone() })}
      extra={
        <Checkbox
          checked={failedOnly}
          onChange={(e) => {
            setFailedOnly(e.target.checked);
            setPage(1);
          }}
        >
          {t('runs.failedOnly')}
        </Checkbox>
      }
    >
      <Table<RunDevice>
        rowKey="meterId"
        size="small"
        loading={devices.isLoading}
        columns={columns}
        dataSource={devices.data?.list ?? []}
        pagination={{
          current: page,
          pageSize: 20,
          total: devices.data?.total ?? 0,
          onChange: setPage,
          showSizeChanger: false,
        }}
      />
    </Card>
  );
}
