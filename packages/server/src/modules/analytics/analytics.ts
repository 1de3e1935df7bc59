import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerClockAnalytics } from './clock';
import { registerConsumptionAnalytics } from './consumption';
import { registerDeviceOnlineAnalytics } from './device-online';
import { registerEnergyAnalytics } from './energy';
import { registerLoadProfileAnalytics } from './load-profile';
import { registerMeterEventsAnalytics } from './meter-events';
import { registerMonthlyBillingAnalytics } from './monthly-billing';
import { registerMonthlyConsumptionAnalytics } from './monthly-consumption';
import { registerNetworkAnalytics } from './network';

/** Every page under /dataAnalytic built on the analytics kit (task analysis keeps its own routes). */
export function registerAnalyticsRoutes(app: FastifyInstance, deps: { db: Db }): void {
  registerConsumptionAnalytics(app, deps.db);
  registerMeterEventsAnalytics(app, deps.db);
  registerNetworkAnalytics(app, deps.db);
  registerDeviceOnlineAnalytics(app, deps.db);
  registerEnergyAnalytics(app, deps.db);
  registerClockAnalytics(app, deps.db);
  registerMonthlyConsumptionAnalytics(app, deps.db);
  registerMonthlyBillingAnalytics(app, deps.db);
  registerLoadProfileAnalytics(app, deps.db);
}
