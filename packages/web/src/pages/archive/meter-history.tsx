import { type MeterStatusChange, meterApi } from '@meterdesk/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Empty, Table, type TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { formatDateTime } from '@/fields/date-text';
import { errorText } from '@/i18n/message-text';

/** The query key of a meter's history: maintain refreshes it with the meter's other queries. */
export const meterHistoryKey = (id: string) => ['meter', 'history', id];

/** Every status change of a meter, newest first: when, who, from → to, why. */
export function MeterHistory({ id }: { id: string }) {
  const { t } = useTranslation();
  const history = useQuery({
    queryKey: meterHistoryKey(id),
    queryFn: ({ signal }) => callApi(meterApi.history, { id }, { signal }),
  });
  const status = (value: number) => t(`meter.statuses.${value}`);
  const columns: TableColumnsType<MeterStatusChange> = [
    { key: 'time', title: t('meter.history.time'), width: 190, render: (_, row) => formatDateTime(row.time) },
    { key: 'username', title: t('meter.history.username'), dataIndex: 'username', width: 140 },
    {
      key: 'change',
      title: t('meter.history.change'),
      width: 240,
      render: (_, row) => `${status(row.fromStatus)} → ${status(row.toStatus)}`,
    },
    { key: 'reason', title: t('meter.history.reason'), dataIndex: 'reason' },
  ];
  return (
    <Card title={t('meter.history.title')} data-testid="meter-history">
      {history.error ? (
        <Alert type="error" showIcon title={errorText(t, history.error)} />
      ) : (
        <Table<MeterStatusChange>
          rowKey="id"
          size="small"
          columns={columns}
          dataSource={history.data}
          loading={history.isLoading}
          pagination={false}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('meter.history.empty')} /> }}
        />
      )}
    </Card>
  );
}
