import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type DestinationStream } from 'pino';

type Serialized = Record<string, unknown>;

const STACK_FRAME = /^\s+at /;
/** Database errors quote row values: "Failing row contains (…)" or "Key (username)=(…)". */
const QUOTED_VALUES = /\((?:[^()]|\([^()]*\))*\)/g;

/** drizzle's message is "Failed query: <sql>\nparams: <values>": the SQL helps, the values may be password hashes. */
const withoutParams = (text: string) => text.replace(/\nparams: [\s\S]*$/, '');

function scrub(serialized: Serialized, depth = 0): Serialized {
  const { params: _params, parameters: _parameters, ...out } = serialized;
  if (typeof out.message === 'string') out.message = withoutParams(out.message);
  if (typeof out.stack === 'string') {
    // The stack repeats the message; keep its frames only, under the cleaned message.
    const frames = out.stack.split('\n').filter((line) => STACK_FRAME.test(line));
    out.stack = [`${String(out.type ?? 'Error')}: ${String(out.message ?? '')}`, ...frames].join('\n');
  }
  if (typeof out.detail === 'string') out.detail = out.detail.replace(QUOTED_VALUES, '(…)');
  if (out.cause && typeof out.cause === 'object' && depth < 5) out.cause = scrub(out.cause as Serialized, depth + 1);
  return out;
}

/**
 * Errors are logged with their causes but never with the values of a failed query: drizzle puts
 * the parameters in its message and on the error, the database quotes row values in `detail`.
 */
export function errorSerializer(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  return scrub(pino.stdSerializers.errWithCause(err) as unknown as Serialized);
}

/** Cookies and credentials never reach a log line, whatever a later serializer adds. */
export const createLogger = (level: string, destination?: DestinationStream) =>
  pino(
    {
      level,
      redact: [
        'req.headers.cookie',
        'req.headers.authorization',
        'res.headers["set-cookie"]',
        // Device broker credentials (the fleet's entries, a broker user) if an object carrying one is logged.
        'password',
        '*.password',
        '*.*.password',
      ],
      serializers: { err: errorSerializer, error: errorSerializer },
    },
    destination,
  );

/**
 * One line per request, written when it is answered, with the request and the outcome together:
 * Fastify's separate "incoming request" line cost every request a second write.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const entry = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...entry, err: error }, 'request errored');
    else reply.log.info(entry, 'request completed');
  }
}
