import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import {
  MAX_PAGE_SIZE,
  MAX_PARAM_TEMPLATE_ITEMS,
  type ObisRecord,
  obisApi,
  type ParamValueKind,
  paramValueIssue,
  paramValueKind,
  unitSymbol,
} from '@meterdesk/contracts';
import { useQuery } from '@tanstack/react-query';
import { Button, Flex, Form, Input, InputNumber, Select, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import type { RowsInputProps } from '@/crud/crud-config';
import { zodIssueText } from '@/crud/form-errors';
import { messageText } from '@/i18n/message-text';

/** A catalogue item a template may set, with the kind of value its object takes. */
interface Settable {
  obis: string;
  description: string;
  kind: ParamValueKind;
  unit: string;
  scaler: number;
}

interface Catalogue {
  settable: Settable[];
  /** What a display list may show: the items flagged display option. */
  displayable: { value: string; label: string }[];
}

/** The OBIS catalogue as the editor needs it (small: one page holds it, as the operation pickers read it). */
function useCatalogue() {
  return useQuery({
    queryKey: ['lookup', 'paramTemplateObis'],
    queryFn: async ({ signal }): Promise<Catalogue> => {
      const { list } = await callApi(obisApi.list, { curPage: 1, pageSize: MAX_PAGE_SIZE }, { signal });
      const items = list as ObisRecord[];
      const settable = items.flatMap((item) => {
        const kind = item.settingChannel ? paramValueKind(item) : null;
        return kind
          ? [{ obis: item.obis, description: item.description, kind, unit: unitSymbol(item.unit), scaler: item.scaler }]
          : [];
      });
      const displayable = items
        .filter((item) => item.displayOption)
        .map((item) => ({ value: item.obis, label: `${item.obis} ${item.description}` }));
      return { settable, displayable };
    },
  });
}

/** What the raw value reads as, beside its input: `× 10^-1 V`, or the unit alone. */
function scaleHint(t: TFunction, item: Settable): string | undefined {
  if (item.scaler !== 0) return t('paramTemplate.editor.scaledAs', { scaler: item.scaler, unit: item.unit });
  return item.unit || undefined;
}

function ValueInput({
  item,
  catalogue,
  id,
  value,
  onChange,
}: {
  item: Settable | undefined;
  catalogue: Catalogue;
  id?: string;
  value?: unknown;
  onChange?: (value: unknown) => void;
}) {
  const { t } = useTranslation();
  const common = { id, 'data-testid': `param-value-${id ?? ''}` };
  switch (item?.kind) {
    case 'integer':
      return (
        <InputNumber
          {...common}
          precision={0}
          value={value as number | null | undefined}
          onChange={(next) => onChange?.(next)}
          addonAfter={scaleHint(t, item)}
          style={{ width: '100%' }}
        />
      );
    case 'obisList':
      return (
        <Select
          {...common}
          mode="tags"
          value={value as string[] | undefined}
          onChange={(next) => onChange?.(next)}
          options={catalogue.displayable}
          placeholder={t('paramTemplate.editor.listHint')}
        />
      );
    default:
      return (
        <Input
          {...common}
          value={value as string | undefined}
          onChange={(event) => onChange?.(event.target.value)}
          placeholder={item?.kind === 'time' ? t('paramTemplate.editor.timeHint') : undefined}
          disabled={!item}
        />
      );
  }
}

/** One item: its OBIS item (the settable ones) and its value, asked as the object takes it. */
function ItemRow({
  listName,
  index,
  catalogue,
  onRemove,
}: {
  listName: (string | number)[];
  index: number;
  catalogue: Catalogue;
  onRemove: () => void;
}) {
  const { t } = useTranslation();
  const form = Form.useFormInstance();
  const obis: unknown = Form.useWatch([...listName, index, 'obis'], form);
  const item = catalogue.settable.find((entry) => entry.obis === obis);
  return (
    <Flex gap="small" align="start" data-testid={`param-item-${index}`}>
      <Form.Item
        name={[index, 'obis']}
        rules={[{ required: true, message: messageText(t, 'mandatory') }]}
        style={{ flex: 3, marginBottom: 8 }}
      >
        <Select
          data-testid={`param-obis-${index}`}
          showSearch={{ optionFilterProp: 'label' }}
          placeholder={t('paramTemplate.editor.chooseItem')}
          options={catalogue.settable.map((entry) => ({
            value: entry.obis,
            label: `${entry.obis} ${entry.description}`,
          }))}
          // Another object takes another kind of value: the one typed for the old does not carry over.
          onChange={() => form.setFieldValue([...listName, index, 'value'], undefined)}
        />
      </Form.Item>
      <Form.Item
        name={[index, 'value']}
        dependencies={[[...listName, index, 'obis']]}
        rules={[
          {
            validator: async (_rule, value: unknown) => {
              if (!item) return;
              const issue = paramValueIssue(item.kind, value ?? undefined);
              if (issue) throw new Error(messageText(t, issue));
            },
          },
        ]}
        style={{ flex: 3, marginBottom: 8 }}
      >
        <ValueInput item={item} catalogue={catalogue} id={`${index}`} />
      </Form.Item>
      <Button
        icon={<DeleteOutlined />}
        aria-label={t('paramTemplate.editor.remove')}
        data-testid={`param-remove-${index}`}
        onClick={onRemove}
      />
    </Flex>
  );
}

/**
 * A parameter template's items: a row per item, its OBIS item picked among those a template may set
 * and its value asked as that object takes it (a whole number with its scale and unit beside it, a
 * time of day, a list of OBIS codes, a text). The list as a whole is checked by the save's schema.
 */
export function ParamItemsInput({ field, name, schema }: RowsInputProps) {
  const { t } = useTranslation();
  const catalogue = useCatalogue();
  const listName = Array.isArray(name) ? name : [name];
  return (
    <Form.Item label={t(field.label)} required extra={field.help ? t(field.help) : undefined}>
      <Form.List
        name={name}
        rules={[
          {
            validator: async (_rule, items: unknown) => {
              const parsed = schema?.safeParse(items ?? []);
              // Members are checked by their own inputs; the list's own rules (none, too many, twice) here.
              const issue = parsed?.success ? undefined : parsed?.error.issues.find((i) => i.path.length === 0);
              if (issue) throw new Error(zodIssueText(t, issue));
            },
          },
        ]}
      >
        {(rows, { add, remove }, { errors }) => (
          <Flex vertical data-testid={`field-${field.key}`}>
            {catalogue.data &&
              rows.map((row) => (
                <ItemRow
                  key={row.key}
                  listName={listName}
                  index={row.name}
                  catalogue={catalogue.data}
                  onRemove={() => remove(row.name)}
                />
              ))}
            <Form.ErrorList errors={errors} />
            {rows.length < MAX_PARAM_TEMPLATE_ITEMS && (
              <Button
                type="dashed"
                icon={<PlusOutlined />}
                data-testid="param-add"
                onClick={() => add({})}
                style={{ alignSelf: 'flex-start' }}
              >
                {t('paramTemplate.editor.add')}
              </Button>
            )}
            {catalogue.error && <Typography.Text type="danger">{messageText(t, 'interfaceError')}</Typography.Text>}
          </Flex>
        )}
      </Form.List>
    </Form.Item>
  );
}
