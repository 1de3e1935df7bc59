import { DARK_METER_COLUMNS, type DarkMeter, outageApi } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { powerGrid } from '../../db/schema';
import { exportTable, pagedRows } from '../../http/export-table';
import { registerDownload, registerOperation } from '../../http/operation';
import { type ColumnText, formatMoment, translator } from '../../i18n/labels';
import { scopeOf } from '../../rbac/scope';
import type { OutageService } from './outage.service';
import type { SimulatedOutages } from './simulated-outage';

/** Rows an export reads at a time. */
const EXPORT_CHUNK = 1000;

/** The dark meter list's columns as the panel shows them, in the caller's language. */
function columnsOf(language: number): ColumnText<DarkMeter>[] {
  const t = translator(language);
  return DARK_METER_COLUMNS.map((key) => ({
    key,
    title: t(`outage.fields.${key}`),
    text: (row) => (key === 'darkSince' ? formatMoment(row.darkSince) : row[key]),
  }));
}

export function registerOutageRoutes(
  app: FastifyInstance,
  deps: { db: Db; outages: OutageService; simulatedOutages: SimulatedOutages },
): void {
  const { db, outages } = deps;
  const placeOf = async (gridId: string | undefined, session: Parameters<typeof scopeOf>[1]) =>
    outages.place(gridId, await scopeOf(db, session));

  registerOperation(app, outageApi.summary, async ({ body, session }) =>
    outages.summary(await placeOf(body.gridId, session)),
  );
  registerOperation(app, outageApi.meters, async ({ body, session }) =>
    outages.meters(await placeOf(body.gridId, session), body),
  );
  registerOperation(app, outageApi.points, async ({ body, session }) =>
    outages.points(await placeOf(body.gridId, session), body),
  );
  registerOperation(app, outageApi.simulate, async ({ body, session, req }) => {
    // The operation log names the node, not its id.
    const [node] = await db.select({ name: powerGrid.gridName }).from(powerGrid).where(eq(powerGrid.id, body.gridId));
    if (node) req.auditNote = { gridName: node.name };
    return deps.simulatedOutages.power(await scopeOf(db, session), body.gridId, body.powered);
  });

  registerDownload(app, outageApi.export, async ({ body, session, req }) => {
    // Settled before the file's first byte, so a refused node is still an answer the page can show.
    const place = await placeOf(body.gridId, session);
    const t = translator(session.language);
    return exportTable({
      format: body.format,
      language: session.language,
      title: t('outage.exportName'),
      subtitle: (exportedAt) => t('outage.exportSubtitle').replace('{{time}}', exportedAt),
      columns: columnsOf(session.language),
      rows: (limit) =>
        pagedRows<DarkMeter>((curPage, pageSize) => outages.meters(place, { curPage, pageSize }), limit, EXPORT_CHUNK),
      onError: (err) => req.log.error({ err }, 'outage export failed'),
    });
  });
}
