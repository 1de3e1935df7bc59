import { RESULT } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error';

/**
 * A browser names the page that sent a request in `Origin`; when there is one it must be this
 * server (the host the request, or the `/mqtt` upgrade, was sent to), so another site cannot drive
 * a logged-in browser, whatever the cookie's SameSite does. `req.host` is X-Forwarded-Host behind a
 * proxy with TRUST_PROXY=on. Runs before the session is looked up.
 */
export function registerOriginCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    const origin = req.headers.origin;
    if (origin === undefined) return;
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      // "null" (a sandboxed page, a file) or garbage: not this server.
    }
    if (host === null || host.toLowerCase() !== req.host.toLowerCase()) {
      throw new ApiError(RESULT.forbidden, 'crossOrigin');
    }
  });
}
