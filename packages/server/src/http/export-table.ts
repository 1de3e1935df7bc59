import { type EXPORT_FORMATS, MAX_PDF_ROWS } from '@meterdesk/contracts';
import { type ColumnText, formatMoment, translator } from '../i18n/labels';
import { type Download, streamWorkbook } from './export';
import { renderPdf } from './pdf';

/**
 * A table as the caller asked for it, named `<title>-<today>`: a workbook streamed while `rows` are read,
 * or an A4 PDF of the first MAX_PDF_ROWS rows, saying so when there are more. `rows(limit)` reads at most
 * `limit` rows: a PDF asks for one past its last to know whether it leaves rows out.
 */
export function exportTable<R>(options: {
  /** xlsx when none is given. */
  format?: (typeof EXPORT_FORMATS)[number] | undefined;
  language: number;
  title: string;
  /** The PDF's line under its title; by default the moment of the export. */
  subtitle?: (exportedAt: string) => string;
  columns: ColumnText<R>[];
  rows: (limit: number) => AsyncIterable<R[]>;
  onError(err: unknown): void;
}): Promise<Download> | Download {
  const t = translator(options.language);
  const now = new Date();
  const filename = `${options.title}-${now.toISOString().slice(0, 10)}`;
  if (options.format === 'pdf') {
    const exportedAt = formatMoment(now.toISOString());
    const max = MAX_PDF_ROWS.toLocaleString(options.language === 2 ? 'zh-CN' : 'en');
    return renderPdf({
      filename: `${filename}.pdf`,
      title: options.title,
      subtitle: options.subtitle
        ? options.subtitle(exportedAt)
        : t('crud.exportDialog.exportedAt').replace('{{time}}', exportedAt),
      columns: options.columns,
      chunks: options.rows(MAX_PDF_ROWS + 1),
      maxRows: MAX_PDF_ROWS,
      moreRows: t('crud.exportDialog.moreRows').replaceAll('{{max}}', max),
    });
  }
  return streamWorkbook({
    filename: `${filename}.xlsx`,
    sheetName: options.title,
    columns: options.columns,
    chunks: options.rows(Number.POSITIVE_INFINITY),
    onError: options.onError,
  });
}

/** Pages of `read` until `limit` rows or the last page (one shorter than the chunk): an export's rows. */
export async function* pagedRows<R>(
  read: (curPage: number, pageSize: number) => Promise<{ list: R[] }>,
  limit: number,
  chunk = 500,
): AsyncGenerator<R[]> {
  let rows = 0;
  for (let curPage = 1; rows < limit; curPage++) {
    const page = await read(curPage, chunk);
    yield page.list;
    rows += page.list.length;
    if (page.list.length < chunk) return;
  }
}
