import { OPERATION_NAMES, type Plan, planApi } from '@meterdesk/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Empty, Flex, Table, type TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { callApi } from '@/api/api-client';
import { formatDateTime } from '@/fields/date-text';
import { errorText } from '@/i18n/message-text';
import { useConfirm } from './results-panel';

const PENDING_KEY = ['plan', 'pending'];
const OrdersSchema = z.array(z.object({ cmd: z.enum(OPERATION_NAMES) })).min(1);

/** The operation a plan carries (a plan holds one order). */
function operationOf(plan: Plan): string | undefined {
  const parsed = OrdersSchema.safeParse(plan.orders);
  return parsed.success ? parsed.data[0]?.cmd : undefined;
}

/** Disconnects held for a second user's approval: who asked, how many meters, when; approve or reject. */
export function PendingApprovals() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const pending = useQuery({
    queryKey: PENDING_KEY,
    queryFn: ({ signal }) => callApi(planApi.pending, { pageSize: 100 }, { signal }),
  });
  const decide = useMutation({
    mutationFn: ({ plan, approve }: { plan: Plan; approve: boolean }) =>
      approve ? callApi(planApi.approve, { planid: plan.planid }) : callApi(planApi.reject, { planid: plan.planid }),
    onSuccess: (_data, { approve }) =>
      message.success(t(approve ? 'operations.screen.pending.approved' : 'operations.screen.pending.rejected')),
    onError: (error) => message.error(errorText(t, error)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: PENDING_KEY }),
  });
  const ask = (plan: Plan, approve: boolean) => {
    const cmd = operationOf(plan);
    confirm(
      t(approve ? 'operations.screen.pending.confirmApprove' : 'operations.screen.pending.confirmReject', {
        operation: cmd ? t(`operations.names.${cmd}`) : plan.planName,
        count: plan.total,
        user: plan.createdBy,
      }),
      () => decide.mutateAsync({ plan, approve }),
      approve,
    );
  };

  const columns: TableColumnsType<Plan> = [
    {
      key: 'operation',
      title: t('operations.fields.operation'),
      render: (_, plan) => {
        const cmd = operationOf(plan);
        return cmd ? t(`operations.names.${cmd}`) : plan.planName;
      },
    },
    { key: 'createdBy', title: t('operations.screen.pending.requestedBy'), dataIndex: 'createdBy' },
    { key: 'total', title: t('operations.screen.pending.count'), dataIndex: 'total' },
    {
      key: 'createTime',
      title: t('operations.screen.pending.time'),
      render: (_, plan) => formatDateTime(plan.createTime),
    },
    {
      key: 'actions',
      title: t('crud.columnsActions'),
      render: (_, plan) => (
        <Flex gap="small">
          <Button size="small" type="primary" data-testid={`approve-${plan.planid}`} onClick={() => ask(plan, true)}>
            {t('operations.screen.pending.approve')}
          </Button>
          <Button size="small" data-testid={`reject-${plan.planid}`} onClick={() => ask(plan, false)}>
            {t('operations.screen.pending.reject')}
          </Button>
        </Flex>
      ),
    },
  ];

  return (
    <Card size="small" title={t('operations.screen.pending.title')} data-testid="pending-approvals">
      {pending.error ? (
        <Alert type="error" showIcon title={errorText(t, pending.error)} />
      ) : (
        <Table<Plan>
          rowKey="planid"
          size="small"
          columns={columns}
          dataSource={pending.data?.list}
          loading={pending.isLoading}
          pagination={false}
          locale={{
            emptyText: (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('operations.screen.pending.empty')} />
            ),
          }}
        />
      )}
    </Card>
  );
}
