import { Button, Form, Space } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { FieldInput } from '@/fields/field-input';
import type { FieldDescriptor } from './crud-config';

type FilterValues = Record<string, string | number>;

function compact(values: Record<string, unknown>): FilterValues {
  const filters: FilterValues = {};
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === 'number') filters[key] = value;
    else if (typeof value === 'string' && value.trim() !== '') filters[key] = value.trim();
  }
  return filters;
}

export function FilterBar({
  fields,
  values,
  onSearch,
}: {
  fields: readonly FieldDescriptor[];
  values: FilterValues;
  onSearch: (filters: FilterValues) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm();

  // The URL is the source of truth: back/forward and reopened tabs refill the bar.
  useEffect(() => {
    form.resetFields();
    form.setFieldsValue(values);
  }, [form, values]);

  if (fields.length === 0) return null;
  return (
    <Form
      form={form}
      layout="inline"
      onFinish={(submitted: Record<string, unknown>) => onSearch(compact(submitted))}
      style={{ rowGap: 12 }}
    >
      {fields.map((field) => (
        <Form.Item key={field.key} name={field.key} label={t(field.label)}>
          <FieldInput field={field} mode="filter" />
        </Form.Item>
      ))}
      <Form.Item>
        <Space>
          <Button type="primary" htmlType="submit" data-testid="crud-search">
            {t('common.actions.search')}
          </Button>
          <Button
            data-testid="crud-reset"
            onClick={() => {
              form.resetFields();
              onSearch({});
            }}
          >
            {t('common.actions.reset')}
          </Button>
        </Space>
      </Form.Item>
    </Form>
  );
}
