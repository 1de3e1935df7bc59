import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { inTransaction } from '../db/ambient';
import type { Db } from '../db/driver';
import { type LogEntry, writeLog } from './audit.repository';
import { clientInfo } from './client-info';
import { operationContent } from './log-content';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * What a handler adds to its operation log entry to name the record it acted on, where the
     * request names it only by id (a DCU's number on *reveal*). Masked like the body.
     */
    auditNote?: Record<string, string>;
    /** Its operation log entry is written (in the transaction of its change). */
    operationLogged?: boolean;
  }
  interface FastifyInstance {
    /** Runs an audited handler and writes its operation log entry in one transaction (`registerAuditLog`). */
    inAuditedTransaction<T>(req: FastifyRequest, reply: FastifyReply, work: () => Promise<T>): Promise<T>;
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

/** The entry a call of a route marked `audit` leaves, with the result it answers; none without a session. */
function operationEntry(req: FastifyRequest, reply: FastifyReply): LogEntry | null {
  const kind = req.routeOptions.config.audit;
  if (!kind || !req.session) return null;
  const access = req.routeOptions.config.access;
  const page = typeof access === 'object' ? (access.anyOf[0] ?? req.url) : req.url;
  const body = req.auditNote ? { ...(loggedBody(req.body) as object), ...req.auditNote } : loggedBody(req.body);
  return {
    logType: 'operation',
    username: req.session.username,
    operatingType: kind,
    content: operationContent(page, redact(body)).slice(0, MAX_CONTENT),
    result: reply.statusCode,
    requestUrl: req.url,
    client: clientInfo(req),
  };
}

/**
 * Every call of a route marked `audit` leaves an operation log entry, refused or not, before its answer
 * leaves. A handler run by `inAuditedTransaction` that succeeds writes it in the transaction of its
 * change, so the two commit together or not at all; any other answer (a refusal, a failure, a download,
 * an upload, a call that waits on something outside) has it written as the answer is about to be sent.
 */
export function registerAuditLog(app: FastifyInstance, db: Db): void {
  app.decorate('inAuditedTransaction', async <T>(req: FastifyRequest, reply: FastifyReply, work: () => Promise<T>) => {
    const outcome = await inTransaction(db, async (tx): Promise<{ data: T } | { refused: unknown }> => {
      let data: T;
      try {
        data = await work();
      } catch (refused) {
        // What a refused call wrote stands, as it would without the transaction: a wrong password
        // given to updatepassword counts towards the lock it answers with. (After a statement that
        // failed outside a service's own transaction, a savepoint, the commit keeps nothing.)
        return { refused };
      }
      const entry = operationEntry(req, reply);
      // Should the entry fail, the change rolls back with it and the call answers as failed.
      if (entry) await writeLog(tx, entry);
      return { data };
    });
    if ('refused' in outcome) throw outcome.refused;
    req.operationLogged = true;
    return outcome.data;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.operationLogged) return payload;
    const entry = operationEntry(req, reply);
    if (!entry) return payload;
    try {
      await writeLog(db, entry);
    } catch (err) {
      req.log.error({ err }, 'operation log entry could not be written');
    }
    return payload;
  });
}
