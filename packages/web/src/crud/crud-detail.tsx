import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Flex, Spin, Table, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError, callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { FieldValue } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';
import { useLanguage } from '@/i18n/use-language';
import { type CrudConfig, describeField, type FieldDescriptor, type Row, shownValue } from './crud-config';
import { RelatedTable } from './related-list';
import { actionLabel, useRowActions } from './row-actions';
import { useListLocation } from './use-list-location';

const DETAIL_LABEL_WIDTH = 240;

/** A list of records the detail carries (a consumer's POCs), as a titled table. */
function ItemsTable({ field, rows }: { field: FieldDescriptor; rows: Row[] }) {
  const { t } = useTranslation();
  return (
    <Flex vertical gap="small" data-testid={`items-${field.key}`}>
      <Typography.Title level={5} style={{ margin: 0 }}>
        {t(field.label)}
      </Typography.Title>
      <Table<Row>
        size="small"
        bordered
        pagination={false}
        rowKey={(row) => String(row.id ?? rows.indexOf(row))}
        dataSource={rows}
        columns={(field.items ?? []).map((item) => ({
          key: item.key,
          title: t(item.label),
          render: (_: unknown, row: Row) => <FieldValue field={item} value={row[item.key]} />,
        }))}
      />
    </Flex>
  );
}

/**
 * The entity's `detail` fields as a description list; lists of records the record carries follow
 * it as tables (a list row, which carries none, shows just the fields), then the related lists
 * read by their own calls.
 */
export function CrudDetail({ crud, record }: { crud: CrudConfig; record: Row }) {
  const { t } = useTranslation();
  const language = useLanguage();
  const fields = crud.entity.detail.map((key) => describeField(crud, key));
  return (
    <Flex vertical gap="large">
      <Descriptions
        bordered
        column={1}
        // Labels in one width on every detail, instead of a share of the page that differs by entity.
        styles={{ label: { width: DETAIL_LABEL_WIDTH } }}
        data-testid={`${crud.entity.name}-detail`}
        items={fields
          .filter((field) => !field.items)
          .map((field) => {
            const value = shownValue(crud, record, field.key, language);
            const Cell = crud.cells[field.key];
            return {
              key: field.key,
              label: t(field.label),
              children: Cell ? (
                <Cell row={record} value={value} field={field} />
              ) : (
                <FieldValue field={field} value={value} />
              ),
            };
          })}
      />
      {fields.map((field) => {
        const rows = record[field.key];
        return field.items && Array.isArray(rows) ? <ItemsTable key={field.key} field={field} rows={rows} /> : null;
      })}
      {crud.related.map((related) => (
        <RelatedTable key={related.key} related={related} record={record} />
      ))}
    </Flex>
  );
}

/**
 * The `…/detail?id=` page of entities that declare one. `children` follow the record once it has
 * loaded (a meter's history): a record the user may not see then says so once, not once per part.
 */
export function CrudDetailPage({ crud, children }: { crud: CrudConfig; children?: ReactNode }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const permissions = usePermissions();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const listLocation = useListLocation(crud.entity.pagePath);
  const editPath = crud.pages.edit;
  const detail = useQuery({
    queryKey: [crud.entity.name, 'detail', id],
    queryFn: ({ signal }) => {
      if (!crud.detail) throw new ApiError(404, 'wrongApi');
      return callApi(crud.detail, { id }, { signal }) as Promise<Row>;
    },
    enabled: id !== '',
  });
  const rowActions = useRowActions(crud);
  const record = detail.data;
  const actions = record ? rowActions.visibleFor(record).filter((action) => action.onDetail || action.detailOnly) : [];

  return (
    <>
      <Card
        title={t('crud.detailTitle')}
        extra={
          <Flex gap="small">
            {record &&
              actions.map((action) => (
                <Button
                  key={action.key}
                  icon={action.icon}
                  danger={action.run?.danger}
                  data-testid={`detail-${action.key}`}
                  onClick={() => rowActions.trigger(action, record)}
                >
                  {actionLabel(t, crud, action)}
                </Button>
              ))}
            {crud.update && permissions.pages.has(editPath) && (
              <Button data-testid="crud-edit" onClick={() => navigate(`${editPath}?id=${encodeURIComponent(id)}`)}>
                {t('common.actions.edit')}
              </Button>
            )}
            <Button data-testid="crud-back" onClick={() => navigate(listLocation)}>
              {t('common.actions.back')}
            </Button>
          </Flex>
        }
      >
        {detail.isLoading && <Spin />}
        {detail.error && <Alert type="error" showIcon title={errorText(t, detail.error)} />}
        {record && <CrudDetail crud={crud} record={record} />}
        {rowActions.dialog}
      </Card>
      {record && children}
    </>
  );
}
