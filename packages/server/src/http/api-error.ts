import { type MessageKey, messageText, RESULT, type ValidationIssue } from '@meterdesk/contracts';

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

export const unauthorized = (key: MessageKey = 'notLoggedIn') => new ApiError(RESULT.unauthorized, key);
export const forbidden = () => new ApiError(RESULT.forbidden, 'forbidden');
export const notFound = () => new ApiError(RESULT.notFound, 'notFound');
