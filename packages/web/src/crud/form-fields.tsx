import { Alert, Divider, Form, type FormInstance, type FormRule as Rule } from 'antd';
import type { TFunction } from 'i18next';
import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { callApi } from '@/api/api-client';
import { FieldInput } from '@/fields/field-input';
import { messageText } from '@/i18n/message-text';
import { type FieldDescriptor, isRequired, normalizeValue, objectShape, type UniqueCheck } from './crud-config';
import { zodIssueText } from './form-errors';

/** Empty as a picker or input leaves it: nothing chosen, nothing typed. */
const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

function zodRule(schema: z.ZodType, t: TFunction): Rule {
  return {
    validator: async (_rule, value: unknown) => {
      const result = schema.safeParse(normalizeValue(value));
      if (result.success) return;
      const issue = result.error.issues[0];
      // A required select or tree left empty fails a bare type check: that is 'mandatory' to the user.
      if (!issue || (isEmpty(value) && isRequired(schema))) throw new Error(messageText(t, 'mandatory'));
      throw new Error(zodIssueText(t, issue, schema));
    },
  };
}

/** Asks the server while the user types; a failed check stays silent because saving checks again. */
function uniqueRule(
  check: UniqueCheck,
  schema: z.ZodType | undefined,
  getValues: () => Record<string, unknown>,
  id: string | undefined,
  t: TFunction,
  existedKey: string,
): Rule {
  return {
    validator: async (_rule, value: unknown) => {
      if (typeof value !== 'string' || (schema && !schema.safeParse(value).success)) return;
      const request = check.request(value.trim(), getValues(), id);
      if (!request) return;
      let existed = false;
      try {
        ({ existed } = (await callApi(check.operation, request)) as { existed: boolean });
      } catch {
        return;
      }
      if (existed) throw new Error(messageText(t, existedKey));
    },
  };
}

export interface FormFieldsProps {
  fields: readonly FieldDescriptor[];
  /** The request schema's members: they validate each input as the server will. */
  shape: Record<string, z.ZodType>;
  form: FormInstance;
  uniqueChecks?: Readonly<Record<string, UniqueCheck>>;
  /** The record being edited, which a uniqueness check lets keep its own name. */
  id?: string;
  /** Where the field sits in the form's values; members of a group sit below the group's name. */
  parent?: string;
  /** Fields that open a titled section: field → i18n key of the title. */
  sections?: Readonly<Record<string, string>>;
}

function SectionTitle({ title, testId }: { title: string; testId: string }) {
  const { t } = useTranslation();
  return (
    <Divider titlePlacement="start" plain data-testid={testId}>
      {t(title)}
    </Divider>
  );
}

/** The field's empty-value warning, shown while it is empty (see FieldMeta.emptyWarning). */
function EmptyWarning({ form, name, text }: { form: FormInstance; name: string | string[]; text: string }) {
  const { t } = useTranslation();
  const value: unknown = Form.useWatch(name, form);
  const empty = isEmpty(value) || (Array.isArray(value) && value.length === 0);
  return empty ? <Alert type="warning" showIcon title={t(text)} data-testid={`empty-warning-${name}`} /> : null;
}

/** One form item per field with the request schema's rules; a group is a titled section of its members. */
export function FormFields({ fields, shape, form, uniqueChecks = {}, id, parent, sections = {} }: FormFieldsProps) {
  const { t } = useTranslation();
  return fields.map((field) => {
    const schema = shape[field.key];
    if (field.widget === 'group') {
      return (
        <Fragment key={field.key}>
          <SectionTitle title={field.label} testId={`group-${field.key}`} />
          <FormFields fields={field.fields ?? []} shape={objectShape(schema) ?? {}} form={form} parent={field.key} />
        </Fragment>
      );
    }
    if (field.widget === 'rows') {
      const { RowsInput } = field;
      return RowsInput ? (
        <RowsInput key={field.key} field={field} name={parent ? [parent, field.key] : field.key} schema={schema} />
      ) : null;
    }
    const section = sections[field.key];
    const check = uniqueChecks[field.key];
    const rules: Rule[] = [];
    if (schema) rules.push(zodRule(schema, t));
    if (check) rules.push(uniqueRule(check, schema, () => form.getFieldsValue(), id, t, field.existed ?? 'existed'));
    const name = parent ? [parent, field.key] : field.key;
    const help = field.help ? t(field.help) : undefined;
    const item = (
      <Form.Item
        key={field.key}
        name={name}
        label={t(field.label)}
        // A switch always holds a value; an asterisk there would only puzzle.
        required={isRequired(schema) && field.widget !== 'switch'}
        rules={rules}
        extra={
          field.emptyWarning ? (
            <>
              {help}
              <EmptyWarning form={form} name={name} text={field.emptyWarning} />
            </>
          ) : (
            help
          )
        }
        dependencies={check ? [...check.dependsOn] : undefined}
        validateDebounce={check ? 300 : undefined}
      >
        <FieldInput field={field} />
      </Form.Item>
    );
    return section ? (
      <Fragment key={field.key}>
        <SectionTitle title={section} testId={`section-${field.key}`} />
        {item}
      </Fragment>
    ) : (
      item
    );
  });
}
