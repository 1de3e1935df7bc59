import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerClockAnalytics } from './clock';
import { registerConsumptionAnalytics } from './consumption';
import { registerMeterEventsAnalytics } from './meter-events';
import { registerDeviceOnlineAnalytics } from './device-online';
import { registerNetworkAnalytics } from './network';
import { registerEnergyAnalytics } from './energy';

/** Every page under /dataAnalytic built on the analytics kit (task analysis keeps its own routes). */
export function registerAnalyticsRoutes(app: FastifyInstance, deps: { db: Db }): void {
  registerConsumptionAnalytics(app, deps.db);
  registerMeterEventsAnalytics(app, deps.db);
  registerNetworkAnalytics(app, deps.db);
  registerDeviceOnlineAnalytics(app, deps.db);
  registerEnergyAnalytics(app, deps.db);
  registerClockAnalytics(app, deps.db);
}
