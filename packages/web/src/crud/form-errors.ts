import { type IssueParams, issueKey, issueParams, type ValidationIssue } from '@meterdesk/contracts';
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

/**
 * Where a refused save takes the user: to its first bad field, in view and focused (the save button
 * of a long form sits far below it). Every form gets it for its own checks (antd-root.tsx).
 */
export const FIRST_ERROR_SCROLL = { block: 'center', focus: true } as const;

/** Puts errors on their fields and brings the first into view, as a refused save does. */
export function showFieldErrors(form: FormInstance, fieldErrors: FieldError[]): void {
  form.setFields(fieldErrors);
  const [first] = fieldErrors;
  if (first) form.scrollToField(first.name, FIRST_ERROR_SCROLL);
}

type Issue = { path: readonly PropertyKey[]; key: string; params?: IssueParams };

/** One message per field: the first issue, as zod reports them in check order. */
function firstPerField(issues: readonly Issue[], t: TFunction): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const issue of issues) {
    const name = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    const id = name.join('.');
    if (!byField.has(id)) byField.set(id, { name, errors: [messageText(t, issue.key, issue.params)] });
  }
  return [...byField.values()];
}

type SchemaNode = { def?: { type?: string; innerType?: z.ZodType } };

/** The number inside default/optional/nullable wrappers, if the schema is one (by its def: the login
 * page uses this module and must not pull zod's classes into its chunk). */
function numberSchema(schema: z.ZodType | undefined): z.ZodNumber | undefined {
  let current: z.ZodType | undefined = schema;
  while (current) {
    const { def } = current as unknown as SchemaNode;
    if (def?.type === 'number') return current as unknown as z.ZodNumber;
    current = def?.innerType;
  }
  return undefined;
}

/**
 * What a zod issue says to the user: a MESSAGES key (never zod's own English) and the limit it broke.
 * A number between two bounds states both ('Between 0 and 65535'), which `schema` tells.
 */
export function zodIssueText(t: TFunction, issue: z.core.$ZodIssue, schema?: z.ZodType): string {
  const key = issueKey(issue);
  const params = issueParams(issue);
  const number = numberSchema(schema);
  const [min, max] = [number?.minValue, number?.maxValue];
  const bothBounds = params && typeof min === 'number' && typeof max === 'number' && Number.isFinite(min + max);
  return messageText(t, key, bothBounds ? { min, max } : params);
}

/** Contracts schemas carry MESSAGES keys as their messages; `shape` (the request's members) tells ranges. */
export function zodIssuesToFieldErrors(
  issues: readonly z.core.$ZodIssue[],
  t: TFunction,
  shape: Record<string, z.ZodType> = {},
): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const issue of issues) {
    const name = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    const id = name.join('.');
    const schema = name.length === 1 ? shape[String(name[0])] : undefined;
    if (!byField.has(id)) byField.set(id, { name, errors: [zodIssueText(t, issue, schema)] });
  }
  return [...byField.values()];
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
    .map((issue) => (issue.field ? `${issue.field}: ` : '') + messageText(t, issue.key, issue.params));
  // A list's member (`items.2.value`) is named by its index, as a form list names it.
  const pathOf = (field: string) => field.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const fieldErrors = firstPerField(
    onForm.map((issue) => ({ path: pathOf(issue.field), key: issue.key, params: issue.params })),
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
  showFieldErrors(form, fieldErrors);
  if (unplaced.length) showMessage(unplaced.join('; '));
}
