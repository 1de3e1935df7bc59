import { MAX_OPTIONS, ROOT_PARENT_ID } from '@meterdesk/contracts';
import {
  AutoComplete,
  DatePicker,
  Form,
  Input,
  InputNumber,
  Select,
  Space,
  Spin,
  Switch,
  TreeSelect,
  Typography,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { type ChangeEvent, createContext, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type FieldDescriptor, isRequired } from '@/crud/crud-config';
import type { LookupOption } from '@/resources/lookups';
import { CheckTreeInput } from './check-tree-input';
import { keepTypedDate, toIsoMoment } from './date-range';
import type { FieldInputProps } from './field-input-props';
import { ICONS } from './icon-registry';
import { useLookup } from './use-lookup';

/** What antd's Form.Item hands its control, plus the field it renders. */
/** An inline filter bar sizes a select to its content: an empty one would be too narrow to read. */
const FILTER_SELECT_STYLE = { minWidth: 200 };
const NARROW_HINT_STYLE = { display: 'block', padding: '4px 12px' };

const ICON_OPTIONS = Object.entries(ICONS).map(([name, Icon]) => ({
  value: name,
  label: (
    <Space>
      <Icon />
      {name}
    </Space>
  ),
}));

/** A parent picker offers "top level" exactly when the field accepts the root parent id. */
function acceptsRoot(field: FieldDescriptor): boolean {
  return field.schema?.safeParse(ROOT_PARENT_ID).success ?? false;
}

/**
 * The record a form edits. In a tree of its own kind (an organisation's or resource's parent picker)
 * that record and everything below it cannot be picked: a node cannot sit under itself.
 */
export const EditedRecordContext = createContext<string | undefined>(undefined);

type TreeOption = LookupOption & { disabled?: boolean };

function withoutBranch(options: readonly LookupOption[], id: string | undefined, inside = false): TreeOption[] {
  return options.map((option) => {
    const disabled = inside || option.value === id;
    const children = option.children && withoutBranch(option.children, id, disabled);
    return { ...option, children, ...(disabled && { disabled }) };
  });
}

function LookupTreeSelect({ field, mode, id, value, onChange }: FieldInputProps) {
  const { t } = useTranslation();
  const { options: all, loading } = useLookup(field.lookup);
  const edited = useContext(EditedRecordContext);
  const options = useMemo(() => withoutBranch(all, edited), [all, edited]);
  const treeData = acceptsRoot(field) ? [{ value: ROOT_PARENT_ID, title: t('crud.root'), children: options }] : options;
  return (
    <TreeSelect
      id={id}
      data-testid={`field-${field.key}`}
      value={value as string | string[] | undefined}
      onChange={(next) => onChange?.(next)}
      treeData={treeData}
      loading={loading}
      multiple={field.multiple}
      allowClear={mode === 'filter' || field.multiple}
      showSearch={{ treeNodeFilterProp: 'title' }}
      treeDefaultExpandedKeys={treeData.map((option) => option.value)}
      placeholder={t('crud.select')}
      style={mode === 'filter' ? FILTER_SELECT_STYLE : undefined}
    />
  );
}

/** How long typing pauses before a searched lookup asks the server. */
const SEARCH_DEBOUNCE_MS = 300;

const heldValues = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v !== '');

/** Filters a searched lookup takes from the form: its `lookupWith` members, `id` the edited record. */
function useLookupContext(lookupWith: Readonly<Record<string, string>>): Record<string, string> | undefined {
  const edited = useContext(EditedRecordContext);
  // Text, so that only a change of these values asks the server again.
  const watched = Form.useWatch(
    useCallback(
      (values: Record<string, unknown>) =>
        JSON.stringify(
          Object.fromEntries(
            Object.entries(lookupWith).map(([member, from]) => [member, from === 'id' ? edited : values?.[from]]),
          ),
        ),
      [lookupWith, edited],
    ),
    Form.useFormInstance(),
  );
  return useMemo(() => {
    const context = JSON.parse(watched ?? '{}') as Record<string, unknown>;
    const complete = Object.keys(lookupWith).every((member) => typeof context[member] === 'string');
    return complete ? (context as Record<string, string>) : undefined;
  }, [lookupWith, watched]);
}

/** A select whose lookup the form filters: it offers nothing until the form supplies every filter. */
function FormFilteredSelect(props: FieldInputProps & { lookupWith: Readonly<Record<string, string>> }) {
  return <LookupSelect {...props} context={useLookupContext(props.lookupWith)} />;
}

const NO_CONTEXT = {};

function SelectInput(props: FieldInputProps) {
  const { lookupWith } = props.field;
  return lookupWith ? (
    <FormFilteredSelect {...props} lookupWith={lookupWith} />
  ) : (
    <LookupSelect {...props} context={NO_CONTEXT} />
  );
}

function LookupSelect({
  field,
  mode,
  id,
  value,
  onChange,
  onBlur,
  context,
}: FieldInputProps & { context: Readonly<Record<string, string>> | undefined }) {
  const { t } = useTranslation();
  const form = Form.useFormInstance();
  const [typed, setTyped] = useState('');
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKeyword(typed.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const values = useMemo(() => heldValues(value), [value]);
  const lookup = useLookup(field.lookup, { keyword, values, context: context ?? {} }, context !== undefined);
  const options = field.lookup
    ? lookup.options.map((option) => ({ value: option.value, label: option.title }))
    : field.options?.map((option) => ({ value: option.value, label: t(option.label) }));
  const choose = (next: unknown) => {
    const chosen = field.fills && lookup.options.find((option) => option.value === next)?.record;
    // Filled first, so the change the form records holds both.
    if (mode === 'form' && form && chosen) {
      form.setFieldsValue(
        Object.fromEntries(Object.entries(field.fills ?? {}).map(([target, member]) => [target, chosen[member]])),
      );
    }
    onChange?.(next);
  };
  return (
    <Select
      id={id}
      onBlur={onBlur}
      data-testid={`field-${field.key}`}
      value={value as string | number | (string | number)[] | undefined}
      onChange={choose}
      mode={field.multiple ? 'multiple' : undefined}
      // An optional reference (a meter's module) can be taken off again.
      allowClear={mode === 'filter' || field.multiple || !isRequired(field.schema)}
      disabled={context === undefined}
      loading={lookup.loading}
      showSearch={
        // A searched lookup filters on the server: the options shown are already the matches.
        lookup.searched
          ? { filterOption: false, searchValue: typed, onSearch: setTyped }
          : { optionFilterProp: 'label' }
      }
      notFoundContent={lookup.loading ? <Spin size="small" /> : undefined}
      popupRender={(menu) => (
        <>
          {menu}
          {lookup.more && (
            <Typography.Text type="secondary" style={NARROW_HINT_STYLE} data-testid={`narrow-${field.key}`}>
              {t('crud.narrowSearch', { max: MAX_OPTIONS })}
            </Typography.Text>
          )}
        </>
      )}
      placeholder={t(lookup.searched ? 'crud.typeToSearch' : 'crud.select')}
      style={mode === 'filter' ? FILTER_SELECT_STYLE : undefined}
      options={options}
    />
  );
}

/** A yes/no filter also needs "either"; yes and no travel as text, as the list's URL keeps them. */
function FlagFilter({ field, id, value, onChange }: FieldInputProps) {
  const { t } = useTranslation();
  return (
    <Select
      id={id}
      data-testid={`field-${field.key}`}
      value={value as string | undefined}
      onChange={(next) => onChange?.(next)}
      allowClear
      placeholder={t('crud.select')}
      options={[
        { value: 'true', label: t('common.yes') },
        { value: 'false', label: t('common.no') },
      ]}
    />
  );
}

const asDay = (value: unknown): Dayjs | null => (typeof value === 'string' && value ? dayjs(value) : null);

export function FieldInput(props: FieldInputProps) {
  const { field, mode = 'form', id, value, onChange, onBlur } = props;
  const testId = `field-${field.key}`;
  const text = (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => onChange?.(event.target.value);
  const common = { id, onBlur, 'data-testid': testId };
  if (field.Input && mode === 'form') return <field.Input id={id} value={value} onChange={onChange} />;

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
      return <SelectInput {...props} mode={mode} />;
    case 'treeSelect':
      return <LookupTreeSelect {...props} mode={mode} />;
    case 'checkTree':
      return <CheckTreeInput {...props} />;
    case 'switch':
      return mode === 'filter' ? (
        <FlagFilter {...props} />
      ) : (
        <Switch id={id} data-testid={testId} checked={value === true} onChange={(next) => onChange?.(next)} />
      );
    case 'password':
      return (
        <Input.Password {...common} value={value as string | undefined} onChange={text} autoComplete="new-password" />
      );
    case 'date':
      return (
        <DatePicker
          {...common}
          value={asDay(value)}
          onKeyDown={keepTypedDate}
          onChange={(next) => onChange?.(next ? next.format('YYYY-MM-DD') : '')}
          style={{ width: '100%' }}
        />
      );
    case 'datetime':
      return (
        <DatePicker
          {...common}
          showTime
          value={asDay(value)}
          onKeyDown={keepTypedDate}
          onChange={(next) => onChange?.(next ? toIsoMoment(next) : '')}
          style={{ width: '100%' }}
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
