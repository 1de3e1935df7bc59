import { authApi } from '@meterdesk/contracts';
import { useMutation } from '@tanstack/react-query';
import { App, Flex, Layout, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { callApi } from '@/api/api-client';
import { LanguageSwitch } from '@/app/language-switch';
import { type SessionUser, updateUser } from '@/app/session/session-store';
import { applyLanguage, type Language, languageCode } from '@/i18n/i18n';
import { errorText } from '@/i18n/message-text';
import { AppMenu } from './app-menu';
import { NoticeBadge } from './notice-badge';
import { UserMenu } from './user-menu';

export const HEADER_HEIGHT = 56;

export function AppHeader({
  user,
  notices,
  onChangePassword,
  onLogout,
}: {
  user: SessionUser;
  /** False while the server answers nothing but self-service (the password must change first). */
  notices: boolean;
  onChangePassword: () => void;
  onLogout: () => void;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const store = useMutation({
    mutationFn: (language: Language) => callApi(authApi.changelanguage, { type: languageCode(language) }),
    onError: (error) => message.error(errorText(t, error)),
  });

  // The interface switches at once; the server keeps the choice for the next login.
  const changeLanguage = (language: Language) => {
    applyLanguage(language);
    updateUser({ language: languageCode(language) });
    store.mutate(language);
  };

  return (
    <Layout.Header
      style={{
        display: 'flex',
        alignItems: 'center',
        gap: 16,
        height: HEADER_HEIGHT,
        padding: '0 16px',
        background: '#fff',
        borderBottom: '1px solid #f0f0f0',
      }}
    >
      <Link to="/" aria-label={t('shell.home')}>
        <Flex align="center" gap={8}>
          <img src="/logo.svg" alt="" width={28} height={28} />
          <Typography.Text strong style={{ fontSize: 16, whiteSpace: 'nowrap' }}>
            {t('common.appName')}
          </Typography.Text>
        </Flex>
      </Link>
      {/* Its items as tall as the header above its bottom border, where the selected one is underlined. */}
      <AppMenu height={HEADER_HEIGHT - 1} />
      <Flex align="center" gap={4}>
        {notices && <NoticeBadge username={user.username} />}
        <LanguageSwitch onChange={changeLanguage} />
        <UserMenu user={user} onChangePassword={onChangePassword} onLogout={onLogout} />
      </Flex>
    </Layout.Header>
  );
}
