import { z } from 'zod';
import { CONSUMER_TYPES, DEVICE_TYPES, METER_STATUSES, PAYMENT_MODES, WORKING_MODES } from '../archive/enums';
import { IdSchema } from '../common/ids';
import { defineOperation, needsAll, type Operation } from '../common/operation';
import { RES } from '../permissions';
import { ReportDaySchema } from '../report/collection-report.api';
import { SystemLogSchema } from '../system/syslog.api';

/** spec §9: the dashboard asks its cards again this long after the router has brought it back. */
export const DASHBOARD_REFRESH_DELAY_MS = 1200;
/** The alarm log and the alarm trend look back this many UTC days, today included. */
export const ALARM_DAYS = 30;
/** Alarms a page of the alarm log shows by default, and at most. */
export const ALARM_PAGE_SIZE = 5;
export const MAX_ALARM_PAGE_SIZE = 20;
/** How far back the alarm log pages: deeper than this the meter events page lists them. */
export const MAX_ALARM_PAGES = 100;
/** Operation-log entries the dashboard shows. */
export const OPERATION_LOG_ROWS = 8;

/**
 * Each card, the resource a user must hold (besides /dashboard) to see it, and the page that
 * explains it (its link). A card is the page it summarises, in small: whoever may not open that page
 * does not see the card either.
 */
export const DASHBOARD_CARDS = {
  alarms: '/dataAnalytic/meterEvents',
  archive: '/archiveSetting/meter',
  consumers: '/archiveSetting/consumer',
  modules: '/archiveSetting/module',
  energy: '/dataAnalytic/consumptionData',
  collection: '/report/dataCollectionReport',
  alarmTrend: '/dataAnalytic/meterEvents',
  operations: RES.sysJournal,
} as const;
export type DashboardCard = keyof typeof DASHBOARD_CARDS;
export const DASHBOARD_CARD_KEYS = Object.keys(DASHBOARD_CARDS) as DashboardCard[];

/** A meter's event timeline, where an alarm of the log leads (`?meterId=`). */
export const METER_EVENTS_DETAIL_PATH = `${DASHBOARD_CARDS.alarms}/meterEventsDetail`;

const NoFilters = z.strictObject({});
const count = z.number().int();

export const AlarmQuerySchema = z.strictObject({
  pageSize: z.number().int().min(1, 'outOfRange').max(MAX_ALARM_PAGE_SIZE, 'outOfRange').default(ALARM_PAGE_SIZE),
  curPage: z.number().int().min(1, 'outOfRange').max(MAX_ALARM_PAGES, 'outOfRange').default(1),
});
export type AlarmQuery = z.infer<typeof AlarmQuerySchema>;

export const AlarmSchema = z.object({
  meterId: IdSchema,
  devAddr: z.string(),
  gridName: z.string(),
  time: z.string(),
  code: count,
  /** The event definition's name, or '' for a code the catalogue lacks. */
  name: z.string(),
});
export type Alarm = z.infer<typeof AlarmSchema>;

export const AlarmPageSchema = z.object({
  list: z.array(AlarmSchema),
  curPage: count,
  pageSize: count,
  /** Whether an older page holds alarms. */
  more: z.boolean(),
  /** Unacknowledged severe events of the last ALARM_DAYS days in the caller's grid scope, from the rollups (a minute behind at most). */
  total: count,
});
export type AlarmPage = z.infer<typeof AlarmPageSchema>;

/** How many records hold each value of a field. */
const counted = <S extends z.ZodRawShape>(value: S) => z.array(z.object({ ...value, count }));

export const ArchiveSummarySchema = z.object({
  gridNodes: count,
  dcus: count,
  meters: count,
  byStatus: counted({ status: z.number().int() }).describe(
    `Every status (${METER_STATUSES.join(', ')}), those without a meter at 0`,
  ),
});
export type ArchiveSummary = z.infer<typeof ArchiveSummarySchema>;

export const ConsumerSummarySchema = z.object({
  consumers: count,
  byType: counted({ consumerType: z.enum(CONSUMER_TYPES) }),
  byPayment: counted({ paymentMode: z.enum(PAYMENT_MODES) }),
  /** Special consumers (spec §3: regular or special). */
  special: count,
});
export type ConsumerSummary = z.infer<typeof ConsumerSummarySchema>;

export const ModuleSummarySchema = z.object({
  modules: count,
  byDeviceType: counted({ deviceType: z.number().int() }).describe(`Device types ${DEVICE_TYPES.join(', ')}`),
  byWorkingMode: counted({ workingMode: z.enum(WORKING_MODES) }),
});
export type ModuleSummary = z.infer<typeof ModuleSummarySchema>;

const energyDay = z.object({
  day: z.string(),
  /** The day's active import of the meters whose consumption is known, kWh (three decimals); null when none is. */
  value: z.number().nullable(),
  /** Meters whose consumption is known that day. */
  meters: count,
});
export const EnergySummarySchema = z.object({
  yesterday: energyDay,
  dayBefore: energyDay,
  /** This month so far: its first UTC day to today (a day's consumption is known once it has closed). */
  month: z.object({ startDay: z.string(), endDay: z.string(), value: z.number().nullable() }),
  /** This month's days, oldest first. */
  days: z.array(energyDay),
});
export type EnergySummary = z.infer<typeof EnergySummarySchema>;

export const CollectionKpiSchema = z.object({ yesterday: ReportDaySchema, today: ReportDaySchema });
export type CollectionKpi = z.infer<typeof CollectionKpiSchema>;

export const AlarmTrendSchema = z.object({
  /** The last ALARM_DAYS UTC days, oldest first, every day present. */
  days: z.array(z.object({ day: z.string(), regular: count, medium: count, severe: count })),
});
export type AlarmTrend = z.infer<typeof AlarmTrendSchema>;

export const OperationLogSchema = z.object({ list: z.array(SystemLogSchema) });
export type OperationLog = z.infer<typeof OperationLogSchema>;

const tag = 'dashboard';
const scopeNote = "within the caller's grid scope, from the rollups";
const card = (key: DashboardCard) => needsAll(RES.dashboard, DASHBOARD_CARDS[key]);

/** One call per card: a card whose figure fails or is slow leaves the others standing. */
export const dashboardApi = {
  alarms: defineOperation({
    path: '/dashboard/alarms',
    access: card('alarms'),
    tag,
    summary: `dashboard: severe meter events of the last ${ALARM_DAYS} UTC days in the caller's grid scope, newest first, a page at a time (at most ${MAX_ALARM_PAGES} pages)`,
    request: AlarmQuerySchema,
    response: AlarmPageSchema,
  }),
  archive: defineOperation({
    path: '/dashboard/archive',
    access: card('archive'),
    tag,
    summary: `dashboard: grid nodes, DCUs and meters by status, ${scopeNote} (archive counts kept per grid node)`,
    request: NoFilters,
    response: ArchiveSummarySchema,
  }),
  consumers: defineOperation({
    path: '/dashboard/consumers',
    access: card('consumers'),
    tag,
    summary: `dashboard: consumers by type and payment mode, and the special ones, ${scopeNote}`,
    request: NoFilters,
    response: ConsumerSummarySchema,
  }),
  modules: defineOperation({
    path: '/dashboard/modules',
    access: card('modules'),
    tag,
    summary: `dashboard: communication modules by device type and working mode, ${scopeNote}`,
    request: NoFilters,
    response: ModuleSummarySchema,
  }),
  energy: defineOperation({
    path: '/dashboard/energy',
    access: card('energy'),
    tag,
    summary: `dashboard: active energy imported yesterday, the day before and this month so far (UTC days), ${scopeNote}`,
    request: NoFilters,
    response: EnergySummarySchema,
  }),
  collection: defineOperation({
    path: '/dashboard/collection',
    access: card('collection'),
    tag,
    summary: `dashboard: read success of today (the intervals ended so far) and yesterday, as the data collection report counts it, ${scopeNote}`,
    request: NoFilters,
    response: CollectionKpiSchema,
  }),
  alarmTrend: defineOperation({
    path: '/dashboard/alarmtrend',
    access: card('alarmTrend'),
    tag,
    summary: `dashboard: meter events per UTC day and level over the last ${ALARM_DAYS} days, ${scopeNote}`,
    request: NoFilters,
    response: AlarmTrendSchema,
  }),
  operations: defineOperation({
    path: '/dashboard/operations',
    access: card('operations'),
    tag,
    summary: `dashboard: the latest ${OPERATION_LOG_ROWS} operation-log entries the caller may read in the system log`,
    request: NoFilters,
    response: OperationLogSchema,
  }),
} satisfies Record<DashboardCard, Operation>;
