import { authApi } from '@meterdesk/contracts';
import type { TFunction } from 'i18next';
import { type FieldError, zodIssuesToFieldErrors } from '@/crud/form-errors';
import { messageText } from '@/i18n/message-text';

export interface PasswordChangeValues {
  rawPassword?: string;
  newPassword?: string;
  confirmPassword?: string;
}

export const PASSWORD_FIELDS = ['rawPassword', 'newPassword', 'confirmPassword'] as const;

/**
 * spec §5: old password required; new password required and 6-18 characters (the contracts'
 * rule); the confirmation required and equal to the new one.
 */
export function validatePasswordChange(values: PasswordChangeValues, t: TFunction): FieldError[] {
  const parsed = authApi.UpdatePasswordRequestSchema.safeParse({
    rawPassword: values.rawPassword ?? '',
    newPassword: values.newPassword ?? '',
  });
  const errors = parsed.success ? [] : zodIssuesToFieldErrors(parsed.error.issues, t);
  if (!values.confirmPassword) {
    errors.push({ name: ['confirmPassword'], errors: [messageText(t, 'mandatory')] });
  } else if (values.confirmPassword !== values.newPassword) {
    errors.push({ name: ['confirmPassword'], errors: [messageText(t, 'passwordInconsistent')] });
  }
  return errors;
}
