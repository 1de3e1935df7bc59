import {
  API_BASE,
  authApi,
  type MessageKey,
  type Operation,
  REQUEST_TIMEOUT_MS,
  RESULT,
  type ValidationIssue,
  ValidationIssueSchema,
} from '@meterdesk/contracts';
import { z } from 'zod';

/** A call that did not answer code 200; `msg` is a MESSAGES key (or English text for validation). */
export class ApiError extends Error {
  readonly code: number;
  readonly msg: string;
  readonly data: unknown;
  readonly issues: readonly ValidationIssue[];

  constructor(code: number, msg: string, data?: unknown) {
    super(msg);
    this.name = 'ApiError';
    this.code = code;
    this.msg = msg;
    this.data = data;
    this.issues = issuesOf(data);
  }
}

/** Failures that happen before the server could answer. */
export const CLIENT_ERRORS = { timeout: 'requestTimeout', network: 'networkError' } as const satisfies Record<
  string,
  MessageKey
>;

const IssuesSchema = z.object({ issues: z.array(ValidationIssueSchema) });

function issuesOf(data: unknown): ValidationIssue[] {
  const parsed = IssuesSchema.safeParse(data);
  return parsed.success ? parsed.data.issues : [];
}

type UnauthorizedHandler = (error: ApiError) => void;
let unauthorizedHandler: UnauthorizedHandler | undefined;

/** The app decides what a lost session means (clear it, go to /login); the client only reports it. */
export function onUnauthorized(handler: UnauthorizedHandler | undefined): void {
  unauthorizedHandler = handler;
}

// These two answer 401 as their normal "not logged in" / "no permission" result.
const SESSION_PROBES = new Set<string>([authApi.auth.path, authApi.login.path]);

export interface CallOptions {
  signal?: AbortSignal;
}

export async function send(path: string, body: unknown, options: CallOptions, accept: string): Promise<Response> {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    return await fetch(`${API_BASE}${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: accept },
      body: JSON.stringify(body ?? {}),
      signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    if (timeout.aborted) throw new ApiError(0, CLIENT_ERRORS.timeout);
    throw new ApiError(0, CLIENT_ERRORS.network);
  }
}

/** Reads the `{code, msg, data}` envelope: `data` on success, otherwise an ApiError (a 401 also ends the session). */
export async function readEnvelope(path: string, response: Response): Promise<unknown> {
  let envelope: { code?: unknown; msg?: unknown; data?: unknown };
  try {
    envelope = (await response.json()) as typeof envelope;
  } catch {
    throw new ApiError(response.status || RESULT.serverError, 'interfaceError');
  }
  const code = typeof envelope.code === 'number' ? envelope.code : response.status;
  const msg = typeof envelope.msg === 'string' ? envelope.msg : 'interfaceError';
  if (code === RESULT.ok && response.ok) return envelope.data;

  const error = new ApiError(code === RESULT.ok ? response.status : code, msg, envelope.data);
  if (error.code === RESULT.unauthorized && !SESSION_PROBES.has(path)) unauthorizedHandler?.(error);
  throw error;
}

async function post(path: string, body: unknown, options: CallOptions): Promise<unknown> {
  return readEnvelope(path, await send(path, body, options, 'application/json'));
}

/** Drops undefined members so strict request schemas on the server never see them. */
export function stripUndefined(body: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

/** Calls one contracts operation and checks `data` against its response schema. */
export async function callApi<Req extends z.ZodType, Res extends z.ZodType>(
  operation: Operation<Req, Res>,
  body: z.input<Req>,
  options: CallOptions = {},
): Promise<z.output<Res>> {
  const data = await post(operation.path, stripUndefined(body as object), options);
  const parsed = operation.response.safeParse(data);
  if (parsed.success) return parsed.data;
  console.error(`Response of ${operation.path} does not match the contract`, parsed.error.issues);
  throw new ApiError(RESULT.serverError, 'interfaceError', data);
}

/** Sends a file as the raw body of an upload operation (an import) and checks the answer like `callApi`. */
export async function uploadFile<Res extends z.ZodType>(
  operation: Operation<z.ZodType, Res>,
  file: File,
  contentType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
): Promise<z.output<Res>> {
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${operation.path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: {
        'Content-Type': contentType,
        'X-File-Name': encodeURIComponent(file.name),
        Accept: 'application/json',
      },
      body: file,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch {
    throw new ApiError(0, CLIENT_ERRORS.network);
  }
  const data = await readEnvelope(operation.path, response);
  const parsed = operation.response.safeParse(data);
  if (parsed.success) return parsed.data;
  throw new ApiError(RESULT.serverError, 'interfaceError', data);
}
