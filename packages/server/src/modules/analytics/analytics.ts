import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerConsumptionAnalytics } from './consumption';

/** Every page under /dataAnalytic built on the analytics kit (task analysis keeps its own routes). */
export function registerAnalyticsRoutes(app: FastifyInstance, deps: { db: Db }): void {
  registerConsumptionAnalytics(app, deps.db);
}
