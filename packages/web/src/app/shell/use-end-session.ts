import { authApi } from '@meterdesk/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { callApi } from '@/api/api-client';
import { LOGIN_PATH } from '@/app/routing/paths';
import { type SessionNotice, signOut } from '@/app/session/session-store';

export function tabStorageKey(username: string): string {
  return `meterdesk.tabs.${username}`;
}

/**
 * Leaves the shell for /login. `callServer: false` when the server already ended the session
 * (a password change does); `notice` is why, which the login page shows (the shell's own message
 * area leaves with the shell).
 */
export function useEndSession(
  username: string,
): (options?: { callServer?: boolean; notice?: SessionNotice }) => Promise<void> {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return useCallback(
    async ({ callServer = true, notice }: { callServer?: boolean; notice?: SessionNotice } = {}) => {
      if (callServer) await callApi(authApi.loginout, {}).catch(() => undefined);
      sessionStorage.removeItem(tabStorageKey(username));
      signOut(notice);
      queryClient.clear();
      await navigate(LOGIN_PATH, { replace: true });
    },
    [navigate, queryClient, username],
  );
}
