import { issueKey, issueParams, MESSAGES, messageText, RESULT, type ValidationIssue } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ApiError } from './api-error';

interface ZodLikeIssue {
  keyword: string;
  instancePath: string;
  message: string;
  /** The zod issue's own members: `keys` of unrecognized_keys, `minimum`/`maximum`/`origin` of size checks. */
  params: { keys?: string[]; minimum?: unknown; maximum?: unknown; origin?: unknown; input?: unknown };
}

const fieldOf = (instancePath: string) => instancePath.replace(/^\//, '').replaceAll('/', '.');

/**
 * Zod issues → `{field, key, message, params?}`; our schemas use MESSAGES keys as their messages, and a
 * size check's limit travels in `params` so the English message and the web's translation can state it.
 */
export function toValidationIssues(errors: readonly ZodLikeIssue[]): ValidationIssue[] {
  return errors.flatMap((e): ValidationIssue[] => {
    const base = fieldOf(e.instancePath);
    if (e.keyword === 'unrecognized_keys') {
      return (e.params.keys ?? []).map((k) => ({
        field: base ? `${base}.${k}` : k,
        key: 'unknownField',
        message: MESSAGES.unknownField,
      }));
    }
    const issue = { ...e.params, code: e.keyword, message: e.message };
    const key = issueKey(issue);
    const params = issueParams(issue);
    return [{ field: base, key, message: messageText(key, params), ...(params && { params }) }];
  });
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: Error & { statusCode?: number }, req, reply) => {
    if (error instanceof ApiError) {
      return reply.status(error.code).send({ code: error.code, msg: error.key, data: error.data });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issues = toValidationIssues(error.validation as unknown as ZodLikeIssue[]);
      const msg = issues.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message)).join('; ');
      return reply.status(RESULT.badRequest).send({ code: RESULT.badRequest, msg, data: { issues } });
    }
    if (isResponseSerializationError(error)) {
      req.log.error({ err: error, issues: error.cause.issues }, 'response does not match its contract');
      return reply.status(500).send({ code: 500, msg: 'interfaceError', data: null });
    }
    const status = error.statusCode ?? 500;
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
