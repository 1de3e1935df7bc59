import { type AssociatedDevice, type Firmware, firmwareApi } from '@meterdesk/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Flex, Input, Table, type TableColumnsType, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { UpgradeProgressIcon } from './upgrade-progress';

/**
 * spec §2 meterUpgrade/associated (`?id=` the firmware): the devices its campaigns took, each by its
 * latest, with the version it reported (read back after activation) and the target. Rows
 * `associated-<device>`, their version `associated-version-<device>`.
 */
export function FirmwareAssociatedPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const firmwareId = params.get('id') ?? '';
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState({ deviceKey: '', curPage: 1, pageSize: 20 });
  const firmware = useQuery({
    queryKey: ['firmware', 'detail', firmwareId],
    queryFn: ({ signal }) => callApi(firmwareApi.detail, { id: firmwareId }, { signal }) as Promise<Firmware>,
    enabled: firmwareId !== '',
  });
  const devices = useQuery({
    queryKey: ['firmware', 'associated', firmwareId, query],
    queryFn: ({ signal }) => callApi(firmwareApi.associated, { firmwareId, ...query }, { signal }),
    enabled: firmwareId !== '',
    placeholderData: keepPreviousData,
  });
  const columns: TableColumnsType<AssociatedDevice> = [
    { key: 'deviceKey', title: t('firmware.device.deviceKey'), dataIndex: 'deviceKey' },
    {
      key: 'progress',
      title: t('firmware.device.progress'),
      width: 150,
      render: (_, d) => <UpgradeProgressIcon progress={d.progress} device={d.deviceKey} />,
    },
    { key: 'step', title: t('firmware.device.step'), render: (_, d) => t(`firmware.steps.${d.step}`) },
    {
      key: 'currentVersion',
      title: t('firmware.device.currentVersion'),
      render: (_, d) => <span data-testid={`associated-version-${d.deviceKey}`}>{d.currentVersion}</span>,
    },
    { key: 'targetVersion', title: t('firmware.device.targetVersion'), dataIndex: 'targetVersion' },
    {
      key: 'reason',
      title: t('firmware.device.reason'),
      render: (_, d) => (d.reason ? <Typography.Text type="danger">{t(`errors.${d.reason}`)}</Typography.Text> : null),
    },
    {
      key: 'updateTime',
      title: t('firmware.device.updateTime'),
      render: (_, d) => d.updateTime.slice(0, 19).replace('T', ' '),
    },
  ];
  return (
    <Card title={`${t('firmware.associated.title')}${firmware.data ? ` · ${firmware.data.name}` : ''}`}>
      <Flex vertical gap="middle">
        <Flex gap="small">
          <Input
            allowClear
            style={{ maxWidth: 260 }}
            placeholder={t('firmware.associated.search')}
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            onPressEnter={() => setQuery({ ...query, deviceKey: typed.trim(), curPage: 1 })}
            data-testid="associated-search"
          />
          <Button
            type="primary"
            onClick={() => setQuery({ ...query, deviceKey: typed.trim(), curPage: 1 })}
            data-testid="associated-search-button"
          >
            {t('common.actions.search')}
          </Button>
          <Button onClick={() => void devices.refetch()} data-testid="associated-refresh">
            {t('crud.refresh')}
          </Button>
        </Flex>
        <Table<AssociatedDevice>
          rowKey={(d) => `${d.deviceKind}:${d.deviceKey}`}
          size="small"
          columns={columns}
          dataSource={devices.data?.list}
          loading={devices.isFetching}
          data-testid="associated-table"
          onRow={(d) => ({ 'data-testid': `associated-${d.deviceKey}` }) as object}
          pagination={{
            current: query.curPage,
            pageSize: query.pageSize,
            total: devices.data?.total ?? 0,
            onChange: (curPage, pageSize) => setQuery({ ...query, curPage, pageSize }),
          }}
        />
      </Flex>
    </Card>
  );
}
