import { METER_STATUS_TRANSITIONS, type Meter, type MeterStatus, meterApi, meterEntity } from '@meterdesk/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Descriptions, Flex, Form, Spin } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError, callApi } from '@/api/api-client';
import { describeRequest, requestShape } from '@/crud/crud-config';
import { showSaveError } from '@/crud/form-errors';
import { FormFields } from '@/crud/form-fields';
import { useListLocation } from '@/crud/use-list-location';
import { errorText } from '@/i18n/message-text';
import { MeterHistory } from './meter-history';

export const MAINTAIN_FIELDS = describeRequest(meterApi.maintain, 'meter.fields', ['toStatus', 'reason']);
const SHAPE = requestShape(meterApi.maintain);

/** What a refusal says of the statuses, when it is one (`data.from`/`data.to`). */
function refusedTransition(error: unknown): { from: number; to: number } | null {
  if (!(error instanceof ApiError) || error.msg !== 'statusTransitionRefused') return null;
  const { from, to } = (error.data ?? {}) as { from?: unknown; to?: unknown };
  return typeof from === 'number' && typeof to === 'number' ? { from, to } : null;
}

function MaintainForm({ meter }: { meter: Meter }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const allowed: readonly MeterStatus[] = METER_STATUS_TRANSITIONS[meter.status];
  // Only the statuses the meter may go to next are offered.
  const fields = useMemo(
    () =>
      MAINTAIN_FIELDS.map((field) =>
        field.key === 'toStatus'
          ? { ...field, options: field.options?.filter((option) => allowed.includes(option.value as MeterStatus)) }
          : field,
      ),
    [allowed],
  );

  const maintain = useMutation({
    mutationFn: (values: { toStatus: MeterStatus; reason: string }) =>
      callApi(meterApi.maintain, { id: meter.id, ...values }),
    onSuccess: async () => {
      message.success(t('meter.maintain.done'));
      form.resetFields();
      await queryClient.invalidateQueries({ queryKey: [meterEntity.name] });
    },
    onError: async (error) => {
      const refused = refusedTransition(error);
      if (!refused) {
        showSaveError(error, form, new Set(['toStatus', 'reason']), t, message.error);
        return;
      }
      // Someone else moved the meter meanwhile: say where it stands now and show it.
      const status = (value: number) => t(`meter.statuses.${value}`);
      form.setFields([
        {
          name: 'toStatus',
          errors: [t('meter.maintain.transitionRefused', { from: status(refused.from), to: status(refused.to) })],
        },
      ]);
      await queryClient.invalidateQueries({ queryKey: [meterEntity.name] });
    },
  });

  if (allowed.length === 0) return <Alert type="info" showIcon title={t('meter.maintain.final')} />;
  return (
    <Form
      form={form}
      layout="horizontal"
      labelCol={{ span: 6 }}
      wrapperCol={{ span: 14 }}
      style={{ maxWidth: 760 }}
      onFinish={(values: { toStatus: MeterStatus; reason: string }) => maintain.mutate(values)}
      data-testid="meter-maintain-form"
    >
      <FormFields fields={fields} shape={SHAPE} form={form} />
      <Form.Item wrapperCol={{ offset: 6, span: 14 }}>
        <Button type="primary" htmlType="submit" loading={maintain.isPending} data-testid="meter-maintain-submit">
          {t('meter.maintain.submit')}
        </Button>
      </Form.Item>
    </Form>
  );
}

/** `/archiveSetting/meter/maintain?id=`: the meter, the statuses it may go to next, and its history. */
export function MeterMaintainPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const listLocation = useListLocation(meterEntity.pagePath);
  const meter = useQuery({
    queryKey: [meterEntity.name, 'detail', id],
    queryFn: ({ signal }) => callApi(meterApi.detail, { id }, { signal }) as Promise<Meter>,
    enabled: id !== '',
  });
  const data = meter.data;

  return (
    <Flex vertical gap="middle">
      <Card
        title={data ? t('meter.maintain.title', { devAddr: data.devAddr }) : t('meter.actions.maintain')}
        extra={
          <Button data-testid="crud-back" onClick={() => navigate(listLocation)}>
            {t('common.actions.back')}
          </Button>
        }
      >
        {meter.isLoading && <Spin />}
        {meter.error && <Alert type="error" showIcon title={errorText(t, meter.error)} />}
        {data && (
          <Flex vertical gap="large">
            <Descriptions
              bordered
              size="small"
              column={2}
              data-testid="meter-maintain-summary"
              items={[
                { key: 'devAddr', label: t('meter.fields.devAddr'), children: data.devAddr },
                {
                  key: 'status',
                  label: t('meter.maintain.currentStatus'),
                  children: <span data-testid="meter-status">{t(`meter.statuses.${data.status}`)}</span>,
                },
                { key: 'gridName', label: t('meter.fields.gridName'), children: data.gridName },
                { key: 'meterTypeName', label: t('meter.fields.meterTypeName'), children: data.meterTypeName },
                { key: 'pocNo', label: t('meter.fields.pocNo'), children: data.pocNo },
                { key: 'consumerName', label: t('meter.fields.consumerName'), children: data.consumerName },
              ]}
            />
            <MaintainForm meter={data} />
          </Flex>
        )}
      </Card>
      {/* After the meter: one the user may not see says so once, above. */}
      {data && <MeterHistory id={data.id} />}
    </Flex>
  );
}
