import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { onUnauthorized } from '@/api/api-client';
import { PageLoading } from './routing/page-boundary';
import { LOGIN_PATH } from './routing/paths';
import { getSession, resolveSession, signOut, useSession } from './session/session-store';

// Only a lost session needs it; it stays out of the login page's first chunk.
const SessionLostDialog = lazy(() =>
  import('./session/session-lost-dialog').then((m) => ({ default: m.SessionLostDialog })),
);

/**
 * Above /login and the shell: learns who is logged in and, when a call answers 401 after login,
 * offers to stay or log in again (spec §8).
 */
export function RootLayout() {
  const session = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const [lost, setLost] = useState<string | null>(null);
  const here = useRef(location);
  here.current = location;

  useEffect(() => {
    if (getSession().status === 'unknown') void resolveSession();
  }, []);

  useEffect(() => {
    onUnauthorized((error) => {
      if (here.current.pathname === LOGIN_PATH) return;
      setLost((current) => current ?? error.msg);
    });
    return () => onUnauthorized(undefined);
  }, []);

  const loginAgain = useCallback(() => {
    setLost(null);
    signOut();
    queryClient.clear();
    navigate(LOGIN_PATH, { replace: true, state: { from: here.current } });
  }, [navigate, queryClient]);

  return (
    <>
      {session.status === 'unknown' ? <PageLoading /> : <Outlet />}
      {lost !== null && (
        <Suspense fallback={null}>
          <SessionLostDialog reason={lost} onStay={() => setLost(null)} onLogin={loginAgain} />
        </Suspense>
      )}
    </>
  );
}
