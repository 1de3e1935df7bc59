import { WarningOutlined } from '@ant-design/icons';
import { Space, Tag } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { FieldDescriptor } from '@/crud/crud-config';
import { formatDateTime } from './date-text';
import { ResourceIcon } from './icon-registry';

/** A code's label under the first of `prefixes` that names it (`<prefix>.<code>`), else the code itself. */
export function valueLabel(t: TFunction, prefixes: readonly string[], code: string): string {
  return t(
    prefixes.map((prefix) => `${prefix}.${code}`),
    { defaultValue: code },
  );
}

/** A stored value as plain text (a group's members each on their own), empty for none. */
export function fieldText(field: FieldDescriptor, value: unknown, t: TFunction): string {
  if (value === undefined || value === null || value === '') return '';
  if (Array.isArray(value)) return value.map((item) => fieldText(field, item, t)).join(', ');
  if (field.valueLabels && (typeof value === 'string' || typeof value === 'number'))
    return valueLabel(t, field.valueLabels, String(value));
  switch (field.widget) {
    case 'select': {
      const option = field.options?.find((candidate) => candidate.value === value);
      return option ? t(option.label) : String(value);
    }
    case 'switch':
      return t(value === true ? 'common.yes' : 'common.no');
    case 'datetime':
      return formatDateTime(String(value));
    case 'password':
      return '••••••';
    case 'group': {
      const members = value as Record<string, unknown>;
      return (field.fields ?? [])
        .map((member) => `${t(member.label)}: ${fieldText(member, members[member.key], t)}`)
        .join('; ');
    }
    default:
      return String(value);
  }
}

/** A stored value as text for tables and detail views. */
export function FieldValue({ field, value }: { field: FieldDescriptor; value: unknown }) {
  const { t } = useTranslation();
  if (value === undefined || value === null || value === '') return null;
  if (field.warning && value === true) {
    return (
      <Tag color="error" icon={<WarningOutlined />} data-testid={`warning-${field.key}`}>
        {t(field.label)}
      </Tag>
    );
  }
  switch (field.widget) {
    // A column of flags reads at a glance when yes stands out from no.
    case 'switch':
      return <Tag color={value === true ? 'green' : 'default'}>{fieldText(field, value, t)}</Tag>;
    case 'textarea':
      // A notice or remark keeps the lines it was written in.
      return <span style={{ whiteSpace: 'pre-wrap' }}>{fieldText(field, value, t)}</span>;
    case 'icon':
      return (
        <Space>
          <ResourceIcon name={String(value)} />
          {String(value)}
        </Space>
      );
    case 'group': {
      const members = value as Record<string, unknown>;
      return (
        <Space orientation="vertical" size={0} data-testid={`value-${field.key}`}>
          {field.fields?.map((member) => (
            <span key={member.key}>
              {t(member.label)}: <FieldValue field={member} value={members[member.key]} />
            </span>
          ))}
        </Space>
      );
    }
    default:
      return <>{fieldText(field, value, t)}</>;
  }
}
