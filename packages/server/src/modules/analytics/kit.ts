import {
  type AnalyticsApi,
  type AnalyticsDefinition,
  type AnalyticsEntity,
  analyticsTitle,
  type Page,
  type Period,
  RESULT,
  resolvePeriod,
} from '@meterdesk/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { Db } from '../../db/driver';
import { inSubtree } from '../../db/list';
import { dcu, meter, powerGrid } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { exportTable, pagedRows } from '../../http/export-table';
import { registerDownload, registerOperation } from '../../http/operation';
import { entityColumns, translator } from '../../i18n/labels';
import { GRID_TREE, gridScope, type Scope, scopeOf } from '../../rbac/scope';

/** Rows an export reads at a time. */
const EXPORT_CHUNK = 1000;

/**
 * Where a request looks, settled before any figure is read: the grid subtree (the chosen node, or the
 * caller's scope), and the DCU, the meter and the consumer type it narrows to. A node, DCU or meter
 * outside the caller's scope is answered as one that does not exist, naming the field.
 */
export interface Place {
  /** Subtree roots; null: the whole grid (a caller holding everything, no node chosen). */
  roots: readonly string[] | null;
  dcuId?: string;
  meterId?: string;
  consumerType?: string;
}

export interface AnalyticsRequest {
  body: Record<string, unknown>;
  scope: Scope;
  period: Period;
  place: Place;
}

export interface PageRequest {
  curPage: number;
  pageSize: number;
  sortField?: string | undefined;
  sortOrder?: 'ascend' | 'descend' | undefined;
}

/** A page's queries: its rows a page at a time, and its summary figures with the chart's points. */
export interface AnalyticsQueries<Row, Figures, Point> {
  rows(request: AnalyticsRequest, page: PageRequest): Promise<Page<Row>>;
  summary(request: AnalyticsRequest): Promise<{ figures: Figures; points: Point[] }>;
}

/** The SQL condition that a grid column lies in the place's subtree (none for the whole grid). */
export function inPlace(place: Place, gridColumn: Parameters<typeof inSubtree>[0]) {
  return place.roots === null ? sql`true` : inSubtree(gridColumn, GRID_TREE, place.roots);
}

/** Settles the request's grid node, DCU and meter within the caller's scope (see `Place`). */
export async function resolvePlace(db: Db, scope: Scope, body: Record<string, unknown>): Promise<Place> {
  const place: Place = { roots: scope.all ? null : scope.gridIds };
  const gridId = body.gridId as string | undefined;
  if (gridId) {
    const [found] = await db
      .select({ id: powerGrid.id })
      .from(powerGrid)
      .where(and(eq(powerGrid.id, gridId), gridScope(scope, powerGrid.id)));
    if (!found) throw fieldError(RESULT.notFound, 'gridId', 'notFound');
    place.roots = [gridId];
  }
  const dcuId = body.dcuId as string | undefined;
  if (dcuId) {
    const [found] = await db
      .select({ id: dcu.id })
      .from(dcu)
      .where(and(eq(dcu.id, dcuId), gridScope(scope, dcu.gridId)));
    if (!found) throw fieldError(RESULT.notFound, 'dcuId', 'notFound');
    place.dcuId = dcuId;
  }
  const meterId = body.meterId as string | undefined;
  const devAddr = body.devAddr as string | undefined;
  if (meterId || devAddr) {
    const [found] = await db
      .select({ id: meter.id })
      .from(meter)
      .where(
        and(
          meterId ? eq(meter.id, meterId) : sql`lower(${meter.devAddr}) = lower(${devAddr})`,
          gridScope(scope, meter.gridId),
        ),
      );
    if (!found) throw fieldError(RESULT.notFound, meterId ? 'meterId' : 'devAddr', 'notFound');
    place.meterId = found.id;
  }
  const consumerType = body.consumerType as string | undefined;
  if (consumerType) place.consumerType = consumerType;
  return place;
}

/**
 * Registers an analytics page's calls (`analyticsApi`): list, summary and export, each reading the
 * period the request schema has already checked and the place settled in the caller's scope.
 */
export function registerAnalytics<E extends AnalyticsEntity, Sum extends z.ZodObject, Pt extends z.ZodObject>(
  app: FastifyInstance,
  db: Db,
  definition: AnalyticsDefinition<E, Sum, Pt>,
  api: AnalyticsApi,
  queries: AnalyticsQueries<Record<string, unknown>, z.output<Sum>, z.output<Pt>>,
): void {
  const { entity } = definition;
  const request = async (body: Record<string, unknown>, session: { userId: string }): Promise<AnalyticsRequest> => {
    const scope = await scopeOf(db, session);
    return { body, scope, period: resolvePeriod(definition.period, body), place: await resolvePlace(db, scope, body) };
  };

  registerOperation(app, api.list, async ({ body, session }) => {
    const input = body as Record<string, unknown> & PageRequest;
    return queries.rows(await request(input, session), input);
  });
  registerOperation(app, api.summary, async ({ body, session }) =>
    queries.summary(await request(body as Record<string, unknown>, session)),
  );
  registerDownload(app, api.export, async ({ body, session, req }) => {
    const input = body as Record<string, unknown> & {
      columns?: string[];
      format: 'xlsx' | 'pdf';
      sortField?: string;
      sortOrder?: 'ascend' | 'descend';
    };
    // Settled before the file's first byte goes out, so a refusal is still an answer the page can show.
    const settled = await request(input, session);
    const t = translator(session.language);
    // A page about now (period `none`) is told by the moment of the export alone.
    const period =
      definition.period.unit === 'none'
        ? ''
        : `${t('analytics.period')}: ${settled.period.start} – ${settled.period.end} · `;
    return exportTable({
      format: input.format,
      language: session.language,
      title: t(analyticsTitle(definition)),
      subtitle: (exportedAt) => `${period}${t('crud.exportDialog.exportedAt').replace('{{time}}', exportedAt)}`,
      columns: entityColumns<Record<string, unknown>>(
        entity,
        input.columns ?? entity.columns.map((c) => c.field),
        session.language,
      ),
      rows: (limit) =>
        pagedRows(
          (curPage, pageSize) =>
            queries.rows(settled, { curPage, pageSize, sortField: input.sortField, sortOrder: input.sortOrder }),
          limit,
          EXPORT_CHUNK,
        ),
      onError: (err) => req.log.error({ err }, `${entity.name} export failed`),
    });
  });
}
