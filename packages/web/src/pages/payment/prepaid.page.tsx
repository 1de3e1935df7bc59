import { DownloadOutlined, PrinterOutlined, ReloadOutlined } from '@ant-design/icons';
import {
  type FriendlyTime,
  PREPAID_RES,
  type PrepaidAccount,
  type PrepaidException,
  type PrepaidMatch,
  prepaidApi,
  type Recharge,
  RechargeChangeSchema,
  type RechargeHistoryQuery,
  rechargeTopic,
} from '@meterdesk/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ButtonProps } from 'antd';
import {
  Alert,
  App,
  Button,
  Card,
  Descriptions,
  Empty,
  Flex,
  Form,
  Input,
  InputNumber,
  Modal,
  Space,
  Spin,
  Switch,
  Table,
  type TableProps,
  Tag,
  Typography,
} from 'antd';
import type { TFunction } from 'i18next';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, callApi } from '@/api/api-client';
import { downloadFile } from '@/api/download';
import { followTopic } from '@/app/live/broker-topics';
import { usePermissions } from '@/app/permissions/permission-context';
import { useSession } from '@/app/session/session-store';
import { errorText, messageText } from '@/i18n/message-text';
import { amountProblem, newClientKey, tokenGroups } from './recharge-form';
import './prepaid.css';

const STATE_COLORS = { recharging: 'processing', succeeded: 'success', failed: 'error' } as const;
/** How often an open recharge is read while the broker pushes nothing (a safety net while it does). */
const POLL_MS = 2_000;
const money = (value: number | null) => (value === null ? '—' : value.toFixed(2));
const time = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '');

const prepaidKeys = {
  account: (meterId: string) => ['prepaid', 'account', meterId],
  recharge: (id: string) => ['prepaid', 'recharge', id],
  history: ['prepaid', 'history'],
};

function friendlyText(t: TFunction, friendly: FriendlyTime): string {
  const parts = [
    friendly.hours.length &&
      t('prepaid.account.friendlyHours', { hours: friendly.hours.map((h) => `${h.from}–${h.to}`).join(', ') }),
    friendly.weekdays.length && t('prepaid.account.friendlyWeekdays', { days: friendly.weekdays.join(', ') }),
    friendly.holidays.length && t('prepaid.account.friendlyHolidays', { days: friendly.holidays.join(', ') }),
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : t('prepaid.account.friendlyNone');
}

function RechargeState({ recharge }: { recharge: Pick<Recharge, 'state' | 'failure'> }) {
  const { t } = useTranslation();
  return (
    <Space size={4} data-testid="recharge-state" data-state={recharge.state}>
      <Tag color={STATE_COLORS[recharge.state]}>{t(`prepaid.states.${recharge.state}`)}</Tag>
      {recharge.failure && <Typography.Text type="danger">{t(`prepaid.failures.${recharge.failure}`)}</Typography.Text>}
    </Space>
  );
}

function AccountCard({ account }: { account: PrepaidAccount }) {
  const { t } = useTranslation();
  const relay = account.relayState === null ? 'unknown' : String(account.relayState);
  const overdraft = !account.overdraftAllowed
    ? t('prepaid.account.overdraftRefused')
    : account.overdraftLimit
      ? t('prepaid.account.overdraftAllowed', { limit: money(account.overdraftLimit) })
      : t('prepaid.account.overdraftUnlimited');
  return (
    <Card size="small" title={`${t('prepaid.account.title')} · ${account.devAddr}`} data-testid="prepaid-account">
      <Descriptions size="small" column={{ xs: 1, md: 2, xl: 3 }}>
        <Descriptions.Item label={t('prepaid.fields.consumerName')}>
          {account.consumerName} ({account.consumerCode})
        </Descriptions.Item>
        <Descriptions.Item label={t('prepaid.account.ledgerBalance')}>
          <span data-testid="ledger-balance">{money(account.ledgerBalance)}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('prepaid.account.meterCredit')}>
          <span data-testid="meter-credit">{money(account.meterCredit)}</span>
          <Typography.Text type="secondary" style={{ marginInlineStart: 8 }}>
            {account.meterCreditTime
              ? t('prepaid.account.meterCreditTime', { time: time(account.meterCreditTime) })
              : t('prepaid.account.neverRead')}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t('prepaid.account.relay')}>
          <span data-testid="relay-state">{t(`prepaid.account.relayStates.${relay}`)}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('prepaid.account.online')}>
          {t(`prepaid.account.onlineStates.${account.online ? 'online' : 'offline'}`)}
        </Descriptions.Item>
        <Descriptions.Item label={t('prepaid.account.overdraft')}>{overdraft}</Descriptions.Item>
        <Descriptions.Item label={t('prepaid.account.friendlyTime')} span="filled">
          {friendlyText(t, account.friendlyTime)}
        </Descriptions.Item>
      </Descriptions>
    </Card>
  );
}

interface FormValues {
  amount: number | null;
  allowOverdraft: boolean;
}

/**
 * The amount and overdraft, then the operator's password in a confirmation. The recharge's client key is
 * made when the confirmation opens and kept until the server answers it: a second click or a retry
 * after a time-out sends the same key, and the server credits once.
 */
export function RechargeForm({
  account,
  onRecharged,
}: {
  account: PrepaidAccount;
  onRecharged: (r: Recharge) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<FormValues>();
  const [pending, setPending] = useState<(FormValues & { clientKey: string }) | null>(null);
  const [password, setPassword] = useState('');
  const send = useMutation({
    mutationFn: (values: FormValues & { clientKey: string }) =>
      callApi(prepaidApi.recharge, {
        meterId: account.meterId,
        amount: values.amount ?? 0,
        allowOverdraft: values.allowOverdraft,
        clientKey: values.clientKey,
        password,
      }),
    onSuccess: (recharge) => {
      setPending(null);
      setPassword('');
      form.resetFields(['amount']);
      onRecharged(recharge);
    },
  });
  const refusal = send.error;
  const passwordRefused =
    refusal instanceof ApiError && (refusal.msg === 'operatorPasswordWrong' || refusal.msg === 'userLocked');

  return (
    <Card size="small" title={t('prepaid.form.title')}>
      <Form<FormValues>
        form={form}
        layout="inline"
        initialValues={{ amount: null, allowOverdraft: account.overdraftAllowed }}
        onFinish={(values) => {
          send.reset();
          setPending({ ...values, clientKey: newClientKey() });
        }}
      >
        <Form.Item
          name="amount"
          label={t('prepaid.form.amount')}
          rules={[
            {
              validator: (_rule, value) => {
                const problem = amountProblem(value);
                return problem ? Promise.reject(new Error(messageText(t, problem))) : Promise.resolve();
              },
            },
          ]}
        >
          <InputNumber step={10} style={{ width: 160 }} data-testid="recharge-amount" />
        </Form.Item>
        <Form.Item name="allowOverdraft" label={t('prepaid.form.allowOverdraft')} valuePropName="checked">
          <Switch data-testid="recharge-overdraft" />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" data-testid="recharge-submit">
            {t('prepaid.form.submit')}
          </Button>
        </Form.Item>
      </Form>
      <Modal
        open={pending !== null}
        title={t('prepaid.form.confirmTitle')}
        okText={t('prepaid.form.confirm')}
        cancelText={t('common.actions.cancel')}
        okButtonProps={{ disabled: !password, 'data-testid': 'recharge-confirm' } as ButtonProps}
        confirmLoading={send.isPending}
        onOk={() => pending && send.mutate(pending)}
        onCancel={() => {
          setPending(null);
          setPassword('');
          send.reset();
        }}
        destroyOnHidden
      >
        <Flex vertical gap="small">
          <Typography.Text>
            {t('prepaid.form.confirmText', {
              amount: money(pending?.amount ?? 0),
              meter: account.devAddr,
              consumer: account.consumerName,
            })}
          </Typography.Text>
          <Form.Item
            label={t('prepaid.form.password')}
            validateStatus={passwordRefused ? 'error' : undefined}
            help={passwordRefused ? errorText(t, refusal) : undefined}
            style={{ marginBottom: 0 }}
          >
            <Input.Password
              autoFocus
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              data-testid="recharge-password"
            />
          </Form.Item>
          {refusal && !passwordRefused && (
            <Alert type="error" showIcon title={errorText(t, refusal)} data-testid="recharge-refusal" />
          )}
        </Flex>
      </Modal>
    </Card>
  );
}

/** Prints the receipt on screen alone; the class is gone once the print dialog closes, so other pages print whole. */
function printReceipt(receipt: HTMLElement | null): void {
  document.body.classList.add('printing-receipt');
  receipt?.classList.add('receipt-printed');
  try {
    window.print();
  } finally {
    document.body.classList.remove('printing-receipt');
    receipt?.classList.remove('receipt-printed');
  }
}

/** The recharge as its receipt: amount, state as it goes, and the tokens for the keypad, printable. */
function Receipt({ recharge }: { recharge: Recharge }) {
  const { t } = useTranslation();
  const card = useRef<HTMLDivElement>(null);
  return (
    <Card
      ref={card}
      size="small"
      title={t('prepaid.receipt.title')}
      data-testid="recharge-receipt"
      extra={
        <Button icon={<PrinterOutlined />} onClick={() => printReceipt(card.current)} data-testid="receipt-print">
          {t('prepaid.receipt.print')}
        </Button>
      }
    >
      <Descriptions size="small" column={1}>
        <Descriptions.Item label={t('prepaid.fields.devAddr')}>{recharge.devAddr}</Descriptions.Item>
        <Descriptions.Item label={t('prepaid.fields.consumerName')}>
          {recharge.consumerName} ({recharge.consumerCode})
        </Descriptions.Item>
        <Descriptions.Item label={t('prepaid.fields.amount')}>{money(recharge.amount)}</Descriptions.Item>
        <Descriptions.Item label={t('prepaid.fields.createTime')}>{time(recharge.createTime)}</Descriptions.Item>
        <Descriptions.Item label={t('prepaid.fields.createdBy')}>{recharge.createdBy}</Descriptions.Item>
        <Descriptions.Item label={t('prepaid.fields.state')}>
          <RechargeState recharge={recharge} />
          {recharge.state === 'recharging' && <Spin size="small" style={{ marginInlineStart: 8 }} />}
        </Descriptions.Item>
        {recharge.meterCredit !== null && (
          <Descriptions.Item label={t('prepaid.receipt.meterCreditAfter')}>
            {money(recharge.meterCredit)}
          </Descriptions.Item>
        )}
        <Descriptions.Item label={t('prepaid.receipt.tokens')}>
          <Flex vertical>
            {recharge.tokens.map((token) => (
              <Typography.Text key={token.tid} code copyable={{ text: token.digits }} data-testid="receipt-token">
                {tokenGroups(token.digits)} · {money(token.amount)}
              </Typography.Text>
            ))}
          </Flex>
        </Descriptions.Item>
      </Descriptions>
    </Card>
  );
}

function History({ meterId }: { meterId: string }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [query, setQuery] = useState<RechargeHistoryQuery>({ meterId, curPage: 1, pageSize: 10 });
  useEffect(() => setQuery((q) => ({ ...q, meterId, curPage: 1 })), [meterId]);
  const history = useQuery({
    queryKey: [...prepaidKeys.history, query],
    queryFn: ({ signal }) => callApi(prepaidApi.history, query, { signal }),
  });
  const exportFile = useMutation({
    mutationFn: () =>
      downloadFile(prepaidApi.export, { meterId, sortField: query.sortField, sortOrder: query.sortOrder }),
    onError: (error) => message.error(errorText(t, error)),
  });
  const sorted = (key: NonNullable<RechargeHistoryQuery['sortField']>) => ({
    sorter: true,
    sortOrder: query.sortField === key ? (query.sortOrder ?? null) : null,
  });
  const columns: TableProps<Recharge>['columns'] = [
    {
      key: 'createTime',
      title: t('prepaid.fields.createTime'),
      render: (_v, r) => time(r.createTime),
      ...sorted('createTime'),
    },
    {
      key: 'amount',
      title: t('prepaid.fields.amount'),
      align: 'right',
      render: (_v, r) => money(r.amount),
      ...sorted('amount'),
    },
    {
      key: 'state',
      title: t('prepaid.fields.state'),
      render: (_v, r) => <RechargeState recharge={r} />,
      ...sorted('state'),
    },
    { key: 'createdBy', title: t('prepaid.fields.createdBy'), dataIndex: 'createdBy' },
    { key: 'finishTime', title: t('prepaid.fields.finishTime'), render: (_v, r) => time(r.finishTime) },
  ];
  return (
    <Card
      size="small"
      title={t('prepaid.history.title')}
      extra={
        <Space>
          <Button icon={<ReloadOutlined />} onClick={() => void history.refetch()} data-testid="history-refresh">
            {t('prepaid.history.refresh')}
          </Button>
          <Button
            icon={<DownloadOutlined />}
            loading={exportFile.isPending}
            onClick={() => exportFile.mutate()}
            data-testid="history-export"
          >
            {t('prepaid.history.export')}
          </Button>
        </Space>
      }
    >
      <Table<Recharge>
        size="small"
        rowKey="id"
        columns={columns}
        dataSource={history.data?.list ?? []}
        loading={history.isFetching}
        expandable={{ expandedRowRender: (r) => <Receipt recharge={r} /> }}
        pagination={{
          current: query.curPage,
          pageSize: query.pageSize,
          total: history.data?.total ?? 0,
          showSizeChanger: true,
        }}
        onChange={(pagination, _filters, sorter) => {
          const one = Array.isArray(sorter) ? sorter[0] : sorter;
          setQuery((q) => ({
            ...q,
            curPage: pagination.current ?? 1,
            pageSize: pagination.pageSize ?? q.pageSize,
            sortField: one?.order ? (one.columnKey as RechargeHistoryQuery['sortField']) : undefined,
            sortOrder: one?.order ?? undefined,
          }));
        }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('prepaid.history.empty')} /> }}
        data-testid="recharge-history"
      />
    </Card>
  );
}

/** What the last daily reconciliation found, paged and exportable. */
function Exceptions() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [page, setPage] = useState({ curPage: 1, pageSize: 10 });
  const found = useQuery({
    queryKey: ['prepaid', 'exceptions', page],
    queryFn: ({ signal }) => callApi(prepaidApi.exceptions, page, { signal }),
  });
  const exportFile = useMutation({
    mutationFn: () => downloadFile(prepaidApi.exportExceptions, {}),
    onError: (error) => message.error(errorText(t, error)),
  });
  const field = (key: string) => t(`prepaid.exceptions.fields.${key}`);
  const columns: TableProps<PrepaidException>['columns'] = [
    { key: 'devAddr', title: field('devAddr'), dataIndex: 'devAddr' },
    { key: 'consumerName', title: field('consumerName'), render: (_v, e) => `${e.consumerName} (${e.consumerCode})` },
    {
      key: 'kind',
      title: field('kind'),
      render: (_v, e) => <Tag color="warning">{t(`prepaid.exceptions.kinds.${e.kind}`)}</Tag>,
    },
    { key: 'meterCredit', title: field('meterCredit'), align: 'right', render: (_v, e) => money(e.meterCredit) },
    { key: 'ledgerBalance', title: field('ledgerBalance'), align: 'right', render: (_v, e) => money(e.ledgerBalance) },
    {
      key: 'relayState',
      title: field('relayState'),
      render: (_v, e) => t(`prepaid.account.relayStates.${e.relayState ?? 'unknown'}`),
    },
    { key: 'checkTime', title: field('checkTime'), render: (_v, e) => time(e.checkTime) },
  ];
  return (
    <Card
      size="small"
      title={t('prepaid.exceptions.title')}
      extra={
        <Space>
          <Button icon={<ReloadOutlined />} onClick={() => void found.refetch()}>
            {t('prepaid.history.refresh')}
          </Button>
          <Button
            icon={<DownloadOutlined />}
            loading={exportFile.isPending}
            onClick={() => exportFile.mutate()}
            data-testid="exceptions-export"
          >
            {t('prepaid.history.export')}
          </Button>
        </Space>
      }
    >
      <Table<PrepaidException>
        size="small"
        rowKey="id"
        columns={columns}
        dataSource={found.data?.list ?? []}
        loading={found.isFetching}
        pagination={{ current: page.curPage, pageSize: page.pageSize, total: found.data?.total ?? 0 }}
        onChange={(p) => setPage({ curPage: p.current ?? 1, pageSize: p.pageSize ?? page.pageSize })}
        locale={{
          emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('prepaid.exceptions.empty')} />,
        }}
        data-testid="prepaid-exceptions"
      />
    </Card>
  );
}

/** The recharge just sent, read again while it is recharging; each change the broker pushes reads it at once. */
function useRecharge(id: string | null) {
  return useQuery({
    queryKey: prepaidKeys.recharge(id ?? ''),
    queryFn: ({ signal }) => callApi(prepaidApi.detail, { id: id ?? '' }, { signal }),
    enabled: id !== null,
    refetchInterval: (q) => (q.state.data?.state === 'recharging' ? POLL_MS : false),
  });
}

/** Each change of the caller's recharges reads the recharge, the account and the history again. */
function useRechargeFeed(username: string | undefined) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!username) return;
    return followTopic(() => rechargeTopic(username), {
      onMessage: (payload) => {
        let parsed: ReturnType<typeof RechargeChangeSchema.safeParse>;
        try {
          parsed = RechargeChangeSchema.safeParse(
            JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload)),
          );
        } catch {
          return;
        }
        if (!parsed.success) return;
        void queryClient.invalidateQueries({ queryKey: prepaidKeys.recharge(parsed.data.id) });
        void queryClient.invalidateQueries({ queryKey: prepaidKeys.account(parsed.data.meterId) });
        void queryClient.invalidateQueries({ queryKey: prepaidKeys.history });
      },
      onLive: () => undefined,
    });
  }, [username, queryClient]);
}

export function PrepaidPage() {
  const { t } = useTranslation();
  const session = useSession();
  const permissions = usePermissions();
  const queryClient = useQueryClient();
  const [keyword, setKeyword] = useState('');
  const [meterId, setMeterId] = useState<string | null>(null);
  const [rechargeId, setRechargeId] = useState<string | null>(null);
  const found = useQuery({
    queryKey: ['prepaid', 'find', keyword],
    queryFn: ({ signal }) => callApi(prepaidApi.find, { keyword }, { signal }),
    enabled: keyword !== '',
  });
  const account = useQuery({
    queryKey: prepaidKeys.account(meterId ?? ''),
    queryFn: ({ signal }) => callApi(prepaidApi.account, { meterId: meterId ?? '' }, { signal }),
    enabled: meterId !== null,
  });
  const recharge = useRecharge(rechargeId);
  useRechargeFeed(session.status === 'authenticated' ? session.user.username : undefined);
  const settledOnce = useRef<string | null>(null);
  // A recharge that settled changes the balances: read them again once.
  useEffect(() => {
    const data = recharge.data;
    if (!data || data.state === 'recharging' || settledOnce.current === data.id) return;
    settledOnce.current = data.id;
    void queryClient.invalidateQueries({ queryKey: prepaidKeys.account(data.meterId) });
    void queryClient.invalidateQueries({ queryKey: prepaidKeys.history });
  }, [recharge.data, queryClient]);

  const matchColumns: TableProps<PrepaidMatch>['columns'] = [
    { key: 'devAddr', title: t('prepaid.fields.devAddr'), dataIndex: 'devAddr' },
    { key: 'consumerCode', title: t('prepaid.fields.consumerCode'), dataIndex: 'consumerCode' },
    { key: 'consumerName', title: t('prepaid.fields.consumerName'), dataIndex: 'consumerName' },
    { key: 'gridName', title: t('meter.fields.gridId'), dataIndex: 'gridName' },
  ];

  return (
    <Flex vertical gap="middle" className="prepaid-page" data-testid="prepaid-page">
      <Input.Search
        allowClear
        enterButton={t('prepaid.search.button')}
        placeholder={t('prepaid.search.placeholder')}
        onSearch={(value) => {
          setKeyword(value.trim());
          setMeterId(null);
          setRechargeId(null);
        }}
        style={{ maxWidth: 480 }}
        data-testid="prepaid-search"
      />
      {keyword === '' ? (
        <Empty description={t('prepaid.search.hint')} />
      ) : (
        <Table<PrepaidMatch>
          size="small"
          rowKey="meterId"
          columns={matchColumns}
          dataSource={found.data ?? []}
          loading={found.isFetching}
          pagination={false}
          rowSelection={{
            type: 'radio',
            selectedRowKeys: meterId ? [meterId] : [],
            onChange: (keys) => setMeterId((keys[0] as string | undefined) ?? null),
          }}
          onRow={(row) => ({ onClick: () => setMeterId(row.meterId), 'data-testid': `match-${row.devAddr}` }) as object}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('prepaid.search.none')} /> }}
        />
      )}
      {meterId && account.isPending && <Spin />}
      {account.error && <Alert type="error" showIcon title={errorText(t, account.error)} />}
      {account.data && (
        <>
          <AccountCard account={account.data} />
          {permissions.buttons.has(PREPAID_RES.recharge) && (
            <RechargeForm account={account.data} onRecharged={(r) => setRechargeId(r.id)} />
          )}
          {recharge.data && <Receipt recharge={recharge.data} />}
          <History meterId={account.data.meterId} />
        </>
      )}
      <Exceptions />
    </Flex>
  );
}
