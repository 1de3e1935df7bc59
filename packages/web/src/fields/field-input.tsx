import { AutoComplete, Input, InputNumber, Select, Space, TreeSelect } from 'antd';
import type { ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { FieldDescriptor } from '@/crud/crud-config';
import { isoToLocalInput, localInputToIso } from './date-text';
import { ICONS } from './icon-registry';
import { useLookupTree } from './use-lookup';

/** What antd's Form.Item hands its control, plus the field it renders. */
export interface FieldInputProps {
  field: FieldDescriptor;
  /** Filters may be cleared to "no condition"; forms keep their value. */
  mode?: 'form' | 'filter';
  id?: string;
  value?: unknown;
  onChange?: (value: unknown) => void;
  onBlur?: () => void;
}

const ICON_OPTIONS = Object.entries(ICONS).map(([name, Icon]) => ({
  value: name,
  label: (
    <Space>
      <Icon />
      {name}
    </Space>
  ),
}));

function LookupTreeSelect({ field, mode, id, value, onChange }: FieldInputProps) {
  const { t } = useTranslation();
  const { options, loading } = useLookupTree(field.lookup);
  return (
    <TreeSelect
      id={id}
      data-testid={`field-${field.key}`}
      value={value as string | undefined}
      onChange={(next) => onChange?.(next)}
      treeData={options}
      loading={loading}
      allowClear={mode === 'filter'}
      showSearch={{ treeNodeFilterProp: 'title' }}
      treeDefaultExpandedKeys={options.map((option) => option.value)}
      placeholder={t('crud.select')}
    />
  );
}

export function FieldInput(props: FieldInputProps) {
  const { field, mode = 'form', id, value, onChange, onBlur } = props;
  const { t } = useTranslation();
  const testId = `field-${field.key}`;
  const text = (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => onChange?.(event.target.value);
  const common = { id, onBlur, 'data-testid': testId };

  switch (field.widget) {
    case 'textarea':
      return <Input.TextArea {...common} value={value as string | undefined} onChange={text} rows={3} />;
    case 'number':
      return (
        <InputNumber
          {...common}
          value={value as number | null | undefined}
          onChange={(next) => onChange?.(next)}
          style={{ width: '100%' }}
        />
      );
    case 'select':
      return (
        <Select
          {...common}
          value={value as string | number | undefined}
          onChange={(next) => onChange?.(next)}
          allowClear={mode === 'filter'}
          placeholder={t('crud.select')}
          options={field.options?.map((option) => ({ value: option.value, label: t(option.label) }))}
        />
      );
    case 'treeSelect':
      return <LookupTreeSelect {...props} mode={mode} />;
    case 'password':
      return (
        <Input.Password {...common} value={value as string | undefined} onChange={text} autoComplete="new-password" />
      );
    case 'date':
      return <Input {...common} type="date" value={(value as string | undefined) ?? ''} onChange={text} />;
    case 'datetime':
      return (
        <Input
          {...common}
          type="datetime-local"
          value={isoToLocalInput(value as string | undefined)}
          onChange={(event) => onChange?.(localInputToIso(event.target.value))}
        />
      );
    case 'icon':
      return (
        <AutoComplete
          {...common}
          value={value as string | undefined}
          onChange={(next) => onChange?.(next)}
          options={ICON_OPTIONS}
          allowClear
          showSearch={{
            filterOption: (input, option) =>
              String(option?.value ?? '')
                .toLowerCase()
                .includes(input.toLowerCase()),
          }}
        />
      );
    default:
      return <Input {...common} value={value as string | undefined} onChange={text} allowClear={mode === 'filter'} />;
  }
}
