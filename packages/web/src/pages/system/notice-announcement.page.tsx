import { MAX_PAGE_SIZE, noticeApi, RES } from '@meterdesk/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Select } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { callApi } from '@/api/api-client';
import { describeRequest, requestDefaults } from '@/crud/crud-config';
import { OperationForm } from '@/crud/operation-form';

const SEND = noticeApi.sendnoticebath;
export const SEND_FIELDS = describeRequest(SEND, 'notice.fields');
const DEFAULTS = requestDefaults(SEND);
const SENT_LIST = `${RES.notifyMGT}?tab=sent`;

/** Sends a notice to chosen users, optionally by e-mail too; a template fills type, title and content. */
export function NoticeAnnouncementPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const [emailFailures, setEmailFailures] = useState<string[]>([]);
  const templates = useQuery({
    queryKey: ['notice', 'templates'],
    queryFn: ({ signal }) =>
      callApi(noticeApi.getnoticetemplatepage, { curPage: 1, pageSize: MAX_PAGE_SIZE }, { signal }),
  });

  const applyTemplate = (id: string) => {
    const template = templates.data?.list.find((candidate) => candidate.id === id);
    if (template) {
      const { noticeType, noticeTitle, noticeContent } = template;
      form.setFieldsValue({ noticeType, noticeTitle, noticeContent });
    }
  };

  const sent = async (data: unknown) => {
    await queryClient.invalidateQueries({ queryKey: ['notice'] });
    const failures = (data as { emailFailures: string[] }).emailFailures;
    setEmailFailures(failures);
    if (failures.length === 0) navigate(SENT_LIST);
  };

  return (
    <Card title={t('notice.send.title')} style={{ maxWidth: 860 }}>
      {emailFailures.length > 0 && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          title={t('notice.send.emailFailures')}
          description={<span data-testid="notice-email-failures">{emailFailures.join(', ')}</span>}
          action={<Button onClick={() => navigate(SENT_LIST)}>{t('notice.send.toSent')}</Button>}
        />
      )}
      <Form.Item label={t('notice.send.template')} labelCol={{ span: 8 }} wrapperCol={{ span: 16 }}>
        <Select
          data-testid="notice-template"
          allowClear
          loading={templates.isLoading}
          placeholder={t('crud.select')}
          onChange={(id: string | undefined) => id && applyTemplate(id)}
          options={templates.data?.list.map((template) => ({ value: template.id, label: template.templateName }))}
        />
      </Form.Item>
      <OperationForm
        form={form}
        operation={SEND}
        fields={SEND_FIELDS}
        initialValues={DEFAULTS}
        onSaved={sent}
        submitLabel="notice.send.submit"
        doneMessage="notice.send.sent"
        submitTestId="notice-send-submit"
        testId="notice-send-form"
        extra={
          <Button data-testid="notice-send-cancel" onClick={() => navigate(RES.notifyMGT)}>
            {t('common.actions.cancel')}
          </Button>
        }
      />
    </Card>
  );
}
