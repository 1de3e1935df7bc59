import {
  type ExportFormat,
  MAX_REPORT_PERIOD_DAYS,
  type Page,
  REPORT_CODED_COLUMNS,
  REPORT_COLUMNS,
  REPORT_RETENTION_DAYS,
  REPORT_SOURCES,
  RESULT,
  type ReportBuild,
  type ReportColumn,
  type ReportConditions,
  type ReportContent,
  type ReportKind,
  type ReportListQuery,
  type ReportRecord,
  type ReportRow,
  type ReportStatus,
} from '@meterdesk/contracts';
import { and, asc, desc, eq, getTableColumns, lte, sql } from 'drizzle-orm';
import { deleteInBatches } from '../../db/batch-delete';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { countRows, likeContains } from '../../db/rows';
import { billingReport, billingRule, powerGrid } from '../../db/schema';
import { fieldError, notFound } from '../../errors/api-error';
import type { Download } from '../../http/export';
import { exportTable } from '../../http/export-table';
import type { SessionContext } from '../../http/operation';
import { formatMoment, translator } from '../../i18n/labels';
import { defineJob, type JobLog, type JobSystem } from '../../jobs/job-system';
import { gridScope, type Scope, scopeOf } from '../../rbac/scope';
import { buildRows, ReportInputGone } from './billing-report-content';

export const BILLING_REPORT_JOB = 'billing-report-build';
export const BILLING_REPORT_PURGE_JOB = 'billing-report-purge';
/** A build still marked building after this long lost its job (its retries ran out): the purge fails it. */
export const STALE_BUILD_HOURS = 3;

const DAY_MS = 86_400_000;
type Row = typeof billingReport.$inferSelect;
// A list page reads the records without their rows (thousands of them for a fleet-wide report).
const { rows: _rows, ...recordColumns } = getTableColumns(billingReport);

function recordOf(row: Omit<Row, 'rows'>): ReportRecord {
  return {
    id: row.id,
    kind: row.kind as ReportKind,
    reportName: row.reportName,
    conditions: row.conditions as ReportConditions,
    status: row.status as ReportStatus,
    progress: row.progress,
    jobId: row.jobId,
    createTime: row.createTime.toISOString(),
    generateTime: row.generateTime?.toISOString() ?? null,
    deleteTime: row.deleteTime.toISOString(),
    failure: row.failure,
  };
}

const SORTS = {
  createTime: billingReport.createTime,
  reportName: billingReport.reportName,
  status: billingReport.status,
};

/** The billing report records of the four report pages, each page its own kind, within the caller's grid scope. */
export class BillingReportService {
  constructor(
    private readonly db: Db,
    private readonly jobs: JobSystem,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private inScope(kind: ReportKind, scope: Scope) {
    return and(eq(billingReport.kind, kind), gridScope(scope, billingReport.gridId));
  }

  async list(kind: ReportKind, q: ReportListQuery, session: SessionContext): Promise<Page<ReportRecord>> {
    const where = and(
      this.inScope(kind, await scopeOf(this.db, session)),
      q.reportName ? sql`${billingReport.reportName} ilike ${likeContains(q.reportName)}` : undefined,
      q.status ? eq(billingReport.status, q.status) : undefined,
    );
    const column = SORTS[q.sortField ?? 'createTime'];
    const direction = q.sortField && q.sortOrder === 'ascend' ? asc : desc;
    const [rows, total] = await Promise.all([
      this.db
        .select(recordColumns)
        .from(billingReport)
        .where(where)
        .orderBy(direction(column), desc(billingReport.id))
        .limit(q.pageSize)
        .offset((q.curPage - 1) * q.pageSize),
      countRows(this.db, billingReport, where),
    ]);
    return { list: rows.map(recordOf), total, curPage: q.curPage, pageSize: q.pageSize };
  }

  async rules(session: SessionContext): Promise<{ id: string; ruleName: string }[]> {
    return this.db
      .select({ id: billingRule.id, ruleName: billingRule.ruleName })
      .from(billingRule)
      .where(gridScope(await scopeOf(this.db, session), billingRule.gridId))
      .orderBy(asc(billingRule.ruleName));
  }

  /** The period as given: whole UTC days, none after today, at most MAX_REPORT_PERIOD_DAYS. */
  private period({ startDay, endDay }: ReportBuild) {
    const today = this.clock().toISOString().slice(0, 10);
    if (endDay > today) throw fieldError(RESULT.badRequest, 'endDay', 'dateAfterToday');
    if (startDay > endDay) throw fieldError(RESULT.badRequest, 'startDay', 'timeRangeInvalid');
    if ((Date.parse(endDay) - Date.parse(startDay)) / DAY_MS + 1 > MAX_REPORT_PERIOD_DAYS)
      throw fieldError(RESULT.badRequest, 'endDay', 'timeRangeTooLong');
    return { startDay, endDay };
  }

  /** What the report is built from, within the caller's scope (a rule or node outside answers 404). */
  private async source(kind: ReportKind, input: ReportBuild, scope: Scope) {
    if (REPORT_SOURCES[kind] === 'rule') {
      if (!input.ruleId) throw fieldError(RESULT.badRequest, 'ruleId', 'mandatory');
      const [rule] = await this.db
        .select({
          id: billingRule.id,
          ruleName: billingRule.ruleName,
          gridId: powerGrid.id,
          gridName: powerGrid.gridName,
        })
        .from(billingRule)
        .innerJoin(powerGrid, eq(powerGrid.id, billingRule.gridId))
        .where(and(eq(billingRule.id, input.ruleId), gridScope(scope, billingRule.gridId)));
      if (!rule) throw notFound();
      return { ruleId: rule.id, ruleName: rule.ruleName, gridId: rule.gridId, gridName: rule.gridName };
    }
    if (!input.gridId) throw fieldError(RESULT.badRequest, 'gridId', 'mandatory');
    const [node] = await this.db
      .select({ id: powerGrid.id, gridName: powerGrid.gridName })
      .from(powerGrid)
      .where(and(eq(powerGrid.id, input.gridId), gridScope(scope, powerGrid.id)));
    if (!node) throw notFound();
    return { ruleId: null, ruleName: null, gridId: node.id, gridName: node.gridName };
  }

  /**
   * Records the report as building and queues its job in the same transaction: the job runs only if
   * the record commits, and the record never waits for a job that was not queued.
   */
  async build(kind: ReportKind, input: ReportBuild, session: SessionContext): Promise<{ id: string; jobId: string }> {
    const period = this.period(input);
    const source = await this.source(kind, input, await scopeOf(this.db, session));
    const conditions: ReportConditions = { ...source, ...period };
    const id = newId();
    const now = this.clock();
    await this.db.insert(billingReport).values({
      id,
      kind,
      reportName: input.reportName,
      gridId: source.gridId,
      ruleId: source.ruleId,
      conditions,
      createdBy: session.userId,
      createTime: now,
      deleteTime: new Date(now.getTime() + REPORT_RETENTION_DAYS * DAY_MS),
    });
    const jobId = await this.jobs.send(BILLING_REPORT_JOB, { reportId: id }, { startedBy: session.username });
    await this.db.update(billingReport).set({ jobId }).where(eq(billingReport.id, id));
    return { id, jobId };
  }

  private async found(kind: ReportKind, id: string, session: SessionContext): Promise<Row> {
    const [row] = await this.db
      .select()
      .from(billingReport)
      .where(and(eq(billingReport.id, id), this.inScope(kind, await scopeOf(this.db, session))));
    if (!row) throw notFound();
    return row;
  }

  async content(kind: ReportKind, id: string, session: SessionContext): Promise<ReportContent> {
    const row = await this.found(kind, id, session);
    return { record: recordOf(row), columns: [...REPORT_COLUMNS[kind]], rows: (row.rows as ReportRow[] | null) ?? [] };
  }

  /** A completed report as xlsx or an A4 PDF (the list exports' renderer and its Chinese font). */
  async download(
    kind: ReportKind,
    id: string,
    format: ExportFormat,
    session: SessionContext,
    onError: (err: unknown) => void,
  ): Promise<Download> {
    const row = await this.found(kind, id, session);
    if (row.status !== 'completed') throw fieldError(RESULT.badRequest, 'id', 'reportNotCompleted');
    const t = translator(session.language);
    const rows = (row.rows as ReportRow[] | null) ?? [];
    const conditions = row.conditions as ReportConditions;
    const coded = new Set<string>(REPORT_CODED_COLUMNS);
    return exportTable<ReportRow>({
      format,
      language: session.language,
      title: row.reportName,
      subtitle: () => conditionsText(kind, conditions, t, formatMoment(row.generateTime?.toISOString() ?? '')),
      columns: REPORT_COLUMNS[kind].map((key: ReportColumn) => ({
        key,
        title: t(`billingReport.columns.${key}`),
        text: (r) => {
          const value = r[key] ?? '';
          return coded.has(key) && value !== '' ? t(`billingReport.roles.${value}`) : value;
        },
      })),
      rows: async function* (limit) {
        yield rows.slice(0, Number.isFinite(limit) ? limit : rows.length);
      },
      onError,
    });
  }
}

/** The build conditions as the list and the PDF's subtitle say them. */
function conditionsText(kind: ReportKind, c: ReportConditions, t: (key: string) => string, generated: string): string {
  const texts: Record<string, string> = {
    source: (REPORT_SOURCES[kind] === 'rule' ? c.ruleName : c.gridName) ?? '',
    from: c.startDay,
    to: c.endDay,
    time: generated,
  };
  return t(`billingReport.subtitle.${REPORT_SOURCES[kind]}`).replace(
    /\{\{(\w+)\}\}/g,
    (_, key: string) => texts[key] ?? '',
  );
}

/**
 * Builds one report. A failure of its input (the rule or node deleted since) or of the computation
 * fails the record at once with its reason; a run cut off by a stop or a killed server is run again
 * (`reclaimOnStart`) from the start, which is safe since it only reads and then writes the record once.
 * Progress goes to the record (the list shows it) and, live, to who asked for the report.
 */
export const billingReportJob = (db: Db, log: JobLog) =>
  defineJob<{ reportId: string }>({
    name: BILLING_REPORT_JOB,
    concurrency: 2,
    retryLimit: 3,
    retryDelaySeconds: 0,
    expireInSeconds: 60 * 60,
    reclaimOnStart: true,
    handler: async ({ reportId }, context) => {
      const [row] = await db.select().from(billingReport).where(eq(billingReport.id, reportId));
      if (row?.status !== 'building') return { skipped: true };
      const building = and(eq(billingReport.id, reportId), eq(billingReport.status, 'building'));
      let told = -1;
      const progress = async (done: number, total: number) => {
        const percent = total > 0 ? Math.min(99, Math.floor((done * 100) / total)) : 99;
        if (percent === told) return;
        told = percent;
        await db.update(billingReport).set({ progress: percent }).where(building);
        await context.progress({ reportId, done, total });
      };
      try {
        const rows = await buildRows(db, row.kind as ReportKind, row.conditions as ReportConditions, progress);
        await db
          .update(billingReport)
          .set({ status: 'completed', progress: 100, rows, generateTime: new Date() })
          .where(building);
        await context.progress({ reportId, done: 1, total: 1, status: 'completed' });
        return { rows: rows.length };
      } catch (err) {
        if (context.signal.aborted) throw err;
        const failure = err instanceof ReportInputGone ? err.key : 'reportBuildFailed';
        if (!(err instanceof ReportInputGone)) log.error({ err, reportId }, 'billing report failed');
        await db.update(billingReport).set({ status: 'failed', failure, generateTime: new Date() }).where(building);
        await context.progress({ reportId, done: 0, total: 0, status: 'failed' });
        return { failure };
      }
    },
  });

/**
 * Every ten minutes: removes the reports whose deletion time has come, and fails a build whose job is
 * gone (its retries ran out while servers were killed), so no record stays building for ever.
 */
export const billingReportPurgeJob = (db: Db) =>
  defineJob({
    name: BILLING_REPORT_PURGE_JOB,
    schedule: '*/10 * * * *',
    policy: 'stately',
    handler: async () => {
      const deleted = await deleteInBatches(
        db,
        billingReport,
        billingReport.id,
        lte(billingReport.deleteTime, sql`now()`),
      );
      const stale = await db
        .update(billingReport)
        .set({ status: 'failed', failure: 'reportInterrupted', generateTime: sql`now()` })
        .where(
          and(
            eq(billingReport.status, 'building'),
            lte(billingReport.createTime, sql`now() - make_interval(hours => ${STALE_BUILD_HOURS})`),
          ),
        )
        .returning({ id: billingReport.id });
      return { deleted, failed: stale.length };
    },
  });
