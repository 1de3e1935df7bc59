import { ReloadOutlined } from '@ant-design/icons';
import {
  TARIFF_RES,
  TARIFF_USER_KINDS,
  type Tariff,
  type TariffAssociated,
  TariffAssociatedSchema,
  tariffApi,
} from '@meterdesk/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Empty, Flex, Input, Segmented, Table, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { isGranted } from '@/app/permissions/permission-index';
import { describeSchemaField } from '@/crud/crud-config';
import { FieldValue } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';

type Kind = (typeof TARIFF_USER_KINDS)[number];

/** What a row shows of a meter, and of a POC (whose sync status says whether its meter took the tariff). */
const COLUMNS: Record<Kind, readonly (keyof TariffAssociated)[]> = {
  meter: ['devAddr', 'pocNo', 'consumerName', 'gridName', 'online', 'takenTariffName', 'takenTime'],
  poc: ['pocNo', 'devAddr', 'consumerName', 'gridName', 'syncStatus', 'online', 'takenTariffName', 'takenTime'],
};

function columnsOf(kind: Kind, t: (key: string) => string): TableColumnsType<TariffAssociated> {
  return COLUMNS[kind].map((key) => {
    const field = describeSchemaField(key, TariffAssociatedSchema.shape[key], 'tariff.associated');
    return {
      key,
      title: t(field.label),
      render: (_: unknown, row: TariffAssociated) => <FieldValue field={field} value={row[key]} />,
    };
  });
}

/** tariffManagement/Associated (`?id=`): the meters and the POCs using a tariff, within the user's grid scope, paged. */
export function TariffAssociatedPage() {
  const { t } = useTranslation();
  const permissions = usePermissions();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const [kind, setKind] = useState<Kind>('meter');
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState({ keyword: '', curPage: 1, pageSize: 10 });
  const body = { id, kind, ...query };

  const tariff = useQuery({
    queryKey: ['tariff', 'detail', id],
    queryFn: ({ signal }) => callApi(tariffApi.detail, { id }, { signal }) as Promise<Tariff>,
    // Its name titles the page when the user may read tariffs; the list stands without it.
    enabled: id !== '' && isGranted(permissions, TARIFF_RES.detail),
  });
  const rows = useQuery({
    queryKey: ['tariff', 'associated', body],
    queryFn: ({ signal }) => callApi(tariffApi.associated, body, { signal }),
    enabled: id !== '',
    placeholderData: keepPreviousData,
  });

  return (
    <Card
      title={
        tariff.data ? t('tariffScreen.associatedOf', { name: tariff.data.tariffName }) : t('tariff.associated.title')
      }
      data-testid="tariff-associated"
    >
      <Flex vertical gap="middle">
        <Flex gap="small" wrap align="center">
          <Segmented<Kind>
            value={kind}
            data-testid="associated-kind"
            options={TARIFF_USER_KINDS.map((value) => ({
              value,
              label: t(value === 'meter' ? 'tariff.associated.meters' : 'tariff.associated.pocs'),
            }))}
            onChange={(next) => {
              setKind(next);
              setQuery((previous) => ({ ...previous, curPage: 1 }));
            }}
          />
          <Input.Search
            allowClear
            style={{ width: 280 }}
            value={typed}
            maxLength={50}
            placeholder={t('tariffScreen.associatedKeyword')}
            data-testid="associated-keyword"
            onChange={(event) => setTyped(event.target.value)}
            onSearch={(keyword) => {
              // Search always asks again: the same keyword shows today's meters, not the cached ones.
              if (keyword.trim() === query.keyword && query.curPage === 1) void rows.refetch();
              setQuery((previous) => ({ ...previous, keyword: keyword.trim(), curPage: 1 }));
            }}
          />
          <Button
            icon={<ReloadOutlined />}
            loading={rows.isFetching}
            data-testid="crud-refresh"
            onClick={() => void rows.refetch()}
          >
            {t('crud.refresh')}
          </Button>
        </Flex>
        {rows.error && <Alert type="error" showIcon title={errorText(t, rows.error)} />}
        <Table<TariffAssociated>
          rowKey="id"
          size="small"
          columns={columnsOf(kind, t)}
          dataSource={rows.data?.list}
          loading={rows.isFetching}
          scroll={{ x: true }}
          onRow={(row) => ({ 'data-testid': `associated-${row.kind}-${row.id}` }) as object}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> }}
          pagination={{
            current: query.curPage,
            pageSize: query.pageSize,
            total: rows.data?.total ?? 0,
            showSizeChanger: true,
            showTotal: (total) => t('crud.total', { count: total }),
            onChange: (curPage, pageSize) => setQuery((previous) => ({ ...previous, curPage, pageSize })),
          }}
        />
      </Flex>
    </Card>
  );
}
