import { LockOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { authApi } from '@meterdesk/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Flex, Input, theme } from 'antd';
import { type ChangeEvent, type FormEvent, type ReactNode, useState } from 'react';
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

type Field = keyof LoginValues;
type FieldErrors = Partial<Record<Field, string>>;
const EMPTY: LoginValues = { username: '', password: '', codeFill: '' };

/** The captcha id is not a field the user sees; its issues belong on the characters typed. */
const onScreen = (field: string | number | undefined): Field =>
  field === 'username' || field === 'password' ? field : 'codeFill';

/** Label, control and message of one login field, without antd's Form (which brings its validator and Tooltip). */
function LoginField({
  id,
  label,
  error,
  children,
}: {
  id: string;
  label: string;
  error?: string;
  children: ReactNode;
}) {
  const { token } = theme.useToken();
  return (
    <div style={{ marginBottom: token.marginMD }}>
      <label htmlFor={id} style={{ display: 'block', marginBottom: token.marginXXS }}>
        {label}
      </label>
      {children}
      {error && (
        <div id={`${id}-error`} role="alert" style={{ color: token.colorError, marginTop: token.marginXXS }}>
          {error}
        </div>
      )}
    </div>
  );
}

function LoginForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const [values, setValues] = useState<LoginValues>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
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
      setValues((current) => ({ ...current, codeFill: '' }));
      void captcha.refetch();
      if (error instanceof ApiError) {
        setErrors(
          Object.fromEntries(
            error.issues.map((issue) => [onScreen(issue.field.split('.')[0]), messageText(t, issue.key, issue.params)]),
          ),
        );
      }
      setFailure(errorText(t, error));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFailure(null);
    const parsed = authApi.LoginRequestSchema.safeParse({ ...values, code: captcha.data?.code ?? '' });
    if (!parsed.success) {
      const fieldErrors = zodIssuesToFieldErrors(parsed.error.issues, t).reverse();
      setErrors(Object.fromEntries(fieldErrors.map((error) => [onScreen(error.name[0]), error.errors[0]])));
      return;
    }
    setErrors({});
    login.mutate(parsed.data);
  };

  const bind = (field: Field) => ({
    id: `login-${field}`,
    value: values[field],
    status: errors[field] ? ('error' as const) : undefined,
    'aria-invalid': errors[field] ? true : undefined,
    'aria-describedby': errors[field] ? `login-${field}-error` : undefined,
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      const { value } = event.target;
      setValues((current) => ({ ...current, [field]: value }));
      setErrors((current) => ({ ...current, [field]: undefined }));
    },
  });

  return (
    <form onSubmit={submit} noValidate data-testid="login-form">
      {failure && (
        <Alert type="error" showIcon title={failure} style={{ marginBottom: 16 }} data-testid="login-error" />
      )}
      <LoginField id="login-username" label={t('login.username')} error={errors.username}>
        <Input
          {...bind('username')}
          size="large"
          prefix={<UserOutlined />}
          autoComplete="username"
          data-testid="login-username"
        />
      </LoginField>
      <LoginField id="login-password" label={t('login.password')} error={errors.password}>
        <Input.Password
          {...bind('password')}
          size="large"
          prefix={<LockOutlined />}
          autoComplete="current-password"
          data-testid="login-password"
        />
      </LoginField>
      <LoginField id="login-codeFill" label={t('login.captcha')} error={errors.codeFill}>
        <Flex gap="small">
          <Input
            {...bind('codeFill')}
            size="large"
            prefix={<SafetyOutlined />}
            autoComplete="off"
            data-testid="login-captcha"
          />
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
      </LoginField>
      <Button type="primary" htmlType="submit" size="large" block loading={login.isPending} data-testid="login-submit">
        {t('login.submit')}
      </Button>
    </form>
  );
}

/** Plain markup around the form: antd's Card and Typography would pull Tabs and Tooltip into this chunk. */
export function LoginPage() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const session = useSession();
  const location = useLocation();
  if (session.status === 'authenticated') return <Navigate to={returnPath(location)} replace />;

  return (
    <Flex
      vertical
      align="center"
      justify="center"
      style={{ minHeight: '100vh', background: token.colorBgLayout, padding: 16 }}
    >
      <div style={{ position: 'absolute', top: 16, right: 24 }}>
        <LanguageSwitch onChange={applyLanguage} />
      </div>
      <main
        style={{
          width: 400,
          maxWidth: '100%',
          padding: 32,
          background: token.colorBgContainer,
          borderRadius: token.borderRadiusLG,
          boxShadow: token.boxShadowTertiary,
        }}
      >
        <Flex vertical align="center" gap={4} style={{ marginBottom: 24 }}>
          <img src="/logo.svg" alt="" width={48} height={48} />
          <h1 style={{ margin: 0, fontSize: token.fontSizeHeading3, color: token.colorTextHeading }}>
            {t('common.appName')}
          </h1>
          <span style={{ color: token.colorTextSecondary }}>{t('login.subtitle')}</span>
        </Flex>
        <LoginForm />
      </main>
    </Flex>
  );
}
