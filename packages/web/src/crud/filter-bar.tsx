import { periodIssue } from '@meterdesk/contracts';
import { Button, Form, Space } from 'antd';
import dayjs from 'dayjs';
import type { TFunction } from 'i18next';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/api/api-client';
import { validateRange } from '@/fields/date-range';
import { DateRangeInput } from '@/fields/date-range-input';
import { FieldInput } from '@/fields/field-input';
import { PeriodInput } from '@/fields/period-input';
import { messageText } from '@/i18n/message-text';
import type { FieldDescriptor, TimeRangeFilter } from './crud-config';

type FilterValues = Record<string, string | number>;

/** The form name of the time range; it becomes the range's two keys when searching. */
const RANGE = '__timeRange';

function compact(values: Record<string, unknown>): FilterValues {
  const filters: FilterValues = {};
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === 'number') filters[key] = value;
    else if (typeof value === 'string' && value.trim() !== '') filters[key] = value.trim();
  }
  return filters;
}

/**
 * A refusal naming fields of the filter bar alone (an unknown or partial serial: 404 naming `devAddr`),
 * as a message per field, each in the words of its field where it has them (`errors.notFound_devAddr`:
 * 'No meter with this serial'); undefined for any other failure, which the page shows as it is.
 */
export function filterRefusal(
  error: unknown,
  fields: readonly FieldDescriptor[],
  t: TFunction,
): Record<string, string> | undefined {
  if (!(error instanceof ApiError) || error.issues.length === 0) return undefined;
  const keys = new Set(fields.map((field) => field.key));
  if (!error.issues.every((issue) => keys.has(issue.field))) return undefined;
  const refusal: Record<string, string> = {};
  for (const issue of error.issues)
    refusal[issue.field] ??= t(`errors.${issue.key}_${issue.field}`, {
      defaultValue: messageText(t, issue.key, issue.params),
    });
  return refusal;
}

export function FilterBar({
  fields,
  values,
  onSearch,
  timeRange,
  errors,
}: {
  fields: readonly FieldDescriptor[];
  values: FilterValues;
  onSearch: (filters: FilterValues) => void;
  timeRange?: TimeRangeFilter;
  /** What the server said of the searched filters (`filterRefusal`), shown at their fields. */
  errors?: Record<string, string>;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm();

  // The URL is the source of truth: back/forward and reopened tabs refill the bar. Keyed by content,
  // not identity: a navigation that leaves the filters as they were must not wipe what is being typed.
  const valuesKey = JSON.stringify(values);
  useEffect(() => {
    const current = JSON.parse(valuesKey) as FilterValues;
    form.resetFields();
    const { [timeRange?.startKey ?? '']: start, [timeRange?.endKey ?? '']: end, ...rest } = current;
    form.setFieldsValue(timeRange ? { ...rest, [RANGE]: [start, end] } : current);
  }, [form, valuesKey, timeRange]);
  // After the refill above: a refusal of the searched values stays at their fields until one changes.
  useEffect(() => {
    if (errors) form.setFields(Object.entries(errors).map(([name, text]) => ({ name, errors: [text] })));
  }, [form, errors]);

  const search = ({ [RANGE]: range, ...submitted }: Record<string, unknown>) => {
    const filters = compact(submitted);
    if (timeRange && Array.isArray(range)) {
      filters[timeRange.startKey] = String(range[0]);
      filters[timeRange.endKey] = String(range[1]);
    }
    onSearch(filters);
  };

  if (fields.length === 0 && !timeRange) return null;
  return (
    <Form form={form} layout="inline" onFinish={search} style={{ rowGap: 12 }}>
      {timeRange && (
        <Form.Item
          name={RANGE}
          label={t(timeRange.label)}
          required
          rules={[
            {
              validator: async (_rule, value: [string, string] | null) => {
                const { period, startKey, endKey } = timeRange;
                const refusal = period
                  ? value
                    ? periodIssue(period, { [startKey]: value[0], [endKey]: value[1] })?.message
                    : 'mandatory'
                  : validateRange(value && [dayjs(value[0]), dayjs(value[1])], timeRange.maxDays);
                if (refusal) throw new Error(messageText(t, refusal));
              },
            },
          ]}
        >
          {timeRange.period ? (
            <PeriodInput period={timeRange.period} testId="field-timeRange" />
          ) : (
            <DateRangeInput maxDays={timeRange.maxDays} testId="field-timeRange" />
          )}
        </Form.Item>
      )}
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
