import type { FastifyInstance } from 'fastify';

/**
 * X-Forwarded-For while TRUST_PROXY is off means a proxy the server does not believe: every client
 * behind it has the proxy's address, so the login rate limit and the login lock (per username and
 * address) treat them as one, and any of them can lock a username for all. Said once, since a warning
 * per request would bury the rest of the log.
 */
export function warnOfUntrustedProxy(app: FastifyInstance, trustProxy: boolean): void {
  if (trustProxy) return;
  let warned = false;
  app.addHook('onRequest', async (req) => {
    if (warned || req.headers['x-forwarded-for'] === undefined) return;
    warned = true;
    req.log.warn(
      { address: req.ip },
      'requests carry X-Forwarded-For but TRUST_PROXY is off: clients behind the proxy share its address, ' +
        'and with it their login rate limit and login locks; set TRUST_PROXY=on behind a reverse proxy',
    );
  });
}
