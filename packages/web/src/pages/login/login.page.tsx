import { LockOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { authApi } from '@meterdesk/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Flex, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Location, Navigate, useLocation, useNavigate } from 'react-router';
import type { z } from 'zod';
import { ApiError, callApi } from '@/api/api-client';
import { LanguageSwitch } from '@/app/language-switch';
import { signIn, useSession } from '@/app/session/session-store';
import { zodIssuesToFieldErrors } from '@/crud/form-errors';
import { applyLanguage } from '@/i18n/i18n';
import { errorText, messageText } from '@/i18n/message-text';

type LoginRequest = z.input<typeof authApi.LoginRequestSchema>;
type LoginValues = Omit<LoginRequest, 'code'>;

/** The page the user was sent away from, so login returns there. */
function returnPath(location: Location): string {
  const from = (location.state as { from?: Location } | null)?.from;
  return from && from.pathname !== '/login' ? `${from.pathname}${from.search}` : '/';
}

/** The captcha id is not a field the user sees; its issues belong on the characters typed. */
const onScreen = (name: (string | number)[]) => (name[0] === 'code' ? ['codeFill'] : name);

function LoginForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const [form] = Form.useForm();
  const [failure, setFailure] = useState<string | null>(null);
  const captcha = useQuery({
    queryKey: ['captcha'],
    queryFn: ({ signal }) => callApi(authApi.getgifcode, {}, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
  });

  const login = useMutation({
    mutationFn: (body: LoginRequest) => callApi(authApi.login, body),
    onSuccess: (user) => {
      signIn(user);
      navigate(returnPath(location), { replace: true });
    },
    onError: (error) => {
      // A captcha answers one attempt only.
      form.setFieldValue('codeFill', '');
      void captcha.refetch();
      if (error instanceof ApiError && error.issues.length) {
        form.setFields(
          error.issues.map((issue) => ({
            name: onScreen(issue.field.split('.')),
            errors: [messageText(t, issue.key)],
          })),
        );
      }
      setFailure(errorText(t, error));
    },
  });

  const submit = (values: LoginValues) => {
    setFailure(null);
    const parsed = authApi.LoginRequestSchema.safeParse({ ...values, code: captcha.data?.code ?? '' });
    if (!parsed.success) {
      form.setFields(
        zodIssuesToFieldErrors(parsed.error.issues, t).map((error) => ({ ...error, name: onScreen(error.name) })),
      );
      return;
    }
    login.mutate(parsed.data);
  };

  return (
    <Form form={form} layout="vertical" size="large" onFinish={submit} requiredMark={false} data-testid="login-form">
      {failure && <Alert type="error" showIcon title={failure} style={{ marginBottom: 16 }} data-testid="login-error" />}
      <Form.Item name="username" label={t('login.username')}>
        <Input prefix={<UserOutlined />} autoComplete="username" data-testid="login-username" />
      </Form.Item>
      <Form.Item name="password" label={t('login.password')}>
        <Input.Password prefix={<LockOutlined />} autoComplete="current-password" data-testid="login-password" />
      </Form.Item>
      <Form.Item label={t('login.captcha')} required={false}>
        <Flex gap="small">
          <Form.Item name="codeFill" noStyle>
            <Input prefix={<SafetyOutlined />} autoComplete="off" data-testid="login-captcha" />
          </Form.Item>
          <button
            type="button"
            onClick={() => void captcha.refetch()}
            aria-label={t('login.captchaImage')}
            title={t('login.captchaImage')}
            style={{ padding: 0, border: 'none', background: 'none', cursor: 'pointer', height: 40, minWidth: 120 }}
          >
            {captcha.data && (
              <img src={captcha.data.img} alt={t('login.captcha')} height={40} data-testid="login-captcha-image" />
            )}
          </button>
        </Flex>
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={login.isPending} data-testid="login-submit">
        {t('login.submit')}
      </Button>
    </Form>
  );
}

export function LoginPage() {
  const { t } = useTranslation();
  const session = useSession();
  const location = useLocation();
  if (session.status === 'authenticated') return <Navigate to={returnPath(location)} replace />;

  return (
    <Flex vertical align="center" justify="center" style={{ minHeight: '100vh', background: '#f0f2f5', padding: 16 }}>
      <Flex justify="flex-end" style={{ position: 'absolute', top: 16, right: 24 }}>
        <LanguageSwitch onChange={applyLanguage} />
      </Flex>
      <Card style={{ width: 400, maxWidth: '100%' }}>
        <Flex vertical align="center" gap={4} style={{ marginBottom: 24 }}>
          <img src="/logo.svg" alt="" width={48} height={48} />
          <Typography.Title level={3} style={{ margin: 0 }}>
            {t('common.appName')}
          </Typography.Title>
          <Typography.Text type="secondary">{t('login.subtitle')}</Typography.Text>
        </Flex>
        <LoginForm />
      </Card>
    </Flex>
  );
}
