import { MAX_EVENT_ROWS, readingsApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerOperation } from '../../http/operation';
import { scopeOf } from '../../rbac/scope';
import type { ReadingsService } from './readings.service';

/** A meter's readings for its detail page's data tab. */
export function registerReadingsRoutes(app: FastifyInstance, deps: { db: Db; readings: ReadingsService }): void {
  const { db, readings } = deps;
  registerOperation(app, readingsApi.profile, async ({ body, session }) =>
    readings.profile(body, await scopeOf(db, session)),
  );
  registerOperation(app, readingsApi.daily, async ({ body, session }) =>
    readings.daily(body, await scopeOf(db, session)),
  );
  registerOperation(app, readingsApi.monthly, async ({ body, session }) =>
    readings.monthly(body, await scopeOf(db, session)),
  );
  registerOperation(app, readingsApi.events, async ({ body, session }) =>
    readings.events(body, await scopeOf(db, session), MAX_EVENT_ROWS),
  );
}
