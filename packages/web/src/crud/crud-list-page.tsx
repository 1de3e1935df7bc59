import { EditOutlined, EyeOutlined, PlusOutlined } from '@ant-design/icons';
import type { Page } from '@meterdesk/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Drawer, Empty, Flex, Table, type TableColumnsType, type TableProps } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { FieldValue } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';
import { type CrudConfig, describeField } from './crud-config';
import { CrudDetail, type Row } from './crud-detail';
import { FilterBar } from './filter-bar';
import { type ListQuery, listRequest, readListQuery, writeListQuery } from './list-query';

export function CrudListPage({ crud }: { crud: CrudConfig }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const permissions = usePermissions();
  const [params, setParams] = useSearchParams();
  const [viewing, setViewing] = useState<Row | null>(null);
  const { entity } = crud;

  const filterFields = useMemo(() => entity.filters.map((key) => describeField(crud, key)), [crud, entity]);
  const query = useMemo(
    () => readListQuery(params, filterFields, new Set(entity.columns.filter((c) => c.sortable).map((c) => c.field))),
    [params, filterFields, entity],
  );
  const body = listRequest(query);
  const list = useQuery({
    queryKey: [entity.name, 'list', body],
    queryFn: ({ signal }) => callApi(crud.list, body, { signal }) as Promise<Page<Row>>,
    placeholderData: keepPreviousData,
  });

  const addPath = `${entity.pagePath}/add`;
  const editPath = `${entity.pagePath}/edit`;
  const detailPath = `${entity.pagePath}/detail`;
  const canAdd = Boolean(crud.create) && permissions.pages.has(addPath);
  const canEdit = Boolean(crud.update) && permissions.pages.has(editPath);
  const hasDetailPage = permissions.pages.has(detailPath);
  const show = (next: ListQuery) => setParams(writeListQuery(next));

  const columns: TableColumnsType<Row> = [
    ...entity.columns.map((column) => {
      const field = describeField(crud, column.field);
      return {
        key: column.field,
        dataIndex: column.field,
        title: t(field.label),
        width: column.width,
        sorter: column.sortable === true,
        sortOrder: query.sortField === column.field ? (query.sortOrder ?? null) : null,
        render: (value: unknown) => <FieldValue field={field} value={value} />,
      };
    }),
    {
      key: 'actions',
      title: t('crud.columnsActions'),
      fixed: 'right',
      width: 160,
      render: (_: unknown, row: Row) => {
        const id = encodeURIComponent(String(row.id));
        return (
          <Flex gap="small">
            <Button
              type="link"
              size="small"
              icon={<EyeOutlined />}
              data-testid="crud-view"
              onClick={() => (hasDetailPage ? navigate(`${detailPath}?id=${id}`) : setViewing(row))}
            >
              {t('common.actions.view')}
            </Button>
            {canEdit && (
              <Button
                type="link"
                size="small"
                icon={<EditOutlined />}
                data-testid="crud-edit"
                onClick={() => navigate(`${editPath}?id=${id}`)}
              >
                {t('common.actions.edit')}
              </Button>
            )}
          </Flex>
        );
      },
    },
  ];

  const onTableChange: TableProps<Row>['onChange'] = (pagination, _filters, sorter, extra) => {
    const sort = Array.isArray(sorter) ? sorter[0] : sorter;
    const sortOrder = sort?.order ?? undefined;
    show({
      ...query,
      curPage: extra.action === 'paginate' ? (pagination.current ?? 1) : 1,
      pageSize: pagination.pageSize ?? query.pageSize,
      sortField: sortOrder ? String(sort?.columnKey) : undefined,
      sortOrder,
    });
  };

  return (
    <Flex vertical gap="middle" data-testid={`${entity.name}-list`}>
      <FilterBar
        fields={filterFields}
        values={query.filters}
        onSearch={(filters) => show({ ...query, filters, curPage: 1 })}
      />
      {canAdd && (
        <Flex justify="end">
          <Button type="primary" icon={<PlusOutlined />} data-testid="crud-add" onClick={() => navigate(addPath)}>
            {t('common.actions.add')}
          </Button>
        </Flex>
      )}
      {list.error && (
        <Alert
          type="error"
          showIcon
          title={errorText(t, list.error)}
          action={<Button onClick={() => list.refetch()}>{t('common.actions.retry')}</Button>}
        />
      )}
      <Table<Row>
        rowKey={(row) => String(row.id)}
        columns={columns}
        dataSource={list.data?.list}
        loading={list.isFetching}
        onChange={onTableChange}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> }}
        pagination={{
          current: query.curPage,
          pageSize: query.pageSize,
          total: list.data?.total ?? 0,
          showSizeChanger: true,
          showTotal: (total) => t('crud.total', { total }),
        }}
      />
      <Drawer
        open={viewing !== null}
        onClose={() => setViewing(null)}
        title={t('crud.detailTitle')}
        size={560}
        destroyOnHidden
      >
        {viewing && <CrudDetail crud={crud} record={viewing} />}
      </Drawer>
    </Flex>
  );
}
