import {
  API_BASE,
  envelope,
  type MessageKey,
  type OperatingType,
  type Operation,
  type OperationAccess,
  PUBLIC,
  RESULT,
} from '@meterdesk/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { z } from 'zod';
import { fieldError, unauthorized } from '../errors/api-error';
import type { Scope } from '../rbac/scope';
import { ANY_CONTROL } from './body';
import { attachment, type Download } from './export';

/**
 * Who calls an operation: the session the access check resolved (`auth/session.ts` reads it, with the
 * user's scope, in one query), handed to every handler that needs a session.
 */
export interface SessionContext {
  tokenHash: string;
  userId: string;
  username: string;
  fullName: string;
  language: number;
  mustChangePassword: boolean;
  /** What the user reaches, read with the session at the start of the request (`scopeOf`). */
  scope?: Scope;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; a route without it is refused (fail closed) and fails the route sweep test. */
    access?: OperationAccess;
    /** Set on state-changing routes: each call writes an operation log entry. */
    audit?: OperatingType;
    summary?: string;
    /** An upload's message when its body passes the route's limit: the refusal then names `file`. */
    uploadTooLarge?: MessageKey;
  }
  interface FastifyRequest {
    session: SessionContext | null;
  }
}

export interface PublicContext<Body> {
  body: Body;
  req: FastifyRequest;
  reply: FastifyReply;
}

export interface SessionContextOf<Body> extends PublicContext<Body> {
  session: SessionContext;
}

type Handler<Res extends z.ZodType, Ctx> = (ctx: Ctx) => Promise<z.output<Res>> | z.output<Res>;

/**
 * How an audited call's change and its operation log entry are written: in one transaction (the
 * default), or apart, the entry before the answer, for a call that waits on something outside the
 * database (an SMTP server) and must not hold a transaction, and PGlite's one session, that long.
 */
export interface AuditOptions {
  outsideTransaction?: true;
}

function register<Req extends z.ZodType, Res extends z.ZodType>(
  app: FastifyInstance,
  op: Operation<Req, Res>,
  run: (req: FastifyRequest, reply: FastifyReply) => Promise<z.output<Res>> | z.output<Res>,
  extra: PublicLimits & AuditOptions = {},
): void {
  const inTransaction = op.audit !== undefined && !extra.outsideTransaction;
  const options: RouteOptions = {
    method: 'POST',
    url: API_BASE + op.path,
    schema: {
      body: op.request,
      response: { 200: envelope(op.response) },
      summary: op.summary,
      tags: [op.tag],
    },
    config: {
      access: op.access,
      audit: op.audit,
      summary: op.summary,
      ...(extra.perMinute ? { rateLimit: { max: extra.perMinute, timeWindow: 60_000 } } : {}),
    },
    handler: async (req, reply) => {
      const data =
        inTransaction && req.session
          ? await req.server.inAuditedTransaction(req, reply, async () => run(req, reply))
          : await run(req, reply);
      return { code: 200, msg: 'success', data };
    },
  };
  app.route(options);
}

/**
 * Registers a contract operation: POST under /apis, its request and response schemas
 * (validation and OpenAPI), its access rule and audit kind. The handler returns `data`;
 * this wraps it in the `{code, msg, data}` envelope. The access hook has already
 * answered 401/403, so the handler always has a session.
 */
export function registerOperation<Req extends z.ZodType, Res extends z.ZodType>(
  app: FastifyInstance,
  op: Operation<Req, Res>,
  handler: Handler<Res, SessionContextOf<z.output<Req>>>,
  options: AuditOptions = {},
): void {
  if (op.access === PUBLIC) throw new Error(`${op.path} is public: register it with registerPublicOperation`);
  register(
    app,
    op,
    (req, reply) => {
      if (!req.session) throw unauthorized();
      return handler({ body: req.body as z.output<Req>, req, reply, session: req.session });
    },
    options,
  );
}

/** A public route's own rate, when it must be stricter than the default of every public route (login). */
export interface PublicLimits {
  perMinute?: number;
}

/** Public routes also get a small body limit and a rate limit from app.ts (`limitPublicRoutes`). */
export function registerPublicOperation<Req extends z.ZodType, Res extends z.ZodType>(
  app: FastifyInstance,
  op: Operation<Req, Res>,
  handler: Handler<Res, PublicContext<z.output<Req>>>,
  limits: PublicLimits = {},
): void {
  if (op.access !== PUBLIC) throw new Error(`${op.path} is not public: register it with registerOperation`);
  register(app, op, (req, reply) => handler({ body: req.body as z.output<Req>, req, reply }), limits);
}

/**
 * An operation whose answer is a file (exports); refusals are still `{code, msg, data}` envelopes.
 * An export changes nothing and streams for as long as its file takes: its operation log entry is
 * written before the file starts, outside any transaction.
 */
export function registerDownload<Req extends z.ZodType>(
  app: FastifyInstance,
  op: Operation<Req, z.ZodType>,
  handler: (ctx: SessionContextOf<z.output<Req>>) => Promise<Download>,
): void {
  app.route({
    method: 'POST',
    url: API_BASE + op.path,
    schema: { body: op.request, summary: op.summary, tags: [op.tag] },
    config: { access: op.access, audit: op.audit, summary: op.summary },
    handler: async (req, reply) => {
      if (!req.session) throw unauthorized();
      const file = await handler({ body: req.body as z.output<Req>, req, reply, session: req.session });
      return reply
        .header('content-type', file.contentType)
        .header('content-disposition', attachment(file.filename))
        .send(file.body);
    },
  });
}

/** The file types an upload route reads as its raw body. */
export const UPLOAD_TYPES = [
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/octet-stream',
] as const;

/** A file upload's context: the raw bytes and the name the browser gave (header `x-file-name`, URI-encoded). */
export interface UploadContext extends Omit<SessionContextOf<Buffer>, 'body'> {
  file: Buffer;
  fileName: string;
}

const FILE_NAME_HEADER = 'x-file-name';

/**
 * The name the browser gave, refused (400 naming the header) when its encoding is broken or it holds
 * a control character, which no file name has and the database would not store.
 */
function uploadFileName(req: FastifyRequest): string {
  let name: string;
  try {
    name = decodeURIComponent(String(req.headers[FILE_NAME_HEADER] ?? ''));
  } catch {
    throw fieldError(RESULT.badRequest, FILE_NAME_HEADER, 'invalidValue');
  }
  if (ANY_CONTROL.test(name)) throw fieldError(RESULT.badRequest, FILE_NAME_HEADER, 'invalidCharacter');
  return name;
}

/**
 * An operation whose request is a file (imports): the raw body up to `maxBytes`, never JSON; the
 * answer is the usual envelope. Anything but a file type is refused before the handler runs. The
 * import it queues reads the file at length, so the operation log entry is written before the answer,
 * outside a transaction.
 */
export function registerUpload<Res extends z.ZodType>(
  app: FastifyInstance,
  op: Operation<z.ZodType, Res>,
  maxBytes: number,
  handler: (ctx: UploadContext) => Promise<z.output<Res>>,
  limits: { tooLarge?: MessageKey; empty?: MessageKey } = {},
): void {
  app.route({
    method: 'POST',
    url: API_BASE + op.path,
    bodyLimit: maxBytes,
    schema: {
      summary: op.summary,
      tags: [op.tag],
      consumes: [...UPLOAD_TYPES],
      response: { 200: envelope(op.response) },
    },
    config: {
      access: op.access,
      audit: op.audit,
      summary: op.summary,
      ...(limits.tooLarge ? { uploadTooLarge: limits.tooLarge } : {}),
    },
    handler: async (req, reply) => {
      if (!req.session) throw unauthorized();
      if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
        throw fieldError(RESULT.badRequest, 'file', limits.empty ?? 'importFileInvalid');
      }
      const fileName = uploadFileName(req);
      // The operation log names the file; the audit hook gives its size for the body.
      req.auditNote = { fileName: fileName.slice(0, 200) };
      const data = await handler({ file: req.body, fileName, req, reply, session: req.session });
      return { code: 200, msg: 'success', data };
    },
  });
}

/** Reads the upload types as raw bytes; each upload route sets its own size limit. */
export function registerUploadBody(app: FastifyInstance): void {
  app.addContentTypeParser([...UPLOAD_TYPES], { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
}
