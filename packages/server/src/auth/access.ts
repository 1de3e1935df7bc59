import {
  type OperatingType,
  type OperationAccess,
  PUBLIC,
  type ResourceNeeds,
  SESSION,
  SESSION_COOKIE,
} from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/driver';
import { ApiError, forbidden, unauthorized } from '../errors/api-error';
import type { SessionStore } from './session';

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

const NEEDS_NOTHING: ResourceNeeds = { anyOf: [] };

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
    const access = req.is404 ? PUBLIC : req.routeOptions.config.access;
    const needs = access === undefined || access === PUBLIC || access === SESSION ? NEEDS_NOTHING : access;
    // The session, its scope and whether it holds what the route needs: one query per request.
    const resolved = token ? await deps.sessions.resolve(token, needs) : null;
    req.session = resolved?.session ?? null;

    if (access === PUBLIC) return;
    if (access === undefined) {
      req.log.error({ url: req.url }, 'route declares no access rule; refused');
      throw new ApiError(403, 'forbidden');
    }
    if (!resolved) throw unauthorized(token ? 'sessionExpired' : 'notLoggedIn');
    if (access === SESSION) return;
    // A password an administrator set is known to two people: nothing but self-service until it is changed.
    if (resolved.session.mustChangePassword) throw new ApiError(403, 'mustChangePassword');
    if (!resolved.permitted) throw forbidden();
  });
  return routes;
}
