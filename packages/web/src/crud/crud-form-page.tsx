import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Form, Modal, type FormRule as Rule, Spin } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlocker, useLocation, useNavigate, useSearchParams } from 'react-router';
import type { z } from 'zod';
import { ApiError, callApi } from '@/api/api-client';
import { normalizePath } from '@/app/routing/route-table';
import { useTabStore } from '@/app/tabs/tabs-context';
import { FieldInput } from '@/fields/field-input';
import { errorText, messageText } from '@/i18n/message-text';
import {
  type CrudConfig,
  createDefaults,
  describeField,
  isRequired,
  normalizeValue,
  requestShape,
  type UniqueCheck,
} from './crud-config';
import type { Row } from './crud-detail';
import { apiIssuesToFieldErrors, zodIssuesToFieldErrors } from './form-errors';
import { useListLocation } from './use-list-location';

/** Only the members the operation declares, so a strict request schema never meets a stray field. */
export function requestBody(
  shape: Record<string, z.ZodType>,
  values: Record<string, unknown>,
  id: string | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const value = key === 'id' ? id : normalizeValue(values[key]);
    if (value !== undefined) body[key] = value;
  }
  return body;
}

function zodRule(schema: z.ZodType, t: ReturnType<typeof useTranslation>['t']): Rule {
  return {
    validator: async (_rule, value: unknown) => {
      const result = schema.safeParse(normalizeValue(value));
      if (!result.success) throw new Error(messageText(t, result.error.issues[0]?.message ?? 'invalidValue'));
    },
  };
}

/** Asks the server while the user types; a failed check stays silent because saving checks again. */
function uniqueRule(
  check: UniqueCheck,
  schema: z.ZodType | undefined,
  getValues: () => Record<string, unknown>,
  id: string | undefined,
  t: ReturnType<typeof useTranslation>['t'],
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
      if (existed) throw new Error(messageText(t, 'existed'));
    },
  };
}

function CrudForm({ crud, id, record }: { crud: CrudConfig; id: string | undefined; record: Row | undefined }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const tabs = useTabStore();
  const listLocation = useListLocation(crud.entity.pagePath);
  const [form] = Form.useForm();
  const [dirty, setDirty] = useState(false);
  const saved = useRef(false);
  const { entity } = crud;
  const operation = id === undefined ? crud.create : crud.update;
  const shape = requestShape(operation);
  const fields = useMemo(() => entity.form.map((key) => describeField(crud, key)), [crud, entity]);
  const initialValues = useMemo(
    () =>
      record ? Object.fromEntries(entity.form.map((key) => [key, record[key]])) : createDefaults(crud, entity.form),
    [crud, entity, record],
  );

  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty && !saved.current && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const save = useMutation({
    mutationFn: (body: unknown) => {
      if (!operation) throw new ApiError(403, 'forbidden');
      return callApi(operation, body);
    },
    onSuccess: async () => {
      saved.current = true;
      message.success(t('crud.saved'));
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: [entity.name] }),
        queryClient.invalidateQueries({ queryKey: ['lookup'] }),
      ]);
      tabs.close(normalizePath(location.pathname));
      navigate(listLocation);
    },
    onError: (error) => {
      if (!(error instanceof ApiError) || error.issues.length === 0) {
        message.error(errorText(t, error));
        return;
      }
      const { fieldErrors, unplaced } = apiIssuesToFieldErrors(error.issues, new Set(entity.form), t);
      form.setFields(fieldErrors);
      if (unplaced.length) message.error(unplaced.join('; '));
    },
  });

  const submit = async () => {
    try {
      await form.validateFields();
    } catch {
      return;
    }
    if (!operation) return;
    const parsed = operation.request.safeParse(requestBody(shape, form.getFieldsValue(), id));
    if (!parsed.success) {
      form.setFields(zodIssuesToFieldErrors(parsed.error.issues, t));
      return;
    }
    save.mutate(parsed.data);
  };

  return (
    <>
      <Form
        form={form}
        layout="horizontal"
        labelCol={{ span: 6 }}
        wrapperCol={{ span: 14 }}
        initialValues={initialValues}
        onValuesChange={() => setDirty(true)}
        onFinish={submit}
        style={{ maxWidth: 760 }}
        data-testid={`${entity.name}-form`}
      >
        {fields.map((field) => {
          const schema = shape[field.key];
          const check = crud.uniqueChecks[field.key];
          const rules: Rule[] = [];
          if (schema) rules.push(zodRule(schema, t));
          if (check) rules.push(uniqueRule(check, schema, () => form.getFieldsValue(), id, t));
          return (
            <Form.Item
              key={field.key}
              name={field.key}
              label={t(field.label)}
              required={isRequired(schema)}
              rules={rules}
              extra={field.help ? t(field.help) : undefined}
              dependencies={check ? [...check.dependsOn] : undefined}
              validateDebounce={check ? 300 : undefined}
            >
              <FieldInput field={field} />
            </Form.Item>
          );
        })}
        <Form.Item wrapperCol={{ offset: 6, span: 14 }}>
          <Flex gap="small">
            <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="crud-save">
              {t('common.actions.save')}
            </Button>
            <Button data-testid="crud-cancel" onClick={() => navigate(listLocation)}>
              {t('common.actions.cancel')}
            </Button>
          </Flex>
        </Form.Item>
      </Form>
      <Modal
        open={blocker.state === 'blocked'}
        title={t('crud.unsavedTitle')}
        okText={t('crud.leave')}
        cancelText={t('crud.stay')}
        onOk={() => blocker.proceed?.()}
        onCancel={() => blocker.reset?.()}
      >
        {t('crud.unsavedContent')}
      </Modal>
    </>
  );
}

/** Add (no `id`) and edit (`?id=`) share one page; edit loads the record first. */
export function CrudFormPage({ crud }: { crud: CrudConfig }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = params.get('id') ?? undefined;
  const detail = useQuery({
    queryKey: [crud.entity.name, 'detail', id],
    queryFn: ({ signal }) => callApi(crud.detail, { id }, { signal }) as Promise<Row>,
    enabled: id !== undefined,
  });

  return (
    <Card title={t(id === undefined ? 'crud.addTitle' : 'crud.editTitle')}>
      {id !== undefined && detail.isLoading && <Spin />}
      {detail.error && <Alert type="error" showIcon title={errorText(t, detail.error)} />}
      {(id === undefined || detail.data) && <CrudForm key={id ?? 'new'} crud={crud} id={id} record={detail.data} />}
    </Card>
  );
}
