import type { TFunction } from 'i18next';
import { ApiError } from '@/api/api-client';

/** A MESSAGES key as the user reads it; unknown keys (e.g. English validation text) show as sent. */
export function messageText(t: TFunction, key: string): string {
  return t(`errors.${key}`, { defaultValue: key });
}

export function errorText(t: TFunction, error: unknown): string {
  return messageText(t, error instanceof ApiError ? error.msg : 'interfaceError');
}
