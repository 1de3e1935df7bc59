import { analytics } from './analytics';
import { analyticsClock } from './analytics-clock';
import { analyticsEnergy } from './analytics-energy';
import { analyticsMonthly } from './analytics-monthly';
import { billingReport } from './billing-report';
import { billingRule, virtualMeter } from './billing-rule';
import { collectItems, task, template } from './collection';
import { consumer } from './consumer';
import { crud } from './crud';
import { dashboard } from './dashboard';
import { dcu } from './dcu';
import { eventDefinition } from './event-definition';
import { firmware } from './firmware';
import { gis } from './gis';
import { grid } from './grid';
import { liveState, silentMeters } from './live-state';
import { meter } from './meter';
import { meterEvents } from './meter-events';
import { meterType } from './meter-type';
import { module } from './module';
import { network } from './network';
import { obis } from './obis';
import { operations } from './operations';
import { outage } from './outage';
import { paramTemplate } from './param-template';
import { poc } from './poc';
import { prepaid } from './prepaid';
import { readings } from './readings';
import { collectionReport } from './report';
import { resource } from './resource';
import { runs } from './runs';
import { stsToken } from './sts-token';
import { supplier } from './supplier';
import { group, notice, org, role, settings, syslog, user } from './system';
import { tariff, tariffPush } from './tariff';
import { tariffEditor, tariffScreen } from './tariff-editor';
import { taskAnalysis } from './task-analysis';

/**
 * The texts of the screens behind the login. Only the web's locales/screen-texts.ts (and the server, for exports) imports this (the shell
 * loads it), so none of it weighs on the login page.
 */
export const enScreens = {
  crud,
  resource,
  org,
  user,
  group,
  role,
  notice,
  settings,
  syslog,
  supplier,
  billingRule,
  billingReport,
  virtualMeter,
  prepaid,
  consumer,
  module,
  grid,
  meterType,
  meter,
  dcu,
  poc,
  gis,
  liveState,
  silentMeters,
  stsToken,
  operations,
  readings,
  runs,
  collectionReport,
  obis,
  eventDefinition,
  tariff,
  tariffPush,
  paramTemplate,
  firmware,
  collectItems,
  template,
  task,
  taskAnalysis,
  analytics,
  dashboard,
  meterEvents,
  network,
  analyticsEnergy,
  analyticsClock,
  analyticsMonthly,
  outage,
  tariffEditor,
  tariffScreen,
};
