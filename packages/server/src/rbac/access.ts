import { type OperatingType, type OperationAccess, PUBLIC, SESSION, SESSION_COOKIE } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { permittedUris, type SessionStore } from '../auth/session';
import type { Db } from '../db/driver';
import { ApiError, forbidden, unauthorized } from '../http/api-error';

/**
 * The server's access control. Runs before the body is parsed, so an unauthenticated or
 * unauthorised caller learns nothing about the route's validation. Fails closed: a route
 * that declares no access is refused.
 */
export interface RouteRecord {
  method: string;
  url: string;
  access: OperationAccess | undefined;
  audit: OperatingType | undefined;
}

export function registerAccessControl(app: FastifyInstance, deps: { db: Db; sessions: SessionStore }): RouteRecord[] {
  const routes: RouteRecord[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods)
      routes.push({ method, url: route.url, access: route.config?.access, audit: route.config?.audit });
  });
  app.decorateRequest('session', null);
  app.addHook('onRequest', async (req) => {
    const token = req.cookies[SESSION_COOKIE];
    req.session = token ? await deps.sessions.resolve(token) : null;

    if (req.is404) return;
    const access = req.routeOptions.config.access;
    if (access === PUBLIC) return;
    if (access === undefined) {
      req.log.error({ url: req.url }, 'route declares no access rule; refused');
      throw new ApiError(403, 'forbidden');
    }
    if (!req.session) throw unauthorized(token ? 'sessionExpired' : 'notLoggedIn');
    if (access === SESSION) return;
    // A password an administrator set is known to two people: nothing but self-service until it is changed.
    if (req.session.mustChangePassword) throw new ApiError(403, 'mustChangePassword');
    const uris = await permittedUris(deps.db, req.session.userId);
    if (!access.anyOf.some((uri) => uris.has(uri))) throw forbidden();
  });
  return routes;
}
