import { authApi, CAPTCHA_IMAGE, CAPTCHA_LENGTH } from '@meterdesk/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
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

/**
 * Label, control and message of one login field. The page is plain markup (global.css): antd and its
 * style engine would double what the browser loads before anyone has logged in.
 */
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
  return (
    <div style={{ marginBottom: 16 }}>
      <label htmlFor={id} style={{ display: 'block', marginBottom: 4 }}>
        {label}
      </label>
      {children}
      {error && (
        <div id={`${id}-error`} role="alert" style={{ color: 'var(--md-error)', marginTop: 4 }}>
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
  const [tried, setTried] = useState(false);
  // Why the shell sent the user here (no permission, a changed password…), until they try again.
  const session = useSession();
  const notice = tried || session.status !== 'anonymous' ? undefined : session.notice;
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
    setTried(true);
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
      {failure || notice?.tone === 'error' ? (
        <div role="alert" className="md-alert" style={{ marginBottom: 16 }} data-testid="login-error">
          {failure ?? notice?.text}
        </div>
      ) : (
        notice && (
          <div
            role="status"
            className="md-alert md-alert-success"
            style={{ marginBottom: 16 }}
            data-testid="login-notice"
          >
            {notice.text}
          </div>
        )
      )}
      <LoginField id="login-username" label={t('login.username')} error={errors.username}>
        <input {...bind('username')} className="md-input" autoComplete="username" data-testid="login-username" />
      </LoginField>
      <LoginField id="login-password" label={t('login.password')} error={errors.password}>
        <input
          {...bind('password')}
          type="password"
          className="md-input"
          autoComplete="current-password"
          data-testid="login-password"
        />
      </LoginField>
      <LoginField id="login-codeFill" label={t('login.captcha')} error={errors.codeFill}>
        <button
          type="button"
          onClick={() => void captcha.refetch()}
          aria-label={t('login.captchaImage')}
          title={t('login.captchaImage')}
          style={{
            display: 'block',
            padding: 0,
            marginBottom: 8,
            border: 'none',
            background: 'none',
            cursor: 'pointer',
            ...CAPTCHA_IMAGE,
          }}
        >
          {captcha.data && (
            <img src={captcha.data.img} alt={t('login.captcha')} {...CAPTCHA_IMAGE} data-testid="login-captcha-image" />
          )}
        </button>
        <input
          {...bind('codeFill')}
          className="md-input"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={CAPTCHA_LENGTH}
          placeholder={t('login.captchaLength', { count: CAPTCHA_LENGTH })}
          data-testid="login-captcha"
        />
      </LoginField>
      <button
        type="submit"
        className="md-button md-button-primary md-button-large"
        disabled={login.isPending}
        aria-busy={login.isPending}
        data-testid="login-submit"
      >
        {t('login.submit')}
      </button>
    </form>
  );
}

export function LoginPage() {
  const { t } = useTranslation();
  const session = useSession();
  const location = useLocation();
  if (session.status === 'authenticated') return <Navigate to={returnPath(location)} replace />;

  return (
    <div
      style={{
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        minHeight: '100vh',
        boxSizing: 'border-box',
        background: 'var(--md-layout)',
        padding: 16,
      }}
    >
      <div style={{ position: 'absolute', top: 16, right: 24 }}>
        <LanguageSwitch onChange={applyLanguage} />
      </div>
      <main
        style={{
          width: 400,
          maxWidth: '100%',
          boxSizing: 'border-box',
          padding: 32,
          background: '#fff',
          borderRadius: 8,
          boxShadow: '0 1px 2px rgba(0, 0, 0, 0.03), 0 1px 6px -1px rgba(0, 0, 0, 0.02), 0 2px 4px rgba(0, 0, 0, 0.02)',
        }}
      >
        <div style={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 4, marginBottom: 24 }}>
          <img src="/logo.svg" alt="" width={48} height={48} />
          <h1 style={{ margin: 0, fontSize: 24 }}>{t('common.appName')}</h1>
          <span style={{ color: 'var(--md-text-secondary)' }}>{t('login.subtitle')}</span>
        </div>
        <LoginForm />
      </main>
    </div>
  );
}
