import { useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { onUnauthorized } from '@/api/api-client';
import { messageText } from '@/i18n/message-text';
import { PageLoading } from './routing/page-boundary';
import { getSession, resolveSession, signOut, useSession } from './session/session-store';

/** Above /login and the shell: learns who is logged in, and ends the session on any 401 (spec §7). */
export function RootLayout() {
  const session = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const { t } = useTranslation();
  const here = useRef(location);
  here.current = location;

  useEffect(() => {
    if (getSession().status === 'unknown') void resolveSession();
  }, []);

  useEffect(() => {
    onUnauthorized((error) => {
      signOut();
      queryClient.clear();
      message.warning({ key: 'session', content: messageText(t, error.msg) });
      navigate('/login', { replace: true, state: { from: here.current } });
    });
    return () => onUnauthorized(undefined);
  }, [navigate, queryClient, message, t]);

  return session.status === 'unknown' ? <PageLoading /> : <Outlet />;
}
