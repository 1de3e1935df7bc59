import { type IssueParams, limitContext } from '@meterdesk/contracts';
import type { TFunction } from 'i18next';
import { ApiError } from '@/api/api-client';

/**
 * A MESSAGES key as the user reads it; with params, the variant that states the limit ('At most 64
 * characters') where the key has one. Unknown keys show as sent.
 */
export function messageText(t: TFunction, key: string, params?: IssueParams): string {
  return t(`errors.${key}`, { defaultValue: key, context: limitContext(params), ...params });
}

export function errorText(t: TFunction, error: unknown): string {
  return messageText(t, error instanceof ApiError ? error.msg : 'interfaceError');
}
