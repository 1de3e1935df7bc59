import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Form, Spin } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import type { z } from 'zod';
import { ApiError, callApi } from '@/api/api-client';
import { useTabStore } from '@/app/tabs/tabs-context';
import { EditedRecordContext } from '@/fields/field-input';
import { errorText } from '@/i18n/message-text';
import { type CrudConfig, createDefaults, describeField, normalizeValue, type Row, requestShape } from './crud-config';
import { showFieldErrors, showSaveError, zodIssuesToFieldErrors } from './form-errors';
import { FormFields } from './form-fields';
import { useFormGuard } from './form-guard';
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

function CrudForm({
  crud,
  id,
  record,
  prefill,
}: {
  crud: CrudConfig;
  id: string | undefined;
  record: Row | undefined;
  prefill: Record<string, string>;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const tabs = useTabStore();
  const listLocation = useListLocation(crud.entity.pagePath);
  const [form] = Form.useForm();
  const [leaving, setLeaving] = useState(false);
  const guard = useFormGuard<Record<string, unknown>>();
  const { entity } = crud;
  const operation = id === undefined ? crud.create : crud.update;
  const shape = requestShape(operation);
  const keys = useMemo(
    () => [...entity.form, ...(id === undefined ? crud.createFields : []), ...crud.secretFields],
    [crud, entity, id],
  );
  const fields = useMemo(() => keys.map((key) => describeField(crud, key)), [crud, keys]);
  const { draft, tabKey } = guard;
  const initialValues = useMemo(
    () => ({
      ...(record
        ? Object.fromEntries(keys.map((key) => [key, record[key]]))
        : { ...createDefaults(crud, keys), ...prefill }),
      ...draft,
    }),
    [crud, keys, record, prefill, draft],
  );

  const save = useMutation({
    mutationFn: (body: unknown) => {
      if (!operation) throw new ApiError(403, 'forbidden');
      return callApi(operation, body);
    },
    onSuccess: async () => {
      guard.saved();
      message.success(t('crud.saved'));
      // Leave first: a refetch that lands after the user has started filtering the list must not
      // navigate again and wipe what they typed. The router renders the list in a transition, which
      // keeps this form on screen until the list is ready; the form goes at once, so nothing typed
      // meanwhile lands in a field about to vanish (the list's filter has the same name and label).
      setLeaving(true);
      tabs.close(tabKey);
      navigate(listLocation);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: [entity.name] }),
        queryClient.invalidateQueries({ queryKey: ['lookup'] }),
      ]);
    },
    onError: (error) => showSaveError(error, form, new Set(keys), t, message.error),
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
      showFieldErrors(form, zodIssuesToFieldErrors(parsed.error.issues, t, shape));
      return;
    }
    save.mutate(parsed.data);
  };

  if (leaving) return <Spin data-testid="crud-leaving" />;
  return (
    <>
      <Form
        form={form}
        layout="horizontal"
        labelWrap
        labelCol={{ span: 6 }}
        wrapperCol={{ span: 14 }}
        initialValues={initialValues}
        onValuesChange={(_changed, values: Record<string, unknown>) => guard.changed(values)}
        onFinish={submit}
        style={{ maxWidth: 760 }}
        data-testid={`${entity.name}-form`}
      >
        <EditedRecordContext value={id}>
          <FormFields
            fields={fields}
            shape={shape}
            form={form}
            uniqueChecks={crud.uniqueChecks}
            id={id}
            sections={crud.formSections}
          />
        </EditedRecordContext>
        <Form.Item wrapperCol={{ offset: 6, span: 14 }}>
          <Flex gap="small">
            <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="crud-save">
              {t('common.actions.save')}
            </Button>
            <Button
              data-testid="crud-cancel"
              onClick={() => {
                // Cancel closes this form's tab: with something typed, the blocker asks first.
                tabs.close(tabKey);
                navigate(listLocation);
              }}
            >
              {t('common.actions.cancel')}
            </Button>
          </Flex>
        </Form.Item>
      </Form>
      {guard.question}
    </>
  );
}

/**
 * Add (no `id`) and edit (`?id=`) share one page; edit loads the record first. Add takes form values
 * from the query (e.g. `?pid=` for a child organisation).
 */
export function CrudFormPage({ crud }: { crud: CrudConfig }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = params.get('id') ?? undefined;
  const prefill = useMemo(
    () =>
      Object.fromEntries(
        crud.entity.form.flatMap((key) => {
          const value = params.get(key);
          return value === null ? [] : [[key, value]];
        }),
      ),
    [crud, params],
  );
  const detail = useQuery({
    queryKey: [crud.entity.name, 'detail', id],
    queryFn: ({ signal }) => {
      if (!crud.detail) throw new ApiError(404, 'wrongApi');
      return callApi(crud.detail, { id }, { signal }) as Promise<Row>;
    },
    enabled: id !== undefined,
  });

  return (
    <Card title={t(id === undefined ? 'crud.addTitle' : 'crud.editTitle')}>
      {id !== undefined && detail.isLoading && <Spin />}
      {detail.error && <Alert type="error" showIcon title={errorText(t, detail.error)} />}
      {(id === undefined || detail.data) && (
        <CrudForm key={id ?? 'new'} crud={crud} id={id} record={detail.data} prefill={prefill} />
      )}
    </Card>
  );
}
