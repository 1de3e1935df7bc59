import type { Operation } from '@meterdesk/contracts';
import { useMutation } from '@tanstack/react-query';
import { App, Button, Flex, Form, type FormInstance } from 'antd';
import { type ReactNode, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { type FieldDescriptor, normalizeValue, requestShape } from './crud-config';
import { showFieldErrors, showSaveError, zodIssuesToFieldErrors } from './form-errors';
import { FormFields } from './form-fields';

export interface OperationFormProps {
  operation: Operation;
  fields: readonly FieldDescriptor[];
  initialValues?: Record<string, unknown>;
  /** Turns the form's values into the request (e.g. adds the record id, leaves out a blank password). */
  prepare?: (values: Record<string, unknown>) => Record<string, unknown>;
  onSaved?: (data: unknown) => Promise<unknown>;
  /** Without it the fields are read-only and there is no save button. */
  canSave?: boolean;
  submitLabel?: string;
  /** i18n key of the success message. */
  doneMessage?: string;
  submitTestId: string;
  testId?: string;
  /** More controls beside the save button. */
  extra?: ReactNode;
  layout?: 'vertical' | 'horizontal';
  /** The page's own handle on the form, to fill it from elsewhere (a template). */
  form?: FormInstance;
}

/**
 * A form for one operation's request outside the entity screens (settings, notices): the request
 * schema validates each field, the server's issues land on their fields, success says "saved".
 */
export function OperationForm({
  operation,
  fields,
  initialValues,
  prepare = (values) => values,
  onSaved,
  canSave = true,
  submitLabel = 'common.actions.save',
  doneMessage = 'crud.saved',
  submitTestId,
  testId,
  extra,
  layout = 'horizontal',
  form: outerForm,
}: OperationFormProps) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm(outerForm);
  const shape = requestShape(operation);

  // A record saved and loaded again replaces what is shown (e.g. a password field goes back to blank).
  useEffect(() => {
    form.resetFields();
    form.setFieldsValue(initialValues ?? {});
  }, [form, initialValues]);

  const save = useMutation({
    mutationFn: (body: unknown) => callApi(operation, body),
    onSuccess: async (data) => {
      await onSaved?.(data);
      message.success(t(doneMessage));
    },
    onError: (error) => showSaveError(error, form, new Set(fields.map((f) => f.key)), t, message.error),
  });

  const submit = async () => {
    try {
      await form.validateFields();
    } catch {
      return;
    }
    const values = Object.fromEntries(
      Object.entries(form.getFieldsValue() as Record<string, unknown>).map(([key, value]) => [
        key,
        normalizeValue(value),
      ]),
    );
    const parsed = operation.request.safeParse(prepare(values));
    if (!parsed.success) {
      showFieldErrors(form, zodIssuesToFieldErrors(parsed.error.issues, t, requestShape(operation)));
      return;
    }
    save.mutate(parsed.data);
  };

  return (
    <Form
      form={form}
      layout={layout}
      labelWrap
      labelCol={layout === 'horizontal' ? { span: 8 } : undefined}
      wrapperCol={layout === 'horizontal' ? { span: 16 } : undefined}
      initialValues={initialValues}
      disabled={!canSave}
      onFinish={submit}
      data-testid={testId}
    >
      <FormFields fields={fields} shape={shape} form={form} />
      {(canSave || extra) && (
        <Form.Item wrapperCol={layout === 'horizontal' ? { offset: 8, span: 16 } : undefined}>
          <Flex gap="small" wrap>
            {canSave && (
              <Button type="primary" htmlType="submit" loading={save.isPending} data-testid={submitTestId}>
                {t(submitLabel)}
              </Button>
            )}
            {extra}
          </Flex>
        </Form.Item>
      )}
    </Form>
  );
}
