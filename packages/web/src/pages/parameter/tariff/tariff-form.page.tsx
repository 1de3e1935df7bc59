import {
  settingsApi,
  TARIFF_RES,
  type Tariff,
  type TouCalendar,
  type TouRate,
  tariffApi,
  type ValidationIssue,
} from '@meterdesk/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Form, InputNumber, Spin } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError, callApi } from '@/api/api-client';
import { useTabStore } from '@/app/tabs/tabs-context';
import { createDefaults, describeField, requestShape } from '@/crud/crud-config';
import { requestBody } from '@/crud/crud-form-page';
import { apiIssuesToFieldErrors, showFieldErrors, zodIssuesToFieldErrors, zodIssueText } from '@/crud/form-errors';
import { FormFields } from '@/crud/form-fields';
import { useFormGuard } from '@/crud/form-guard';
import { useListLocation } from '@/crud/use-list-location';
import { errorText } from '@/i18n/message-text';
import { tariffCrud } from '@/resources/parameter/tariff.resource';
import { newCalendar } from './calendar-edit';
import { CalendarEditor } from './calendar-editor';
import { CALENDAR_FIELD, issueIndex } from './calendar-issues';

const TEXT_FIELDS = ['tariffName', 'remark'].map((key) => describeField(tariffCrud, key));
const PRICE_KEYS = ['price1', 'price2', 'price3', 'price4'] as const;
const VALUE_KEYS = [...TEXT_FIELDS.map((field) => field.key), ...PRICE_KEYS];
const priceKey = (rate: TouRate) => PRICE_KEYS[rate - 1] ?? 'price1';

type Values = Record<string, unknown> & { calendar?: TouCalendar };

/** A rate's price, beside the rate in the legend, checked as the server checks it. */
function PriceItem({ rate }: { rate: TouRate }) {
  const { t } = useTranslation();
  const key = priceKey(rate);
  const schema = requestShape(tariffCrud.create)[key];
  return (
    <Form.Item
      name={key}
      style={{ marginBottom: 0 }}
      labelCol={{ span: 0 }}
      wrapperCol={{ span: 24 }}
      rules={[
        {
          validator: async (_rule, value: unknown) => {
            const result = schema?.safeParse(value ?? undefined);
            const issue = result && !result.success ? result.error.issues[0] : undefined;
            if (issue) throw new Error(zodIssueText(t, issue, schema));
          },
        },
      ]}
    >
      <InputNumber
        size="small"
        min={0}
        step={0.01}
        style={{ width: 150 }}
        suffix={t('tariffScreen.perKwh')}
        aria-label={t(`tariff.fields.${key}`)}
        data-testid={`field-${key}`}
      />
    </Form.Item>
  );
}

/** The TOU limitation settings, to check counts as the user edits; without them the server still checks. */
function useLimits() {
  const limits = useQuery({
    queryKey: ['settings', 'tariff'],
    queryFn: ({ signal }) => callApi(settingsApi.gettariffconfiglist, {}, { signal }),
    retry: false,
  });
  return limits.data?.[0];
}

function TariffForm({ tariff }: { tariff?: Tariff }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const tabs = useTabStore();
  const listLocation = useListLocation(TARIFF_RES.page);
  const [form] = Form.useForm();
  const guard = useFormGuard<Values>();
  const limits = useLimits();
  const operation = tariff ? tariffCrud.update : tariffCrud.create;
  const shape = requestShape(operation);
  const initialValues = useMemo(
    () => ({
      ...(tariff ? Object.fromEntries(VALUE_KEYS.map((key) => [key, tariff[key as keyof Tariff]])) : {}),
      ...(tariff ? {} : createDefaults(tariffCrud, VALUE_KEYS)),
      ...guard.draft,
    }),
    [tariff, guard.draft],
  );
  const [calendar, setCalendar] = useState<TouCalendar>(
    () => guard.draft?.calendar ?? tariff?.calendar ?? newCalendar(),
  );
  const [serverIssues, setServerIssues] = useState<ValidationIssue[]>([]);
  const prices = Form.useWatch([], form) as Record<string, number | undefined> | undefined;

  const changeCalendar = (next: TouCalendar) => {
    setCalendar(next);
    // What the server said concerned the calendar as it was; the editor's own checks judge this one.
    setServerIssues([]);
    guard.changed({ ...form.getFieldsValue(true), calendar: next });
  };

  const save = useMutation({
    mutationFn: (body: unknown) => {
      if (!operation) throw new ApiError(403, 'forbidden');
      return callApi(operation, body);
    },
    onSuccess: async () => {
      guard.saved();
      message.success(t('crud.saved'));
      tabs.close(guard.tabKey);
      navigate(listLocation);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: [tariffCrud.entity.name] }),
        queryClient.invalidateQueries({ queryKey: ['lookup'] }),
      ]);
    },
    onError: (error) => {
      if (!(error instanceof ApiError) || error.issues.length === 0) {
        message.error(errorText(t, error));
        return;
      }
      const onCalendar = (issue: ValidationIssue) =>
        issue.field === CALENDAR_FIELD || issue.field.startsWith(`${CALENDAR_FIELD}.`);
      setServerIssues(error.issues.filter(onCalendar));
      const { fieldErrors, unplaced } = apiIssuesToFieldErrors(
        error.issues.filter((issue) => !onCalendar(issue)),
        new Set(VALUE_KEYS),
        t,
      );
      showFieldErrors(form, fieldErrors);
      if (unplaced.length) message.error(unplaced.join('; '));
      if (error.issues.some(onCalendar)) message.error(t('tariffScreen.fixCalendar'));
    },
  });

  const submit = async () => {
    try {
      await form.validateFields();
    } catch {
      return;
    }
    if (!operation) return;
    if (issueIndex(calendar, limits).size > 0) {
      message.error(t('tariffScreen.fixCalendar'));
      document.querySelector('[data-testid="calendar-issue-summary"]')?.scrollIntoView({ block: 'center' });
      return;
    }
    const parsed = operation.request.safeParse(
      requestBody(shape, { ...form.getFieldsValue(true), calendar }, tariff?.id),
    );
    if (!parsed.success) {
      showFieldErrors(form, zodIssuesToFieldErrors(parsed.error.issues, t, shape));
      return;
    }
    save.mutate(parsed.data);
  };

  return (
    <>
      <Form
        form={form}
        layout="horizontal"
        labelWrap
        labelCol={{ span: 6 }}
        wrapperCol={{ span: 14 }}
        initialValues={initialValues}
        onValuesChange={(_changed, values: Values) => guard.changed({ ...values, calendar })}
        onFinish={submit}
        data-testid="tariff-form"
      >
        <div style={{ maxWidth: 760 }}>
          <FormFields
            fields={TEXT_FIELDS}
            shape={shape}
            form={form}
            uniqueChecks={tariffCrud.uniqueChecks}
            id={tariff?.id}
          />
        </div>
        <CalendarEditor
          value={calendar}
          onChange={changeCalendar}
          limits={limits}
          serverIssues={serverIssues}
          price={(rate) => <PriceItem rate={rate} />}
          prices={Object.fromEntries(
            PRICE_KEYS.map((key, n) => [n + 1, typeof prices?.[key] === 'number' ? prices[key] : undefined]),
          )}
        />
        <Flex gap="small" style={{ marginTop: 16 }}>
          <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="crud-save">
            {t('common.actions.save')}
          </Button>
          <Button
            data-testid="crud-cancel"
            onClick={() => {
              // Cancel closes this form's tab: with something changed, the guard asks first.
              tabs.close(guard.tabKey);
              navigate(listLocation);
            }}
          >
            {t('common.actions.cancel')}
          </Button>
        </Flex>
      </Form>
      {guard.question}
    </>
  );
}

/** tariffManagement/Add, and /Edit (`?id=`), which loads the tariff first. */
export function TariffFormPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = params.get('id') ?? undefined;
  const detail = useQuery({
    queryKey: [tariffCrud.entity.name, 'detail', id],
    queryFn: ({ signal }) => callApi(tariffApi.detail, { id: id ?? '' }, { signal }) as Promise<Tariff>,
    enabled: id !== undefined,
  });
  return (
    <Card title={t(id === undefined ? 'tariffScreen.addTitle' : 'tariffScreen.editTitle')}>
      {id !== undefined && detail.isLoading && <Spin />}
      {detail.error && <Alert type="error" showIcon title={errorText(t, detail.error)} />}
      {id === undefined && <TariffForm />}
      {detail.data && <TariffForm key={detail.data.id} tariff={detail.data} />}
    </Card>
  );
}
