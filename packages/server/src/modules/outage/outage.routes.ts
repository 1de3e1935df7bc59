import { DARK_METER_COLUMNS, type DarkMeter, MAX_PDF_ROWS, outageApi } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { powerGrid } from '../../db/schema';
import { streamWorkbook } from '../../http/export';
import { registerDownload, registerOperation } from '../../http/operation';
import { renderPdf } from '../../http/pdf';
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
    const limit = body.format === 'pdf' ? MAX_PDF_ROWS + 1 : Number.POSITIVE_INFINITY;
    async function* chunks(): AsyncGenerator<DarkMeter[]> {
      let rows = 0;
      for (let curPage = 1; rows < limit; curPage++) {
        const page = await outages.meters(place, { curPage, pageSize: EXPORT_CHUNK });
        yield page.list;
        rows += page.list.length;
        if (page.list.length < EXPORT_CHUNK) return;
      }
    }
    const t = translator(session.language);
    const now = new Date();
    const title = t('outage.exportName');
    const filename = `${title}-${now.toISOString().slice(0, 10)}`;
    const columns = columnsOf(session.language);
    if (body.format === 'pdf') {
      const max = MAX_PDF_ROWS.toLocaleString(session.language === 2 ? 'zh-CN' : 'en');
      return renderPdf({
        filename: `${filename}.pdf`,
        title,
        subtitle: t('outage.exportSubtitle').replace('{{time}}', formatMoment(now.toISOString())),
        columns,
        chunks: chunks(),
        maxRows: MAX_PDF_ROWS,
        moreRows: t('crud.exportDialog.moreRows').replaceAll('{{max}}', max),
      });
    }
    return streamWorkbook({
      filename: `${filename}.xlsx`,
      sheetName: title,
      columns,
      chunks: chunks(),
      onError: (err) => req.log.error({ err }, 'outage export failed'),
    });
  });
}
