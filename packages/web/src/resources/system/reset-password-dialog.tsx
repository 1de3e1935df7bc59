import { userApi } from '@meterdesk/contracts';
import { useMutation } from '@tanstack/react-query';
import { App, Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import type { Row } from '@/crud/crud-config';
import { describeRequest, requestShape } from '@/crud/crud-config';
import { FormFields } from '@/crud/form-fields';
import { errorText, messageText } from '@/i18n/message-text';

export const RESET_PASSWORD_FIELDS = describeRequest(userApi.resetsysuserpassword, 'user.fields', ['newPassword']);

/** An administrator sets a new password; the user must change it at the next login. */
export function ResetPasswordDialog({ row, onClose }: { row: Row; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const reset = useMutation({
    mutationFn: (newPassword: string) => callApi(userApi.resetsysuserpassword, { id: String(row.id), newPassword }),
    onSuccess: () => {
      message.success(t('user.passwordReset', { username: row.username }));
      onClose();
    },
    onError: (error) => message.error(errorText(t, error)),
  });

  const submit = async () => {
    try {
      const values = (await form.validateFields()) as { newPassword: string };
      reset.mutate(values.newPassword);
    } catch {
      // The fields show what is wrong.
    }
  };

  return (
    <Modal
      open
      title={t('user.resetPasswordTitle', { username: row.username })}
      onOk={submit}
      onCancel={onClose}
      okText={t('common.actions.save')}
      cancelText={t('common.actions.cancel')}
      okButtonProps={{ loading: reset.isPending, 'data-testid': 'reset-password-submit' }}
      cancelButtonProps={{ 'data-testid': 'reset-password-cancel' }}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onFinish={submit} data-testid="reset-password-form">
        <FormFields fields={RESET_PASSWORD_FIELDS} shape={requestShape(userApi.resetsysuserpassword)} form={form} />
        <Form.Item
          name="confirmPassword"
          label={t('password.confirmPassword')}
          dependencies={['newPassword']}
          required
          rules={[
            {
              validator: async (_rule, value: unknown) => {
                if (!value) throw new Error(messageText(t, 'mandatory'));
                if (value !== form.getFieldValue('newPassword')) {
                  throw new Error(messageText(t, 'passwordInconsistent'));
                }
              },
            },
          ]}
        >
          <Input.Password autoComplete="new-password" data-testid="field-confirmPassword" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
