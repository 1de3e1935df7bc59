import { PUBLIC, RESULT } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { ApiError, fieldError } from '../errors/api-error';

/**
 * Every JSON body: 1 MB. Lists, forms and imports of rows fit; files do not belong in JSON. A later
 * upload route (multipart) raises its own limit with the route option `bodyLimit`, as the public
 * routes below lower theirs.
 */
export const JSON_BODY_LIMIT = 1024 * 1024;
/** A public route takes a login form at most; anything bigger is refused before it is read. */
export const PUBLIC_BODY_LIMIT = 4 * 1024;
/** Deeper than any form we define; refusing early keeps every later walk over the body cheap. */
const MAX_DEPTH = 32;

/** C0 control characters other than tab, line feed and carriage return: never meaningful in a field. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
/** Any control character, tab and line breaks too: what a path or a file name never holds. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const ANY_CONTROL = /[\u0000-\u001f\u007f]/;

const invalid = (field: string) => fieldError(RESULT.badRequest, field, 'invalidCharacter');

/**
 * Walks a parsed body without recursion (a hostile body may nest deeply) and names the first
 * string, or key, holding a control character. The path reads like a validation issue's field.
 */
export function checkJsonText(value: unknown): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length) {
    const item = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof item.value === 'string') {
      if (CONTROL.test(item.value)) throw invalid(item.path);
      continue;
    }
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth >= MAX_DEPTH) throw fieldError(RESULT.badRequest, item.path, 'invalidValue');
    const join = (key: string) => (item.path ? `${item.path}.${key}` : key);
    if (Array.isArray(item.value)) {
      item.value.forEach((v, i) => {
        stack.push({ value: v, path: join(String(i)), depth: item.depth + 1 });
      });
      continue;
    }
    for (const [key, v] of Object.entries(item.value)) {
      if (CONTROL.test(key)) throw invalid(join(key.replace(CONTROL, '?')));
      stack.push({ value: v, path: join(key), depth: item.depth + 1 });
    }
  }
}

/**
 * The JSON parser every route shares: an empty body reads as `{}` (so a call without fields still
 * meets its schema), broken JSON and control characters answer 400 before validation runs.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body).trim();
    if (text === '') return done(null, {});
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new ApiError(RESULT.badRequest, 'invalidParams', { detail: 'The body is not valid JSON' }));
    }
    try {
      checkJsonText(parsed);
    } catch (err) {
      return done(err as Error);
    }
    done(null, parsed);
  });
}

/**
 * Public routes answer anyone, so each gets a small body limit and a per-address rate limit unless
 * it sets its own (login keeps LOGIN_RATE_LIMIT_PER_MINUTE). Must be added before the rate-limit
 * plugin, whose own onRoute hook reads `config.rateLimit`.
 */
export function limitPublicRoutes(app: FastifyInstance, perMinute: number): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.access !== PUBLIC) return;
    route.bodyLimit ??= PUBLIC_BODY_LIMIT;
    if (route.config.rateLimit === undefined) route.config.rateLimit = { max: perMinute, timeWindow: 60_000 };
  });
}
