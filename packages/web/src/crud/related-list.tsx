import { useQuery } from '@tanstack/react-query';
import { Alert, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { callApi } from '@/api/api-client';
import { FieldValue } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';
import { describeSchemaField, objectShape, type RelatedList, type Row } from './crud-config';

/** The members of the rows an operation answers (`z.array(z.object(…))`). */
function rowShape(response: z.ZodType): Record<string, z.ZodType> {
  return response instanceof z.ZodArray ? (objectShape(response.element as z.ZodType) ?? {}) : {};
}

/** One related list of a record's detail: a titled table of the rows its operation answers. */
export function RelatedTable({ related, record }: { related: RelatedList; record: Row }) {
  const { t } = useTranslation();
  const request = related.request(record);
  const rows = useQuery({
    queryKey: ['related', related.operation.path, request],
    queryFn: ({ signal }) => callApi(related.operation, request, { signal }) as Promise<Row[]>,
  });
  const shape = rowShape(related.operation.response);
  const columns = related.columns.map((key) => {
    const field = describeSchemaField(key, shape[key], '');
    return {
      key,
      dataIndex: key,
      title: t(field.label),
      render: (value: unknown) => <FieldValue field={field} value={value} />,
    };
  });
  return (
    <section data-testid={`related-${related.key}`}>
      <Typography.Title level={5} style={{ marginTop: 24 }}>
        {t(related.title)}
      </Typography.Title>
      {rows.error && <Alert type="error" showIcon title={errorText(t, rows.error)} />}
      <Table<Row>
        size="small"
        rowKey={(row) => String(row.id)}
        columns={columns}
        dataSource={rows.data}
        loading={rows.isLoading}
        pagination={false}
        scroll={{ x: 'max-content' }}
      />
    </section>
  );
}
