import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/driver';
import { writeLog } from './audit.repository';
import { clientInfo } from './client-info';
import { operationContent } from './log-content';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * What a handler adds to its operation log entry to name the record it acted on, where the
     * request names it only by id (a DCU's number on *reveal*). Masked like the body.
     */
    auditNote?: Record<string, string>;
  }
}

const SECRET_KEY = /pass(word)?|token|secret|key|^code$|codeFill/i;
const MAX_CONTENT = 2000;

/** A copy of a request body fit for a log: secrets masked, whatever their nesting. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '***' : redact(v)]));
  }
  return value;
}

/**
 * What a request body says in a log: an uploaded file (a raw body) by its size alone, never its
 * bytes — walked as an object, a 20 MB upload would become twenty million masked keys.
 */
const loggedBody = (body: unknown): unknown => (Buffer.isBuffer(body) ? { bytes: body.length } : (body ?? {}));

/** Every call of a route marked `audit` leaves an operation log entry, refused or not. */
export function registerAuditLog(app: FastifyInstance, db: Db): void {
  app.addHook('onResponse', async (req, reply) => {
    const kind = req.routeOptions.config.audit;
    if (!kind || !req.session) return;
    const access = req.routeOptions.config.access;
    const page = typeof access === 'object' ? (access.anyOf[0] ?? req.url) : req.url;
    const body = req.auditNote ? { ...(loggedBody(req.body) as object), ...req.auditNote } : loggedBody(req.body);
    const content = operationContent(page, redact(body)).slice(0, MAX_CONTENT);
    try {
      await writeLog(db, {
        logType: 'operation',
        username: req.session.username,
        operatingType: kind,
        content,
        result: reply.statusCode,
        requestUrl: req.url,
        client: clientInfo(req),
      });
    } catch (err) {
      req.log.error({ err }, 'operation log entry could not be written');
    }
  });
}
