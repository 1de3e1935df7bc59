import {
  MAX_BATCH_DEVICES,
  TARIFF_PUSH_CMD,
  TARIFF_RES,
  type Tariff,
  type TariffEvent,
  TariffPushCreateSchema,
  tariffApi,
  tariffPushApi,
} from '@meterdesk/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Form, Spin } from 'antd';
import dayjs from 'dayjs';
import { useCallback, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { describeSchemaField } from '@/crud/crud-config';
import { showFieldErrors } from '@/crud/form-errors';
import { FormFields } from '@/crud/form-fields';
import { toIsoMoment } from '@/fields/date-range';
import { formatDateTime } from '@/fields/date-text';
import { errorText, messageText } from '@/i18n/message-text';
import { MeterPicker, type PickedMeter } from '@/pages/operations/meter-picker';
import { failedDevices, type ResultRow, runFinished, usePlanRuns } from '@/pages/operations/plan-runs';
import { RefusalAlert, ResultsPanel, useConfirm } from '@/pages/operations/results-panel';
import { pricesOf } from '@/resources/parameter/tariff.resource';
import { CalendarEditor } from './calendar-editor';

const SHAPE = TariffPushCreateSchema.shape as unknown as Record<string, z.ZodType>;
const FIELDS = (['tariffId', 'activationTime'] as const).map((key) =>
  describeSchemaField(key, SHAPE[key], 'tariffPush.fields'),
);

/** A meter's event of a push, as a result row: waiting until it answers, then its code. */
const eventRow = (event: TariffEvent): ResultRow => ({
  deviceKey: event.devAddr,
  state: event.state === 'done' ? 'done' : 'sent',
  resultCode: event.resultCode,
  answerTime: event.answerTime,
});

/** The chosen tariff's calendar, read-only (tariff detail is open to this page). */
function TariffPreview({ tariffId }: { tariffId: string }) {
  const { t } = useTranslation();
  const tariff = useQuery({
    queryKey: ['tariff', 'detail', tariffId],
    queryFn: ({ signal }) => callApi(tariffApi.detail, { id: tariffId }, { signal }) as Promise<Tariff>,
  });
  if (tariff.isLoading) return <Spin />;
  if (tariff.error) return <Alert type="error" showIcon title={errorText(t, tariff.error)} />;
  if (!tariff.data) return null;
  const prices = pricesOf(tariff.data);
  return <CalendarEditor value={tariff.data.calendar} prices={prices} price={(rate) => prices[rate]} />;
}

/**
 * Tariff configuration (spec §2, §7 `/tariffitem/createtariffplan`): a tariff, up to 30 meters (the
 * batch operation's picker) and an activation time later than now; the push is followed live meter by
 * meter, and the meters that failed are listed and re-sent after a confirmation
 * (`/tariffevent/restarttariffeventlog`).
 */
export function TariffConfigurationPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const permissions = usePermissions();
  const confirm = useConfirm();
  const [form] = Form.useForm();
  const [picked, setPicked] = useState<PickedMeter[]>([]);
  const [refusal, setRefusal] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const tariffId = Form.useWatch('tariffId', form) as string | undefined;
  // Which push each plan sends: a push's results are read by push, its re-sends are plans of their own.
  const pushOf = useRef(new Map<string, string>());
  const results = useCallback(async (planid: string) => {
    const pushId = pushOf.current.get(planid);
    if (!pushId) return [];
    const page = await callApi(tariffPushApi.listtariffeventlog, { pushId, pageSize: MAX_BATCH_DEVICES });
    return page.list.filter((event) => event.planid === planid).map(eventRow);
  }, []);
  const { runs, adopt } = usePlanRuns(results);
  const [latest] = runs;
  const failed = latest && runFinished(latest) ? failedDevices(latest) : [];
  const initialValues = useMemo(() => ({ activationTime: toIsoMoment(dayjs().add(1, 'day').startOf('day')) }), []);

  const issue = async () => {
    let values: { tariffId: string; activationTime: string };
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    if (picked.length === 0) return void message.warning(t('operations.screen.chooseMeters'));
    if (!dayjs(values.activationTime).isAfter(dayjs())) {
      showFieldErrors(form, [{ name: ['activationTime'], errors: [messageText(t, 'activationTimeNotFuture')] }]);
      return;
    }
    const devices = picked.map((meter) => meter.devAddr);
    confirm(
      t('tariffScreen.config.confirmIssue', {
        count: devices.length,
        time: formatDateTime(values.activationTime),
      }),
      async () => {
        setRefusal(null);
        setSending(true);
        try {
          const created = await callApi(tariffPushApi.createtariffplan, {
            ...values,
            devList: devices,
            // The same click sent twice (a network retry) answers the push it already made.
            reqId: crypto.randomUUID(),
          });
          pushOf.current.set(created.planid, created.pushId);
          adopt(created, TARIFF_PUSH_CMD, devices);
        } catch (error) {
          setRefusal(error);
        } finally {
          setSending(false);
        }
      },
    );
  };

  const resend = () => {
    if (!latest) return;
    const pushId = pushOf.current.get(latest.planid);
    if (!pushId) return;
    const devices = failed;
    confirm(t('tariffScreen.config.confirmResend', { count: devices.length }), async () => {
      setRefusal(null);
      try {
        const created = await callApi(tariffPushApi.restarttariffeventlog, { pushId });
        pushOf.current.set(created.planid, created.pushId);
        adopt(created, TARIFF_PUSH_CMD, devices);
      } catch (error) {
        setRefusal(error);
      }
    });
  };

  return (
    <Flex vertical gap="middle" data-testid="tariff-configuration">
      <Card size="small" title={t('tariffScreen.config.tariffAndTime')}>
        <Form
          form={form}
          layout="horizontal"
          labelCol={{ span: 6 }}
          wrapperCol={{ span: 14 }}
          initialValues={initialValues}
          style={{ maxWidth: 760 }}
        >
          <FormFields fields={FIELDS} shape={SHAPE} form={form} />
        </Form>
        {tariffId && <TariffPreview key={tariffId} tariffId={tariffId} />}
      </Card>
      <Card size="small" title={t('tariffPush.fields.devList')}>
        <Flex vertical gap="middle">
          <MeterPicker picked={picked} onChange={setPicked} />
          {permissions.buttons.has(TARIFF_RES.issue) && (
            <Button
              type="primary"
              loading={sending}
              data-testid="tariff-issue"
              style={{ alignSelf: 'start' }}
              onClick={() => void issue()}
            >
              {t('tariffScreen.config.issue')}
            </Button>
          )}
        </Flex>
      </Card>
      {refusal !== null && <RefusalAlert error={refusal} onClose={() => setRefusal(null)} />}
      {failed.length > 0 && (
        <Alert
          type="warning"
          showIcon
          data-testid="tariff-failed"
          title={t('tariffScreen.config.failed', { count: failed.length })}
          description={<span data-testid="tariff-failed-meters">{failed.join(', ')}</span>}
          action={
            permissions.buttons.has(TARIFF_RES.issue) && (
              <Button danger data-testid="tariff-resend" onClick={resend}>
                {t('tariffScreen.config.resend')}
              </Button>
            )
          }
        />
      )}
      {latest && <ResultsPanel key={latest.planid} run={latest} exportable={false} />}
    </Flex>
  );
}
