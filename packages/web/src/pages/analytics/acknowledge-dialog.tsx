import {
  type AcknowledgeRequest,
  type AcknowledgeResult,
  EVENT_NAME_LABELS,
  type EventKey,
  meterEventsApi,
  type StormGroup,
} from '@meterdesk/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Form, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { describeRequest, requestShape } from '@/crud/crud-config';
import { FormFields } from '@/crud/form-fields';
import { formatDateTime } from '@/fields/date-text';
import { valueLabel } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';

/** What an acknowledgement is of: a storm as its group shows it (on the grid node the page shows), or events picked one by one. */
export type AckTarget = { storm: StormGroup; gridId?: string | undefined } | { events: readonly EventKey[] };

/** The remark, as the acknowledge call declares it (required, at most ACK_REMARK_MAX characters). */
const REMARK_FIELDS = describeRequest(meterEventsApi.acknowledge, 'meterEvents.ack', ['remark']);

/**
 * The acknowledge call's request for a target: a storm by its DCU and code between the moments of its
 * first and last events (those the user saw), narrowed to the grid node the page shows.
 */
export function ackRequest(target: AckTarget, remark: string): AcknowledgeRequest {
  if ('events' in target)
    return { remark, events: target.events.map(({ meterId, time, code }) => ({ meterId, time, code })) };
  const { storm, gridId } = target;
  return {
    remark,
    storm: {
      dcuId: storm.dcuId,
      code: storm.code,
      from: storm.firstTime,
      to: storm.lastTime,
      ...(gridId ? { gridId } : {}),
    },
  };
}

/** Queries an acknowledgement changes: the events page's (its rows, summary and storms) and every meter timeline's. */
export const ACKNOWLEDGED_QUERIES = [['meterEvents'], ['meterEventsDetail']] as const;

/**
 * Asks for the remark and acknowledges the target; the answer says how many events it acknowledged,
 * and how many someone had acknowledged before (their first acknowledgement stays).
 */
export function AcknowledgeDialog({ target, onClose }: { target: AckTarget; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const acknowledge = useMutation({
    mutationFn: (remark: string) =>
      callApi(meterEventsApi.acknowledge, ackRequest(target, remark)) as Promise<AcknowledgeResult>,
    onSuccess: async (result) => {
      message.success(
        result.already
          ? t('meterEvents.ack.doneAlready', { count: result.acknowledged, already: result.already })
          : t('meterEvents.ack.done', { count: result.acknowledged }),
      );
      onClose();
      await Promise.all(ACKNOWLEDGED_QUERIES.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    },
    onError: (error) => message.error(errorText(t, error)),
  });
  const submit = async () => {
    try {
      const { remark } = (await form.validateFields()) as { remark: string };
      acknowledge.mutate(remark);
    } catch {
      // The remark shows what is wrong.
    }
  };
  const text =
    'events' in target
      ? t('meterEvents.ack.selectedText', { count: target.events.length })
      : t('meterEvents.ack.stormText', {
          count: target.storm.unacknowledged,
          name: valueLabel(t, EVENT_NAME_LABELS, target.storm.name) || String(target.storm.code),
          dcu: target.storm.dcuNo,
          from: formatDateTime(target.storm.firstTime),
          to: formatDateTime(target.storm.lastTime),
        });

  return (
    <Modal
      open
      title={t('events' in target ? 'meterEvents.ack.selectedTitle' : 'meterEvents.ack.stormTitle')}
      onOk={submit}
      onCancel={onClose}
      okText={t('meterEvents.ack.confirm')}
      cancelText={t('common.actions.cancel')}
      okButtonProps={{ loading: acknowledge.isPending, 'data-testid': 'ack-confirm' }}
      cancelButtonProps={{ 'data-testid': 'ack-cancel' }}
      destroyOnHidden
    >
      <div data-testid="ack-dialog">
        <Typography.Paragraph data-testid="ack-text">{text}</Typography.Paragraph>
        <Form form={form} layout="vertical" onFinish={submit}>
          <FormFields fields={REMARK_FIELDS} shape={requestShape(meterEventsApi.acknowledge)} form={form} />
        </Form>
      </div>
    </Modal>
  );
}
