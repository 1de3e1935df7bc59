import type { ValidationIssue } from '@meterdesk/contracts';

/** The validation issues of a refused call's answer. */
export const issuesIn = (body: unknown) => (body as { data: { issues: ValidationIssue[] } }).data.issues;

/** Each issue of a refused call's answer as [field, key], what most refusal tests compare. */
export const fieldIssues = (body: unknown) => issuesIn(body).map((i) => [i.field, i.key]);
