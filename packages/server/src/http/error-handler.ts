import { issueKey, issueParams, MESSAGES, messageText, RESULT, type ValidationIssue } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { uniqueViolation } from '../db/unique';
import { ApiError, fieldError } from '../errors/api-error';

interface ZodLikeIssue {
  keyword: string;
  instancePath: string;
  message: string;
  /** The zod issue's own members: `keys` of unrecognized_keys, `minimum`/`maximum`/`origin` of size checks. */
  params: { keys?: string[]; minimum?: unknown; maximum?: unknown; origin?: unknown; input?: unknown };
}

const fieldOf = (instancePath: string) => instancePath.replace(/^\//, '').replaceAll('/', '.');

/** A hostile body can carry thousands of bad keys; the answer names a few and counts the rest. */
export const MAX_ISSUES = 5;
/** An unknown key is echoed back as a field name, so it is cut to a length a form field could have. */
const MAX_FIELD_LENGTH = 100;

/**
 * Zod issues → `{field, key, message, params?}`; our schemas use MESSAGES keys as their messages, and a
 * size check's limit travels in `params` so the English message and the web's translation can state it.
 */
export function toValidationIssues(errors: readonly ZodLikeIssue[]): { issues: ValidationIssue[]; omitted: number } {
  const issues: ValidationIssue[] = [];
  let total = 0;
  const add = (issue: ValidationIssue) => {
    total++;
    if (issues.length < MAX_ISSUES) issues.push({ ...issue, field: issue.field.slice(0, MAX_FIELD_LENGTH) });
  };
  for (const e of errors) {
    const base = fieldOf(e.instancePath);
    if (e.keyword === 'unrecognized_keys') {
      const keys = e.params.keys ?? [];
      for (const k of keys.slice(0, MAX_ISSUES)) {
        add({ field: base ? `${base}.${k}` : k, key: 'unknownField', message: MESSAGES.unknownField });
      }
      total += Math.max(0, keys.length - MAX_ISSUES);
      continue;
    }
    const issue = { ...e.params, code: e.keyword, message: e.message };
    const key = issueKey(issue);
    const params = issueParams(issue);
    add({ field: base, key, message: messageText(key, params), ...(params && { params }) });
  }
  return { issues, omitted: total - issues.length };
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: Error & { statusCode?: number }, req, reply) => {
    const conflict = uniqueViolation(error);
    if (conflict)
      return reply.status(conflict.code).send({ code: conflict.code, msg: conflict.key, data: conflict.data });
    if (error instanceof ApiError) {
      return reply.status(error.code).send({ code: error.code, msg: error.key, data: error.data });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const { issues, omitted } = toValidationIssues(error.validation as unknown as ZodLikeIssue[]);
      const named = issues.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message));
      const msg = [...named, ...(omitted ? [`${omitted} more`] : [])].join('; ');
      const data = omitted ? { issues, omitted } : { issues };
      return reply.status(RESULT.badRequest).send({ code: RESULT.badRequest, msg, data });
    }
    if (isResponseSerializationError(error)) {
      req.log.error({ err: error, issues: error.cause.issues }, 'response does not match its contract');
      return reply.status(500).send({ code: 500, msg: 'interfaceError', data: null });
    }
    const status = error.statusCode ?? 500;
    if (status === 413) {
      const tooLarge = req.routeOptions.config?.uploadTooLarge;
      if (tooLarge) {
        const named = fieldError(status, 'file', tooLarge);
        return reply.status(status).send({ code: status, msg: named.key, data: named.data });
      }
      return reply.status(status).send({ code: status, msg: 'bodyTooLarge', data: null });
    }
    if (status === RESULT.tooManyRequests) {
      return reply.status(status).send({ code: status, msg: 'tooManyRequests', data: null });
    }
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ code: status, msg: 'invalidParams', data: { detail: error.message } });
    }
    req.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ code: 500, msg: 'operationFailed', data: null });
  });

  app.setNotFoundHandler((_req, reply) => {
    reply.status(RESULT.notFound).send({ code: RESULT.notFound, msg: 'wrongApi', data: null });
  });
}
