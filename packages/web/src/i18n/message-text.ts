import { type IssueParams, limitContext } from '@meterdesk/contracts';
import type { TFunction } from 'i18next';
import { ApiError } from '@/api/api-client';

/**
 * A MESSAGES key as the user reads it; with params, the variant that states the limit ('At most 64
 * characters') where the key has one. Unknown keys show as sent.
 */
export function messageText(t: TFunction, key: string, params?: IssueParams): string {
  // A field's label travels as its key: the user reads it in their language.
  const label = params?.label === undefined ? {} : { label: t(params.label) };
  return t(`errors.${key}`, { defaultValue: key, context: limitContext(params), ...params, ...label });
}

export function errorText(t: TFunction, error: unknown): string {
  return messageText(t, error instanceof ApiError ? error.msg : 'interfaceError');
}
