import { authApi } from '@meterdesk/contracts';
import { useSyncExternalStore } from 'react';
import type { z } from 'zod';
import { ApiError, callApi } from '@/api/api-client';
import { applyLanguage, languageFromCode } from '@/i18n/i18n';

export type SessionUser = z.output<typeof authApi.SessionUserSchema>;

/** What the login page says about how the session ended: a failure (no permission) or a step done (a new password). */
export interface SessionNotice {
  text: string;
  tone: 'error' | 'success';
}

/** `notice`: why the shell ended the session, for the login page to say. */
export type Session =
  | { status: 'unknown' }
  | { status: 'anonymous'; notice?: SessionNotice }
  | { status: 'authenticated'; user: SessionUser };

let session: Session = { status: 'unknown' };
const listeners = new Set<() => void>();

function set(next: Session): void {
  session = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function getSession(): Session {
  return session;
}

export function useSession(): Session {
  return useSyncExternalStore(subscribe, getSession);
}

/** The user's stored language wins over the one picked on the login page (spec §1). */
export function signIn(user: SessionUser): void {
  applyLanguage(languageFromCode(user.language));
  set({ status: 'authenticated', user });
}

export function signOut(notice?: SessionNotice): void {
  set(notice ? { status: 'anonymous', notice } : { status: 'anonymous' });
}

export function updateUser(patch: Partial<SessionUser>): void {
  if (session.status === 'authenticated') set({ status: 'authenticated', user: { ...session.user, ...patch } });
}

let probe: Promise<void> | undefined;

/** Asks the server whether the session cookie is still good; concurrent callers share one call. */
export function resolveSession(): Promise<void> {
  probe ??= callApi(authApi.auth, {})
    .then(signIn, (error: unknown) => {
      if (!(error instanceof ApiError)) console.error(error);
      signOut();
    })
    .finally(() => {
      probe = undefined;
    });
  return probe;
}
