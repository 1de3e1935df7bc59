import { authApi } from '@meterdesk/contracts';
import { useMutation } from '@tanstack/react-query';
import { Alert, App, type ButtonProps, Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError, callApi } from '@/api/api-client';
import { apiIssuesToFieldErrors } from '@/crud/form-errors';
import { errorText } from '@/i18n/message-text';
import { PASSWORD_FIELDS, type PasswordChangeValues, validatePasswordChange } from './password-change';

export function ChangePasswordModal({
  open,
  prompted,
  onClose,
  onChanged,
}: {
  open: boolean;
  /** The server asks this user to change an administrator-set password; until then it cannot be dismissed. */
  prompted: boolean;
  onClose: () => void;
  /** The server has ended every session of the user; only the way to /login is left. */
  onChanged: () => void;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm();

  const change = useMutation({
    mutationFn: (body: { rawPassword: string; newPassword: string }) => callApi(authApi.updatepassword, body),
    onSuccess: () => onChanged(),
    onError: (error) => {
      const { fieldErrors } =
        error instanceof ApiError
          ? apiIssuesToFieldErrors(error.issues, new Set(PASSWORD_FIELDS), t)
          : { fieldErrors: [] };
      if (fieldErrors.length) form.setFields(fieldErrors);
      else message.warning(errorText(t, error));
    },
  });

  const submit = () => {
    const values: PasswordChangeValues = form.getFieldsValue();
    const errors = validatePasswordChange(values, t);
    form.setFields(
      PASSWORD_FIELDS.map((name) => ({ name, errors: errors.find((error) => error.name[0] === name)?.errors ?? [] })),
    );
    if (errors.length === 0) {
      change.mutate({ rawPassword: values.rawPassword ?? '', newPassword: values.newPassword ?? '' });
    }
  };

  return (
    <Modal
      open={open}
      title={t('password.title')}
      onOk={submit}
      onCancel={onClose}
      okText={t('common.actions.save')}
      cancelText={t('common.actions.cancel')}
      okButtonProps={{ loading: change.isPending, 'data-testid': 'password-submit' } as ButtonProps}
      cancelButtonProps={{ 'data-testid': 'password-cancel' } as ButtonProps}
      footer={(_, { OkBtn, CancelBtn }) => (
        <>
          {!prompted && <CancelBtn />}
          <OkBtn />
        </>
      )}
      closable={!prompted}
      keyboard={!prompted}
      mask={{ closable: !prompted }}
      destroyOnHidden
    >
      {prompted && <Alert type="info" showIcon title={t('password.mustChange')} style={{ marginBottom: 16 }} />}
      <Form form={form} layout="vertical" preserve={false} onFinish={submit} data-testid="password-form">
        <Form.Item name="rawPassword" label={t('password.rawPassword')} required>
          <Input.Password autoComplete="current-password" data-testid="password-raw" />
        </Form.Item>
        <Form.Item name="newPassword" label={t('password.newPassword')} required>
          <Input.Password autoComplete="new-password" data-testid="password-new" />
        </Form.Item>
        <Form.Item name="confirmPassword" label={t('password.confirmPassword')} required>
          <Input.Password autoComplete="new-password" data-testid="password-confirm" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
