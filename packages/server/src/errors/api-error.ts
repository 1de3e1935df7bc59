import {
  type EntityDefinition,
  fieldMeta,
  type MessageKey,
  messageText,
  RESULT,
  type ValidationIssue,
} from '@meterdesk/contracts';
import type { z } from 'zod';
import { translator } from '../i18n/labels';

/** A refusal the client is meant to read: `{code, msg: key, data}` with the HTTP status mirroring code. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly key: MessageKey | string,
    readonly data: unknown = null,
  ) {
    super(key);
  }
}

export function fieldError(code: number, field: string, key: MessageKey): ApiError {
  const issues: ValidationIssue[] = [{ field, key, message: messageText(key) }];
  return new ApiError(code, key, { issues });
}

/**
 * 409 `existed` naming the thing, as the spec's 'Firmware name existed': the field's label (in
 * English in `message`; its key in `params.label` for the web to translate).
 */
export function existedError(entity: Pick<EntityDefinition<z.ZodObject>, 'name' | 'record'>, field: string): ApiError {
  const meta = fieldMeta(entity.record.shape[field] as z.ZodType);
  if (meta?.existed) {
    return new ApiError(RESULT.conflict, meta.existed, {
      issues: [{ field, key: meta.existed, message: messageText(meta.existed) }],
    });
  }
  const label = meta?.label ?? `${entity.name}.fields.${field}`;
  const issues: ValidationIssue[] = [
    { field, key: 'existed', message: `${translator(1)(label)} existed`, params: { label } },
  ];
  return new ApiError(RESULT.conflict, 'existed', { issues });
}

export const unauthorized = (key: MessageKey = 'notLoggedIn') => new ApiError(RESULT.unauthorized, key);
export const forbidden = () => new ApiError(RESULT.forbidden, 'forbidden');
export const notFound = () => new ApiError(RESULT.notFound, 'notFound');
