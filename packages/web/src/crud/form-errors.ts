import type { ValidationIssue } from '@meterdesk/contracts';
import type { FormInstance } from 'antd';
import type { TFunction } from 'i18next';
import type { z } from 'zod';
import { ApiError } from '@/api/api-client';
import { errorText, messageText } from '@/i18n/message-text';

/** The shape antd's `form.setFields` takes. */
export interface FieldError {
  name: (string | number)[];
  errors: string[];
}

type Issue = { path: readonly PropertyKey[]; message: string };

/** One message per field: the first issue, as zod reports them in check order. */
function firstPerField(issues: readonly Issue[], t: TFunction): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const issue of issues) {
    const name = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    const id = name.join('.');
    if (!byField.has(id)) byField.set(id, { name, errors: [messageText(t, issue.message)] });
  }
  return [...byField.values()];
}

/** Contracts schemas carry MESSAGES keys as their messages, so each issue translates directly. */
export function zodIssuesToFieldErrors(issues: readonly z.core.$ZodIssue[], t: TFunction): FieldError[] {
  return firstPerField(issues, t);
}

/**
 * Server validation issues name dotted fields and MESSAGES keys. Those the form shows go on their
 * field; the others come back as text for a general message.
 */
export function apiIssuesToFieldErrors(
  issues: readonly ValidationIssue[],
  formFields: ReadonlySet<string>,
  t: TFunction,
): { fieldErrors: FieldError[]; unplaced: string[] } {
  const onForm = issues.filter((issue) => formFields.has(issue.field.split('.')[0] ?? ''));
  const unplaced = issues
    .filter((issue) => !onForm.includes(issue))
    .map((issue) => (issue.field ? `${issue.field}: ` : '') + messageText(t, issue.key));
  const fieldErrors = firstPerField(
    onForm.map((issue) => ({ path: issue.field.split('.'), message: issue.key })),
    t,
  );
  return { fieldErrors, unplaced };
}

/** A failed save: issues go on the fields the form shows, anything else into one message. */
export function showSaveError(
  error: unknown,
  form: FormInstance,
  formFields: ReadonlySet<string>,
  t: TFunction,
  showMessage: (text: string) => void,
): void {
  if (!(error instanceof ApiError) || error.issues.length === 0) {
    showMessage(errorText(t, error));
    return;
  }
  const { fieldErrors, unplaced } = apiIssuesToFieldErrors(error.issues, formFields, t);
  form.setFields(fieldErrors);
  if (unplaced.length) showMessage(unplaced.join('; '));
}
