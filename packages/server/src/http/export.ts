import { PassThrough, type Readable } from 'node:stream';
import type { ColumnText } from '../i18n/labels';

/** A file to answer with (an export, an import's template): `registerDownload` sends it as an attachment. */
export interface Download {
  filename: string;
  contentType: string;
  body: Buffer | Readable;
}

/**
 * exceljs, loaded with the first workbook the server writes rather than at its start: its code
 * and sources hold several megabytes of heap that a server which never exports would carry for
 * nothing, and the garbage collector lets the heap grow in proportion to what it holds
 * (docs/architecture.md, "Imports").
 */
export const loadExcel = async () => (await import('exceljs')).default;

/** spec §9: spreadsheet export with 150 px columns (about 21 characters). */
const COLUMN_WIDTH = 21;
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * A title as Excel takes it for a sheet: at most 31 characters, none of `[]:*?/\`. A longer one
 * made exceljs write a workbook that Excel (and exceljs itself) refuses to open.
 */
const sheetName = (title: string) => title.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31);

/**
 * An .xlsx written while its rows are read: exceljs' streaming writer commits each row, so a
 * large export holds one chunk of rows in memory, not the workbook.
 */
export function streamWorkbook<R>(options: {
  filename: string;
  sheetName: string;
  columns: ColumnText<R>[];
  chunks: AsyncIterable<R[]>;
  onError(err: unknown): void;
}): Download {
  const stream = new PassThrough();
  const write = async () => {
    const ExcelJS = await loadExcel();
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true });
    const sheet = workbook.addWorksheet(sheetName(options.sheetName));
    sheet.columns = options.columns.map((c) => ({ header: c.title, key: c.key, width: COLUMN_WIDTH }));
    sheet.getRow(1).font = { bold: true };
    for await (const rows of options.chunks) {
      for (const row of rows) sheet.addRow(options.columns.map((c) => c.text(row))).commit();
    }
    sheet.commit();
    await workbook.commit();
  };
  write().catch((err) => {
    options.onError(err);
    stream.destroy(err instanceof Error ? err : new Error(String(err)));
  });
  return { filename: options.filename, contentType: XLSX_TYPE, body: stream };
}

/**
 * `Content-Disposition` for any file name: an ASCII fallback for old clients and the exact
 * name, Chinese included, in `filename*` (RFC 6266 / 5987).
 */
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const exact = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}
