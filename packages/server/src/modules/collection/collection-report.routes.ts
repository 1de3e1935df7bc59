import {
  collectionReportApi,
  type Page,
  type ReportDay,
  type ReportDcuRow,
  type ReportExport,
  type ReportGridRow,
  type ReportMeterRow,
  type ReportTable,
  type SilentFilters,
  type SilentGroup,
  type SilentGroupRow,
} from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { exportTable } from '../../http/export-table';
import { registerDownload, registerOperation } from '../../http/operation';
import { type ColumnText, translator } from '../../i18n/labels';
import { type Scope, scopeOf } from '../../rbac/scope';
import type { CollectionReportService } from './collection-report.service';

/** Rows an export reads at a time. */
const EXPORT_CHUNK = 1000;

type Row = ReportDay | ReportGridRow | ReportDcuRow | ReportMeterRow | SilentGroupRow;

const FIGURES = ['meters', 'expected', 'stored', 'successRate', 'metersComplete'] as const;
const COLUMNS: Record<ReportTable, readonly string[]> = {
  daily: ['day', ...FIGURES],
  grid: ['day', 'gridName', ...FIGURES],
  dcu: ['day', 'dcuNo', 'gridName', ...FIGURES],
  neverRead: ['devAddr', 'dcuNo', 'gridName', 'moduleType', 'supplierName', 'status'],
  stopped: ['devAddr', 'dcuNo', 'gridName', 'moduleType', 'supplierName', 'status', 'lastDay'],
};
const GROUP_COLUMNS = ['name', 'meters'] as const;

/** A group's name as the page shows it: a module type by its label, "none" for the meters without one. */
export function groupName(groupBy: SilentGroup, row: SilentGroupRow, t: (key: string) => string): string {
  if (row.key === null) return t(`silentMeters.none.${groupBy}`);
  if (groupBy === 'moduleType') return t(`module.deviceTypes.${row.key}`);
  return row.name ?? String(row.key);
}

/** The columns of a table (or of its groups) as the page shows them, in the caller's language. */
function columnsOf(table: ReportTable, language: number, groupBy?: SilentGroup): ColumnText<Row>[] {
  const t = translator(language);
  if (groupBy)
    return GROUP_COLUMNS.map((key) => ({
      key,
      title: t(key === 'name' ? `silentMeters.groupBy.${groupBy}` : 'silentMeters.meters'),
      text: (row) => (key === 'name' ? groupName(groupBy, row as SilentGroupRow, t) : (row as SilentGroupRow).meters),
    }));
  return COLUMNS[table].map((key) => ({
    key,
    title: t(
      key === 'moduleType' || key === 'supplierName' ? `silentMeters.fields.${key}` : `collectionReport.fields.${key}`,
    ),
    text: (row) => {
      const value = (row as Record<string, unknown>)[key];
      if (key === 'status') return t(`meter.statuses.${value}`);
      if (key === 'moduleType') return value === null ? '' : t(`module.deviceTypes.${value}`);
      if (key === 'gridName' && (row as ReportGridRow).own)
        return t('collectionReport.ownMeters').replace('{{name}}', String(value));
      return typeof value === 'number' ? value : String(value ?? '');
    },
  }));
}

/** /report/dataCollectionReport's calls. */
export function registerCollectionReportRoutes(
  app: FastifyInstance,
  deps: { db: Db; collectionReport: CollectionReportService },
): void {
  const { db, collectionReport: report } = deps;
  registerOperation(app, collectionReportApi.daily, async ({ body, session }) => {
    const period = report.period(body);
    return report.daily(await report.node(body.gridId, await scopeOf(db, session)), period);
  });
  registerOperation(app, collectionReportApi.byGrid, async ({ body, session }) => {
    const period = report.period(body);
    return report.byGrid(await report.node(body.gridId, await scopeOf(db, session)), period, body);
  });
  registerOperation(app, collectionReportApi.byDcu, async ({ body, session }) => {
    const period = report.period(body);
    const scope = await scopeOf(db, session);
    return report.byDcu(await report.node(body.gridId, scope), scope, period, body);
  });
  registerOperation(app, collectionReportApi.neverRead, async ({ body, session }) => {
    const scope = await scopeOf(db, session);
    return report.meters(await report.node(body.gridId, scope), scope, body, null, body);
  });
  registerOperation(app, collectionReportApi.stopped, async ({ body, session }) => {
    const scope = await scopeOf(db, session);
    return report.meters(await report.node(body.gridId, scope), scope, body, report.stoppedSince(body.days), body);
  });
  registerOperation(app, collectionReportApi.groups, async ({ body, session }) => {
    const scope = await scopeOf(db, session);
    const before = body.table === 'stopped' ? report.stoppedSince(body.days) : null;
    return report.groups(await report.node(body.gridId, scope), scope, body, before, body.groupBy, body);
  });

  registerDownload(app, collectionReportApi.export, async ({ body, session, req }) => {
    const { node, period, rows } = await exportRows(report, body, await scopeOf(db, session));
    const t = translator(session.language);
    const groupBy = SILENT.has(body.table) ? body.groupBy : undefined;
    const subtitle = period ? 'exportSubtitle' : body.table === 'stopped' ? 'stoppedSubtitle' : 'neverReadSubtitle';
    return exportTable({
      format: body.format,
      language: session.language,
      title: groupBy
        ? t(`silentMeters.exportNames.${body.table}`).replace('{{group}}', t(`silentMeters.groupBy.${groupBy}`))
        : t(`collectionReport.exportNames.${body.table}`),
      subtitle: (exportedAt) => {
        const texts: Record<string, string> = {
          node: node.name || t('collectionReport.allScope'),
          from: period?.startDay ?? '',
          to: period?.endDay ?? '',
          days: String(body.days),
          time: exportedAt,
        };
        return t(`collectionReport.${subtitle}`).replace(/\{\{(\w+)\}\}/g, (_, key: string) => texts[key] ?? '');
      },
      columns: columnsOf(body.table, session.language, groupBy),
      rows,
      onError: (err) => req.log.error({ err }, 'collection report export failed'),
    });
  });
}

const PERIOD_TABLES: ReadonlySet<ReportTable> = new Set(['daily', 'grid', 'dcu']);
const SILENT: ReadonlySet<ReportTable> = new Set(['neverRead', 'stopped']);

/**
 * The rows of one table, up to `limit`, a chunk at a time. The node and the period are settled here,
 * before the file's first byte goes out, so a refusal is still an answer the page can show.
 */
async function exportRows(report: CollectionReportService, body: ReportExport, scope: Scope) {
  const period = PERIOD_TABLES.has(body.table) ? report.period(body) : null;
  const node = await report.node(body.gridId, scope);
  const read = (curPage: number): Promise<Page<Row>> => {
    const page = { curPage, pageSize: EXPORT_CHUNK };
    if (body.table === 'grid' && period) return report.byGrid(node, period, page);
    if (body.table === 'dcu' && period) return report.byDcu(node, scope, period, page);
    const before = body.table === 'stopped' ? report.stoppedSince(body.days) : null;
    const filters: SilentFilters = body;
    if (body.groupBy) return report.groups(node, scope, page, before, body.groupBy, filters);
    return report.meters(node, scope, page, before, filters);
  };
  async function* rows(limit: number): AsyncGenerator<Row[]> {
    if (body.table === 'daily' && period) {
      yield (await report.daily(node, period)).days;
      return;
    }
    let delivered = 0;
    for (let curPage = 1; delivered < limit; curPage++) {
      const page = await read(curPage);
      yield page.list;
      delivered += page.list.length;
      if (page.list.length === 0 || delivered >= page.total) return;
    }
  }
  return { node, period, rows };
}
