import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerConsumptionAnalytics } from './consumption';
import { registerLoadProfileAnalytics } from './load-profile';
import { registerMonthlyBillingAnalytics } from './monthly-billing';
import { registerMonthlyConsumptionAnalytics } from './monthly-consumption';

/** Every page under /dataAnalytic built on the analytics kit (task analysis keeps its own routes). */
export function registerAnalyticsRoutes(app: FastifyInstance, deps: { db: Db }): void {
  registerConsumptionAnalytics(app, deps.db);
  registerMonthlyConsumptionAnalytics(app, deps.db);
  registerMonthlyBillingAnalytics(app, deps.db);
  registerLoadProfileAnalytics(app, deps.db);
}
