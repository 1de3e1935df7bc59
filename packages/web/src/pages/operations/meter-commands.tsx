import { ReloadOutlined } from '@ant-design/icons';
import { planApi } from '@meterdesk/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Empty, Table } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { errorText } from '@/i18n/message-text';
import { commandColumns } from './command-columns';
import type { ResultRow } from './plan-runs';

/** The query key of a meter's command history: a run on its operations tab refreshes it. */
export const meterCommandsKey = (id: string) => ['meter', 'commands', id];

const HISTORY_FIELDS = ['operation', 'requestedBy', 'createTime', 'state', 'resultCode', 'items', 'attempts'] as const;
const PAGE_SIZE = 10;

/** Every command sent to a meter, newest first: what, who, when, its state, result, values and attempts. */
export function MeterCommands({ id }: { id: string }) {
  const { t } = useTranslation();
  const [curPage, setCurPage] = useState(1);
  const commands = useQuery({
    queryKey: [...meterCommandsKey(id), curPage],
    queryFn: ({ signal }) => callApi(planApi.meterCommands, { id, curPage, pageSize: PAGE_SIZE }, { signal }),
    placeholderData: keepPreviousData,
  });
  return (
    <Card
      size="small"
      title={t('operations.screen.history')}
      data-testid="meter-commands"
      extra={
        <Button
          icon={<ReloadOutlined />}
          loading={commands.isFetching}
          data-testid="meter-commands-refresh"
          onClick={() => void commands.refetch()}
        >
          {t('crud.refresh')}
        </Button>
      }
    >
      {commands.error ? (
        <Alert type="error" showIcon title={errorText(t, commands.error)} />
      ) : (
        <Table<ResultRow>
          rowKey={(row) => row.id ?? row.deviceKey}
          size="small"
          columns={commandColumns(t, HISTORY_FIELDS)}
          dataSource={commands.data?.list}
          loading={commands.isLoading}
          onRow={(row) => ({ 'data-testid': `command-${row.operation}` }) as object}
          pagination={{
            current: curPage,
            pageSize: PAGE_SIZE,
            total: commands.data?.total ?? 0,
            showSizeChanger: false,
            onChange: setCurPage,
          }}
          locale={{
            emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('operations.screen.historyEmpty')} />,
          }}
        />
      )}
    </Card>
  );
}
