import { z } from 'zod';
import { EXPORT_FORMATS } from '../archive/archive-api';
import type { METER_STATUSES } from '../archive/enums';
import { DaySchema, INTERVALS_PER_DAY } from '../collection/readings.api';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { PageQuerySchema, pageOf } from '../common/paging';

const PAGE = '/report/dataCollectionReport';
export const COLLECTION_REPORT_RES = { page: PAGE, export: `${PAGE}/export` } as const;

/** spec §5: the report's period is limited to this many days (whole UTC days, both ends included). */
export const MAX_REPORT_DAYS = 31;
/** The period when none is given: the last 7 days up to today. */
export const DEFAULT_REPORT_DAYS = 7;
/** A meter is "stopped" when it has read before but stored no interval for this many days (and today). */
export const DEFAULT_STOPPED_DAYS = 3;
export const MAX_STOPPED_DAYS = 365;

/**
 * Meters expected to report: installed, activated and anomalous ones (an anomaly is a meter in the
 * field that misbehaves, exactly what the report must show). Warehouse, recycled and maintained
 * meters are not in service; virtual meters never report.
 */
export const REPORTING_METER_STATUSES = [1, 2, 3] as const satisfies readonly (typeof METER_STATUSES)[number][];

export const REPORT_TABLES = ['daily', 'grid', 'dcu', 'neverRead', 'stopped'] as const;
export type ReportTable = (typeof REPORT_TABLES)[number];

const period = {
  gridId: IdSchema.optional().describe("A grid node in the caller's scope; the caller's scope roots when absent"),
  startDay: DaySchema.optional().describe(`UTC day; with endDay, at most ${MAX_REPORT_DAYS} days, none after today`),
  endDay: DaySchema.optional().describe(
    `UTC day; the last ${DEFAULT_REPORT_DAYS} days up to today when both are absent`,
  ),
};
const stoppedDays = z
  .number('invalidValue')
  .int('invalidValue')
  .min(1, 'outOfRange')
  .max(MAX_STOPPED_DAYS, 'outOfRange')
  .default(DEFAULT_STOPPED_DAYS)
  .describe('Whole days before today (and today) with no interval stored');

export const ReportPeriodSchema = z.strictObject(period);
export type ReportPeriod = z.infer<typeof ReportPeriodSchema>;
export const ReportPageSchema = PageQuerySchema.extend(period);
export type ReportPage = z.infer<typeof ReportPageSchema>;
export const MeterListQuerySchema = PageQuerySchema.extend({ gridId: period.gridId });
export const StoppedQuerySchema = MeterListQuerySchema.extend({ days: stoppedDays });
export type StoppedQuery = z.infer<typeof StoppedQuerySchema>;

const figures = {
  meters: z.number().int().describe('Meters expected to report (REPORTING_METER_STATUSES, not virtual)'),
  expected: z.number().int().describe(`Load profile intervals expected: meters × ${INTERVALS_PER_DAY}`),
  stored: z.number().int().describe('Load profile intervals stored, from the rollups'),
  successRate: z.number().nullable().describe('stored ÷ expected, percent with one decimal; null when none expected'),
  metersComplete: z.number().int().describe(`Meters whose day holds all ${INTERVALS_PER_DAY} intervals`),
};

export const ReportDaySchema = z.object({ day: z.string(), ...figures });
export type ReportDay = z.infer<typeof ReportDaySchema>;
export const ReportDailySchema = z.object({ startDay: z.string(), endDay: z.string(), days: z.array(ReportDaySchema) });
export type ReportDaily = z.infer<typeof ReportDailySchema>;

export const ReportGridRowSchema = z.object({
  day: z.string(),
  gridId: IdSchema,
  gridName: z.string(),
  /** The chosen node's own meters (those placed on it, not below it). */
  own: z.boolean(),
  ...figures,
});
export type ReportGridRow = z.infer<typeof ReportGridRowSchema>;

export const ReportDcuRowSchema = z.object({
  day: z.string(),
  dcuId: IdSchema,
  dcuNo: z.string(),
  gridName: z.string(),
  ...figures,
});
export type ReportDcuRow = z.infer<typeof ReportDcuRowSchema>;

export const ReportMeterRowSchema = z.object({
  meterId: IdSchema,
  devAddr: z.string(),
  dcuNo: z.string().nullable(),
  gridName: z.string(),
  status: z.number().int(),
  /** The last UTC day with an interval stored; null for a meter never read. */
  lastDay: z.string().nullable(),
});
export type ReportMeterRow = z.infer<typeof ReportMeterRowSchema>;

export const ReportExportSchema = z.strictObject({
  table: z.enum(REPORT_TABLES, 'invalidValue'),
  format: z.enum(EXPORT_FORMATS, 'invalidValue').default('xlsx'),
  ...period,
  days: stoppedDays,
});
export type ReportExport = z.infer<typeof ReportExportSchema>;

const access = needs(COLLECTION_REPORT_RES.page);
const tag = 'collectionreport';
const scopeNote = "a node outside the caller's grid scope answers 404";

export const collectionReportApi = {
  daily: defineOperation({
    path: '/collectionreport/daily',
    access,
    tag,
    summary: `collection report: read success per day of the period for a grid node's subtree (rollups only); ${scopeNote}`,
    request: ReportPeriodSchema,
    response: ReportDailySchema,
  }),
  byGrid: defineOperation({
    path: '/collectionreport/bygrid',
    access,
    tag,
    summary: `collection report: read success per day and child grid node (each with its subtree, and the node's own meters), newest day first; ${scopeNote}`,
    request: ReportPageSchema,
    response: pageOf(ReportGridRowSchema),
  }),
  byDcu: defineOperation({
    path: '/collectionreport/bydcu',
    access,
    tag,
    summary: `collection report: read success per day and DCU placed in the grid node's subtree (all the DCU's meters), newest day first; ${scopeNote}`,
    request: ReportPageSchema,
    response: pageOf(ReportDcuRowSchema),
  }),
  neverRead: defineOperation({
    path: '/collectionreport/neverread',
    access,
    tag,
    summary: `collection report: meters expected to report that never stored an interval, by serial; ${scopeNote}`,
    request: MeterListQuerySchema,
    response: pageOf(ReportMeterRowSchema),
  }),
  stopped: defineOperation({
    path: '/collectionreport/stopped',
    access,
    tag,
    summary: `collection report: meters expected to report that stored intervals before but none in the last \`days\` days nor today, by serial; ${scopeNote}`,
    request: StoppedQuerySchema,
    response: pageOf(ReportMeterRowSchema),
  }),
  export: defineOperation({
    path: '/collectionreport/export',
    access: needs(COLLECTION_REPORT_RES.export),
    tag,
    summary: 'collection report: one of its tables (`table`) as filtered, as a spreadsheet or PDF',
    request: ReportExportSchema,
    response: z.unknown(),
  }),
};
