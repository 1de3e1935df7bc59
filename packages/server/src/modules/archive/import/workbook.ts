import { Readable } from 'node:stream';
import { MAX_IMPORT_UNPACKED_BYTES, RESULT } from '@meterdesk/contracts';
import ExcelJS from 'exceljs';
import { ApiError } from '../../../http/api-error';

const EOCD = 0x06054b50;
const CENTRAL_ENTRY = 0x02014b50;
const EOCD_MIN = 22;
/** The end record sits within the last 22 bytes plus a comment of at most 65 535. */
const EOCD_SEARCH = EOCD_MIN + 0xffff;

const refuse = (detail: string) => new ApiError(RESULT.badRequest, 'importFileInvalid', { detail });

/**
 * What a workbook unpacks to, from its zip central directory, before anything inflates it: a small
 * file that would expand to gigabytes (a zip bomb) is refused unread. Zip64 entries are refused as
 * well; no honest import comes near 4 GB.
 */
export function checkUnpackedSize(file: Buffer, limit = MAX_IMPORT_UNPACKED_BYTES): number {
  const start = Math.max(0, file.length - EOCD_SEARCH);
  let eocd = -1;
  for (let i = file.length - EOCD_MIN; i >= start; i--) {
    if (file.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw refuse('not an .xlsx workbook (no zip directory)');
  const entries = file.readUInt16LE(eocd + 10);
  let at = file.readUInt32LE(eocd + 16);
  let unpacked = 0;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > file.length || file.readUInt32LE(at) !== CENTRAL_ENTRY) throw refuse('a broken zip directory');
    const size = file.readUInt32LE(at + 24);
    if (size === 0xffffffff) throw refuse('a zip64 entry');
    unpacked += size;
    if (unpacked > limit) throw new ApiError(RESULT.badRequest, 'importFileTooLarge', { detail: 'unpacked size' });
    at += 46 + file.readUInt16LE(at + 28) + file.readUInt16LE(at + 30) + file.readUInt16LE(at + 32);
  }
  return unpacked;
}

/** A cell as text: formulas give their cached result (never evaluated), rich text its plain text. */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object') return String(value).trim();
  if ('formula' in value || 'sharedFormula' in value)
    return cellText((value as ExcelJS.CellFormulaValue).result ?? null);
  if ('richText' in value)
    return value.richText
      .map((part) => part.text)
      .join('')
      .trim();
  if ('text' in value) return cellText((value as ExcelJS.CellHyperlinkValue).text);
  if ('error' in value) return '';
  return '';
}

/** The first sheet's rows as text, read as a stream: the workbook is never held as objects. */
export async function* sheetRows(file: Buffer): AsyncGenerator<{ line: number; cells: string[] }> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([file]), {
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    worksheets: 'emit',
    entries: 'emit',
  });
  for await (const sheet of reader) {
    for await (const row of sheet) {
      const values = Array.isArray(row.values) ? row.values : [];
      // exceljs numbers cells from 1; position 0 is always empty.
      yield { line: row.number, cells: values.slice(1).map((v) => cellText(v as ExcelJS.CellValue)) };
    }
    return;
  }
}
