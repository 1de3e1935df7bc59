import { z } from 'zod';
import { EXPORT_FORMATS } from '../archive/archive-api';
import { DaySchema } from '../collection/readings.api';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { PageQuerySchema, pageOf } from '../common/paging';
import { nameText } from '../common/validation';

/**
 * The four billing report pages share one kit: the same record list, build form, build job, screen
 * table and downloads; a kind differs only in what it is built from (a billing rule or a grid node)
 * and what its rows compute (billing-report.ts on the server says how).
 */
export const REPORT_KINDS = ['general', 'shoppingMall', 'shoppingCenter', 'shoppingEquipment'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

const AREA = '/paymentMGT';
export const BILLING_REPORT_RES = Object.fromEntries(
  REPORT_KINDS.map((kind) => {
    const page = `${AREA}/${kind}Report`;
    return [kind, { page, export: `${page}/export` }];
  }),
) as Record<ReportKind, { page: string; export: string }>;

/** A shopping mall or its equipment is billed by a rule; the general and shopping-center reports cover a grid node. */
export const REPORT_SOURCES = {
  general: 'grid',
  shoppingMall: 'rule',
  shoppingCenter: 'grid',
  shoppingEquipment: 'rule',
} as const satisfies Record<ReportKind, 'grid' | 'rule'>;

/** spec §4: a report is building until its job completes it or fails. */
export const REPORT_STATUSES = ['building', 'completed', 'failed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** A report is kept this many days after it was asked for (its estimated deletion time). */
export const REPORT_RETENTION_DAYS = 30;
/** The longest period a report covers, both ends included. */
export const MAX_REPORT_PERIOD_DAYS = 366;

/** The columns of each kind's rows, in order (labels: billingReport.columns.<key>). */
export const REPORT_COLUMNS = {
  general: ['devAddr', 'gridName', 'consumption', 'missingDays', 'energyAmount'],
  shoppingMall: [
    'devAddr',
    'role',
    'consumption',
    'missingDays',
    'energyAmount',
    'commonShare',
    'charge',
    'handlingFee',
    'taxes',
    'total',
  ],
  shoppingCenter: ['gridName', 'meters', 'consumption', 'missingDays', 'energyAmount'],
  shoppingEquipment: ['devAddr', 'role', 'day', 'consumption'],
} as const satisfies Record<ReportKind, readonly string[]>;
export type ReportColumn = (typeof REPORT_COLUMNS)[ReportKind][number];
/** Columns whose cell is a code the page names (billingReport.roles.<code>). */
export const REPORT_CODED_COLUMNS: readonly ReportColumn[] = ['role'];

/** A row's role in a shopping-mall or equipment report. */
export const REPORT_ROLES = ['main', 'tenant', 'solar', 'common', 'total'] as const;

/** What a report was built from, as the list shows it. */
export const ReportConditionsSchema = z.object({
  ruleId: IdSchema.nullable(),
  ruleName: z.string().nullable(),
  gridId: IdSchema.nullable(),
  gridName: z.string().nullable(),
  startDay: z.string(),
  endDay: z.string(),
});
export type ReportConditions = z.infer<typeof ReportConditionsSchema>;

export const ReportRecordSchema = z.object({
  id: IdSchema,
  kind: z.enum(REPORT_KINDS),
  reportName: z.string(),
  conditions: ReportConditionsSchema,
  status: z.enum(REPORT_STATUSES),
  /** Percent of the rows computed while building. */
  progress: z.number().int(),
  /** The pg-boss run that builds it: its progress is published on `progress/{jobId}` to who asked for it. */
  jobId: z.string().nullable(),
  createTime: z.string(),
  /** When the report was completed (or failed); null while building. */
  generateTime: z.string().nullable(),
  /** When the scheduled purge removes the record. */
  deleteTime: z.string(),
  /** Why it failed (a message key); null otherwise. */
  failure: z.string().nullable(),
});
export type ReportRecord = z.infer<typeof ReportRecordSchema>;

/** A cell: a text, a figure (kWh with three decimals, money with two), or empty. */
export const ReportCellSchema = z.union([z.string(), z.number(), z.null()]);
export const ReportRowSchema = z.record(z.string(), ReportCellSchema);
export type ReportRow = z.infer<typeof ReportRowSchema>;

export const ReportContentSchema = z.object({
  record: ReportRecordSchema,
  columns: z.array(z.string()),
  rows: z.array(ReportRowSchema),
});
export type ReportContent = z.infer<typeof ReportContentSchema>;

export const REPORT_SORTS = ['createTime', 'reportName', 'status'] as const;

export const ReportListQuerySchema = PageQuerySchema.extend({
  reportName: z.string().trim().max(100, 'tooLong').optional(),
  status: z.enum(REPORT_STATUSES, 'invalidValue').optional(),
  sortField: z.enum(REPORT_SORTS, 'invalidValue').optional(),
  sortOrder: z.enum(['ascend', 'descend'], 'invalidValue').optional(),
});
export type ReportListQuery = z.infer<typeof ReportListQuerySchema>;

const period = {
  startDay: DaySchema.describe(`UTC day; with endDay at most ${MAX_REPORT_PERIOD_DAYS} days, none after today`),
  endDay: DaySchema,
};
export const ReportBuildSchema = z.strictObject({
  reportName: nameText(100),
  ruleId: IdSchema.optional().describe('The billing rule (shopping mall and equipment reports)'),
  gridId: IdSchema.optional().describe('The grid node whose subtree is reported (general and shopping-center reports)'),
  ...period,
});
export type ReportBuild = z.infer<typeof ReportBuildSchema>;

export const ReportIdSchema = z.strictObject({ id: IdSchema });
export const ReportDownloadSchema = z.strictObject({
  id: IdSchema,
  format: z.enum(EXPORT_FORMATS, 'invalidValue').default('xlsx'),
});

const SEGMENT: Record<ReportKind, string> = {
  general: 'general',
  shoppingMall: 'shoppingmall',
  shoppingCenter: 'shoppingcenter',
  shoppingEquipment: 'shoppingequipment',
};

/** One kind's calls, each gated by its own page (and export button for the download). */
function reportOperations(kind: ReportKind) {
  const res = BILLING_REPORT_RES[kind];
  const base = `/billingreport/${SEGMENT[kind]}`;
  const access = needs(res.page);
  const tag = 'billingreport';
  const scopeNote = "a record, rule or grid node outside the caller's grid scope answers 404";
  return {
    list: defineOperation({
      path: `${base}/list`,
      access,
      tag,
      summary: `${kind} report: the report records within the caller's grid scope, newest first unless sorted`,
      request: ReportListQuerySchema,
      response: pageOf(ReportRecordSchema),
    }),
    build: defineOperation({
      path: `${base}/build`,
      access,
      tag,
      audit: 'add',
      summary: `${kind} report: records a report as building and queues the job that builds it from the rollups; ${scopeNote}`,
      request: ReportBuildSchema,
      response: z.object({ id: IdSchema, jobId: z.string() }),
    }),
    rules: defineOperation({
      path: `${base}/rules`,
      access,
      tag,
      summary: `${kind} report: the billing rules within the caller's grid scope, by name, for the build form`,
      request: z.strictObject({}),
      response: z.array(z.object({ id: IdSchema, ruleName: z.string() })),
    }),
    content: defineOperation({
      path: `${base}/content`,
      access,
      tag,
      summary: `${kind} report: a record and, once completed, its rows; ${scopeNote}`,
      request: ReportIdSchema,
      response: ReportContentSchema,
    }),
    download: defineOperation({
      path: `${base}/download`,
      access: needs(res.export),
      tag,
      summary: `${kind} report: a completed report as xlsx or an A4 PDF; ${scopeNote}`,
      request: ReportDownloadSchema,
      response: z.unknown(),
    }),
  };
}

export const billingReportApi = Object.fromEntries(
  REPORT_KINDS.map((kind) => [kind, reportOperations(kind)]),
) as Record<ReportKind, ReturnType<typeof reportOperations>>;
