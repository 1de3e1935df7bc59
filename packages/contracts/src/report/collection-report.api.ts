import { z } from 'zod';
import { EXPORT_FORMATS } from '../archive/archive-api';
import { DEVICE_TYPES, type METER_STATUSES } from '../archive/enums';
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

/**
 * What the never-read and stopped lists are grouped by, so a field crew gets its share: the DCU the
 * meters hang off, their module's type, their supplier, or the grid node they are placed on.
 */
export const SILENT_GROUPS = ['dcu', 'moduleType', 'supplier', 'grid'] as const;
export type SilentGroup = (typeof SILENT_GROUPS)[number];

/** A group's key as a filter of the meter list: null is the group of meters without one (no DCU, no module…). */
const silentFilters = {
  dcuId: IdSchema.nullable().optional().describe("The meters' DCU; null: direct meters (no DCU)"),
  moduleType: z
    .union(
      DEVICE_TYPES.map((value) => z.literal(value)),
      'invalidValue',
    )
    .nullable()
    .optional()
    .describe("Their module's device type; null: meters without a module"),
  supplierId: IdSchema.nullable().optional().describe('Their supplier; null: meters without one'),
  nodeId: IdSchema.optional().describe('The grid node they are placed on (that node only, not below it)'),
};
export type SilentFilters = { [K in keyof typeof silentFilters]?: z.infer<(typeof silentFilters)[K]> };
/** The keys of a group's meters, as `groups` answers them per SILENT_GROUPS entry. */
export const SILENT_GROUP_FILTERS: Record<SilentGroup, keyof SilentFilters> = {
  dcu: 'dcuId',
  moduleType: 'moduleType',
  supplier: 'supplierId',
  grid: 'nodeId',
};

export const MeterListQuerySchema = PageQuerySchema.extend({ gridId: period.gridId, ...silentFilters });
export const StoppedQuerySchema = MeterListQuerySchema.extend({ days: stoppedDays });
export type StoppedQuery = z.infer<typeof StoppedQuerySchema>;

export const SILENT_TABLES = ['neverRead', 'stopped'] as const;
export type SilentTable = (typeof SILENT_TABLES)[number];

export const SilentGroupsQuerySchema = StoppedQuerySchema.extend({
  table: z.enum(SILENT_TABLES, 'invalidValue').describe('Never read, or stopped for `days` days'),
  groupBy: z.enum(SILENT_GROUPS, 'invalidValue'),
});
export type SilentGroupsQuery = z.infer<typeof SilentGroupsQuerySchema>;

export const SilentGroupRowSchema = z.object({
  /** The group's filter value (SILENT_GROUP_FILTERS): an id, a module device type, or null for "none". */
  key: z.union([z.string(), z.number()]).nullable(),
  /** DCU number, supplier or grid node name; null for a module type (named by its label) or "none". */
  name: z.string().nullable(),
  meters: z.number().int(),
});
export type SilentGroupRow = z.infer<typeof SilentGroupRowSchema>;

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
  /** Its module's device type; null without a module. */
  moduleType: z.number().int().nullable(),
  supplierName: z.string().nullable(),
  /** The last UTC day with an interval stored; null for a meter never read. */
  lastDay: z.string().nullable(),
});
export type ReportMeterRow = z.infer<typeof ReportMeterRowSchema>;

export const ReportExportSchema = z.strictObject({
  table: z.enum(REPORT_TABLES, 'invalidValue'),
  format: z.enum(EXPORT_FORMATS, 'invalidValue').default('xlsx'),
  ...period,
  days: stoppedDays,
  ...silentFilters,
  groupBy: z
    .enum(SILENT_GROUPS, 'invalidValue')
    .optional()
    .describe('The never-read or stopped table as its groups with their counts, rather than its meters'),
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
  groups: defineOperation({
    path: '/collectionreport/silentgroups',
    access,
    tag,
    summary: `collection report: the never-read or stopped meters (as neverread and stopped list them, with their filters) counted per DCU, module type, supplier or grid node, most meters first; ${scopeNote}`,
    request: SilentGroupsQuerySchema,
    response: pageOf(SilentGroupRowSchema),
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
