import {
  BILLING_REPORT_RES,
  billingReportApi,
  type ExportFormat,
  MAX_REPORT_PERIOD_DAYS,
  progressTopic,
  REPORT_KINDS,
  REPORT_SOURCES,
  type ReportBuild,
  type ReportKind,
  type ReportListQuery,
  type ReportRecord,
} from '@meterdesk/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  DatePicker,
  Flex,
  Form,
  Input,
  Modal,
  Progress,
  Select,
  Space,
  Table,
  type TableColumnsType,
  Tag,
  Tooltip,
  TreeSelect,
  Typography,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { downloadFile } from '@/api/download';
import { followTopic } from '@/app/live/broker-topics';
import { usePermissions } from '@/app/permissions/permission-context';
import { isGranted } from '@/app/permissions/permission-index';
import { showSaveError } from '@/crud/form-errors';
import { isDisabledRangeDay, keepTypedDate } from '@/fields/date-range';
import { browserTimeZone, formatDateTime } from '@/fields/date-text';
import { useLookup } from '@/fields/use-lookup';
import { errorText } from '@/i18n/message-text';
import { utcToday } from '@/pages/collection/meter-data-days';
import {
  BUILDING_POLL_MS,
  type BuildValues,
  buildRequest,
  cellText,
  conditionsText,
  isBuilding,
} from './billing-report-kit';

const DAY = 'YYYY-MM-DD';
const STATUS_COLORS = { building: 'processing', completed: 'success', failed: 'error' } as const;

/** Follows `progress/{jobId}` of the build this user started: its percent, until the list shows it done. */
function useLiveProgress(jobId: string | null): number | null {
  const [percent, setPercent] = useState<number | null>(null);
  useEffect(() => {
    if (!jobId) return;
    setPercent(null);
    return followTopic(() => progressTopic(jobId), {
      onMessage: (payload) => {
        try {
          const p = JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload));
          if (typeof p.done === 'number' && typeof p.total === 'number' && p.total > 0)
            setPercent(Math.floor((p.done * 100) / p.total));
        } catch {
          // A message that does not parse is skipped: the list, asked again meanwhile, shows the progress.
        }
      },
      onLive: () => {},
    });
  }, [jobId]);
  return percent;
}

/** One of the four billing report pages: its records, the build form, a report on screen and its downloads. */
export function BillingReportPage({ kind }: { kind: ReportKind }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const api = billingReportApi[kind];
  const permissions = usePermissions();
  const mayExport = isGranted(permissions, BILLING_REPORT_RES[kind].export);
  const queryClient = useQueryClient();
  const [query, setQuery] = useState<ReportListQuery>({ curPage: 1, pageSize: 10 });
  const [nameFilter, setNameFilter] = useState('');
  const [building, setBuilding] = useState(false);
  const [opened, setOpened] = useState<string | null>(null);
  const [started, setStarted] = useState<string | null>(null);
  const live = useLiveProgress(started);

  const records = useQuery({
    queryKey: ['billingReport', kind, query],
    queryFn: ({ signal }) => callApi(api.list, query, { signal }),
    refetchInterval: (q) => (isBuilding(q.state.data?.list) ? BUILDING_POLL_MS : false),
  });
  const download = useMutation({
    mutationFn: ({ id, format }: { id: string; format: ExportFormat }) => downloadFile(api.download, { id, format }),
    onError: (error) => message.error(errorText(t, error)),
  });
  const zone = browserTimeZone();
  const time = (iso: string | null) => (iso ? formatDateTime(iso) : '—');

  const columns: TableColumnsType<ReportRecord> = [
    { key: 'reportName', dataIndex: 'reportName', title: t('billingReport.fields.reportName'), sorter: true },
    {
      key: 'conditions',
      title: t('billingReport.fields.conditions'),
      render: (_, r) => conditionsText(t, kind, r.conditions),
    },
    {
      key: 'createTime',
      title: `${t('billingReport.fields.createTime')} (${zone})`,
      sorter: true,
      render: (_, r) => time(r.createTime),
    },
    {
      key: 'generateTime',
      title: `${t('billingReport.fields.generateTime')} (${zone})`,
      render: (_, r) => time(r.generateTime),
    },
    {
      key: 'deleteTime',
      title: `${t('billingReport.fields.deleteTime')} (${zone})`,
      render: (_, r) => time(r.deleteTime),
    },
    {
      key: 'status',
      title: t('billingReport.fields.status'),
      sorter: true,
      render: (_, r) => {
        const tag = (
          <Tag color={STATUS_COLORS[r.status]} data-testid={`report-status-${r.id}`}>
            {t(`billingReport.statuses.${r.status}`)}
          </Tag>
        );
        if (r.status === 'building')
          return (
            <Space>
              {tag}
              <Progress
                size="small"
                style={{ width: 80 }}
                percent={r.jobId === started && live !== null ? Math.max(live, r.progress) : r.progress}
              />
            </Space>
          );
        return r.failure ? <Tooltip title={t(`errors.${r.failure}`)}>{tag}</Tooltip> : tag;
      },
    },
    {
      key: 'actions',
      title: '',
      render: (_, r) =>
        r.status === 'completed' && (
          <Space>
            <Button size="small" data-testid={`report-open-${r.id}`} onClick={() => setOpened(r.id)}>
              {t('billingReport.open')}
            </Button>
            {mayExport &&
              (['xlsx', 'pdf'] as const).map((format) => (
                <Button
                  key={format}
                  size="small"
                  data-testid={`report-download-${format}-${r.id}`}
                  loading={
                    download.isPending && download.variables?.id === r.id && download.variables.format === format
                  }
                  onClick={() => download.mutate({ id: r.id, format })}
                >
                  {t(format === 'xlsx' ? 'billingReport.downloadXlsx' : 'billingReport.downloadPdf')}
                </Button>
              ))}
          </Space>
        ),
    },
  ];

  return (
    <Card
      title={t(`billingReport.titles.${kind}`)}
      extra={
        <Space>
          <Button data-testid="report-refresh" onClick={() => void records.refetch()}>
            {t('billingReport.refresh')}
          </Button>
          <Button type="primary" data-testid="report-build" onClick={() => setBuilding(true)}>
            {t('billingReport.build')}
          </Button>
        </Space>
      }
    >
      <Flex vertical gap="middle">
        <Typography.Text type="secondary">{t(`billingReport.about.${kind}`)}</Typography.Text>
        <Space>
          <Input
            data-testid="report-name-filter"
            allowClear
            placeholder={t('billingReport.fields.reportName')}
            value={nameFilter}
            onChange={(e) => setNameFilter(e.target.value)}
            onPressEnter={() => setQuery((q) => ({ ...q, curPage: 1, reportName: nameFilter || undefined }))}
          />
          <Button
            data-testid="report-search"
            onClick={() => {
              setQuery((q) => ({ ...q, curPage: 1, reportName: nameFilter || undefined }));
              void records.refetch();
            }}
          >
            {t('billingReport.search')}
          </Button>
        </Space>
        <Table
          rowKey="id"
          size="small"
          columns={columns}
          dataSource={records.data?.list ?? []}
          loading={records.isFetching && !records.data}
          pagination={{
            current: query.curPage,
            pageSize: query.pageSize,
            total: records.data?.total ?? 0,
            showSizeChanger: true,
          }}
          onChange={(pagination, _filters, sorter) => {
            const one = Array.isArray(sorter) ? sorter[0] : sorter;
            const field = one?.order ? (one.columnKey as ReportListQuery['sortField']) : undefined;
            setQuery((q) => ({
              ...q,
              curPage: pagination.current ?? 1,
              pageSize: pagination.pageSize ?? q.pageSize,
              sortField: field,
              sortOrder: field ? (one?.order ?? undefined) : undefined,
            }));
          }}
        />
      </Flex>
      {building && (
        <BuildDialog
          kind={kind}
          onClose={() => setBuilding(false)}
          onBuilt={(jobId) => {
            setBuilding(false);
            setStarted(jobId);
            message.success(t('billingReport.built'));
            void queryClient.invalidateQueries({ queryKey: ['billingReport', kind] });
          }}
        />
      )}
      {opened && <ReportView kind={kind} id={opened} onClose={() => setOpened(null)} />}
    </Card>
  );
}

/** The build form: a name, the billing rule or grid node the kind is built from, and the period. */
function BuildDialog({
  kind,
  onClose,
  onBuilt,
}: {
  kind: ReportKind;
  onClose: () => void;
  onBuilt: (jobId: string) => void;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<BuildValues>();
  const api = billingReportApi[kind];
  const byRule = REPORT_SOURCES[kind] === 'rule';
  const rules = useQuery({
    queryKey: ['billingReport', kind, 'rules'],
    queryFn: ({ signal }) => callApi(api.rules, {}, { signal }),
    enabled: byRule,
  });
  const gridTree = useLookup(byRule ? undefined : 'gridTree');
  const build = useMutation({
    mutationFn: (values: BuildValues) => callApi(api.build, buildRequest(kind, values) as ReportBuild),
    onSuccess: (answer) => onBuilt(answer.jobId),
    onError: (error) =>
      showSaveError(error, form, new Set(['reportName', 'ruleId', 'gridId']), t, (text) => message.error(text)),
  });
  const today = utcToday();
  return (
    <Modal
      open
      title={t('billingReport.buildTitle')}
      onCancel={onClose}
      onOk={() => form.submit()}
      confirmLoading={build.isPending}
      okButtonProps={{ 'data-testid': 'report-build-submit' } as Record<string, string>}
    >
      <Form form={form} layout="vertical" onFinish={(values) => build.mutate(values)}>
        <Form.Item name="reportName" label={t('billingReport.fields.reportName')} rules={[{ required: true }]}>
          <Input data-testid="report-form-name" maxLength={100} />
        </Form.Item>
        {byRule ? (
          <Form.Item name="ruleId" label={t('billingReport.fields.ruleId')} rules={[{ required: true }]}>
            <Select
              data-testid="report-form-rule"
              showSearch={{ optionFilterProp: 'label' }}
              loading={rules.isLoading}
              options={(rules.data ?? []).map((r) => ({ value: r.id, label: r.ruleName }))}
            />
          </Form.Item>
        ) : (
          <Form.Item name="gridId" label={t('billingReport.fields.gridId')} rules={[{ required: true }]}>
            <TreeSelect
              data-testid="report-form-grid"
              treeData={gridTree.options}
              loading={gridTree.loading}
              showSearch={{ treeNodeFilterProp: 'title' }}
              treeDefaultExpandedKeys={gridTree.options.map((o) => o.value)}
            />
          </Form.Item>
        )}
        <Form.Item
          name="period"
          label={t('billingReport.fields.period')}
          rules={[{ required: true }]}
          getValueProps={(value?: [string, string]) => ({
            value: value ? ([dayjs(value[0]), dayjs(value[1])] as [Dayjs, Dayjs]) : undefined,
          })}
          normalize={(dates?: [Dayjs | null, Dayjs | null] | null) =>
            dates?.[0] && dates[1] ? [dates[0].format(DAY), dates[1].format(DAY)] : undefined
          }
        >
          <DatePicker.RangePicker
            data-testid="report-form-period"
            onKeyDown={keepTypedDate}
            disabledDate={(date, info) => isDisabledRangeDay(date, info.from, MAX_REPORT_PERIOD_DAYS, dayjs(today))}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** A completed report on screen, as the downloads hold it. */
function ReportView({ kind, id, onClose }: { kind: ReportKind; id: string; onClose: () => void }) {
  const { t } = useTranslation();
  const api = billingReportApi[kind];
  const content = useQuery({
    queryKey: ['billingReport', kind, 'content', id],
    queryFn: ({ signal }) => callApi(api.content, { id }, { signal }),
  });
  const data = content.data;
  return (
    <Modal open width={1100} footer={null} onCancel={onClose} title={data?.record.reportName}>
      {data && (
        <Flex vertical gap="small">
          <Typography.Text type="secondary">{conditionsText(t, kind, data.record.conditions)}</Typography.Text>
          <Table
            data-testid="report-content"
            size="small"
            rowKey="index"
            loading={content.isLoading}
            dataSource={data.rows.map((row, index) => ({ index, row }))}
            pagination={{ pageSize: 50, hideOnSinglePage: true }}
            locale={{ emptyText: t('billingReport.empty') }}
            columns={data.columns.map((column) => ({
              key: column,
              title: t(`billingReport.columns.${column}`),
              render: (_, { row }) => cellText(t, column, row[column]),
            }))}
          />
        </Flex>
      )}
    </Modal>
  );
}

/** The four pages, one component each for the router. */
export const billingReportPages = Object.fromEntries(
  REPORT_KINDS.map((kind) => [kind, () => <BillingReportPage kind={kind} />]),
) as Record<ReportKind, () => React.JSX.Element>;
