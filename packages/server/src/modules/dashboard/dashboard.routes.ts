import { dashboardApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerOperation } from '../../http/operation';
import { scopeOf } from '../../rbac/scope';
import type { DashboardService } from './dashboard.service';

/** /dashboard's cards, one call each. */
export function registerDashboardRoutes(app: FastifyInstance, deps: { db: Db; dashboard: DashboardService }): void {
  const { db, dashboard } = deps;
  registerOperation(app, dashboardApi.alarms, async ({ body, session }) =>
    dashboard.alarms(await scopeOf(db, session), body),
  );
  registerOperation(app, dashboardApi.archive, async ({ session }) => dashboard.archive(await scopeOf(db, session)));
  registerOperation(app, dashboardApi.consumers, async ({ session }) =>
    dashboard.consumers(await scopeOf(db, session)),
  );
  registerOperation(app, dashboardApi.modules, async ({ session }) => dashboard.modules(await scopeOf(db, session)));
  registerOperation(app, dashboardApi.energy, async ({ session }) => dashboard.energy(await scopeOf(db, session)));
  registerOperation(app, dashboardApi.collection, async ({ session }) =>
    dashboard.collection(await scopeOf(db, session)),
  );
  registerOperation(app, dashboardApi.alarmTrend, async ({ session }) =>
    dashboard.alarmTrend(await scopeOf(db, session)),
  );
  registerOperation(app, dashboardApi.operations, async ({ session }) =>
    dashboard.operations(await scopeOf(db, session), session.language),
  );
}
