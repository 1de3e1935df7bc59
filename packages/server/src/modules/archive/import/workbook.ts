import { MAX_IMPORT_UNPACKED_BYTES, RESULT } from '@meterdesk/contracts';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { type Entry, fromBufferPromise, type ZipFile } from 'yauzl';
import { ApiError } from '../../../errors/api-error';
import { StringTable } from './compact-strings';

/*
 * The import's own reader of an uploaded `.xlsx`: its first sheet's rows as text, straight from the
 * zip. exceljs's streaming reader holds every shared string as a slice of the chunk it was parsed
 * from and spools a sheet stored before its shared strings to a temporary file; on a 100,000-row
 * meter file it added about 250 MB to the process, more than the import's whole memory budget
 * (docs/architecture.md, "Imports"). The upload is in memory anyway, so its zip directory (read by
 * yauzl) gives random access to each part: the shared strings are read first into one compact
 * table, then the sheet is inflated and parsed as a stream, as often as the import reads it.
 * exceljs still writes the templates and exports.
 */

const ROW_TAG = Buffer.from('<row');

const refuse = (detail: string) => new ApiError(RESULT.badRequest, 'importFileInvalid', { detail });

/** What yauzl or zlib could not read, as a refusal naming `what` and their reason. */
const unreadable = (what: string) => (err: unknown) =>
  err instanceof ApiError ? err : refuse(`${what} (${err instanceof Error ? err.message : String(err)})`);

/**
 * The zip directory of a workbook, read before anything inflates: a small file that would expand
 * to gigabytes (a zip bomb) is refused unread, and each entry is later held to the size it declares
 * here. yauzl's own size checks (`validateEntrySizes`) are off so that these two say which limit a
 * file broke: with them on, a stored entry whose sizes disagree is refused before its size is
 * counted, and an entry that inflates past its size fails in yauzl's words.
 */
async function zipDirectory(
  file: Buffer,
  limit = MAX_IMPORT_UNPACKED_BYTES,
): Promise<{ zip: ZipFile; entries: Map<string, Entry>; unpacked: number }> {
  try {
    const zip = await fromBufferPromise(file, { validateEntrySizes: false });
    const entries = new Map<string, Entry>();
    let unpacked = 0;
    for await (const entry of zip.eachEntry()) {
      unpacked += entry.uncompressedSize;
      if (unpacked > limit) throw new ApiError(RESULT.badRequest, 'importFileTooLarge', { detail: 'unpacked size' });
      entries.set(entry.fileName, entry);
    }
    return { zip, entries, unpacked };
  } catch (err) {
    throw unreadable('not an .xlsx workbook')(err);
  }
}

/** What a workbook unpacks to, from its zip directory alone; refuses a zip bomb. */
export const checkUnpackedSize = async (file: Buffer, limit = MAX_IMPORT_UNPACKED_BYTES): Promise<number> =>
  (await zipDirectory(file, limit)).unpacked;

/** An entry's bytes as they inflate, never more than its directory entry declared. */
async function* inflated(zip: ZipFile, entry: Entry): AsyncGenerator<Buffer> {
  const stream = await zip.openReadStreamPromise(entry).catch((err: unknown) => {
    throw unreadable('a zip entry that cannot be read')(err);
  });
  let total = 0;
  try {
    for await (const chunk of stream) {
      total += (chunk as Buffer).length;
      // A directory that understates an entry would let it inflate past the zip-bomb guard.
      if (total > entry.uncompressedSize) throw refuse('a zip entry larger than its directory says');
      yield chunk as Buffer;
    }
  } catch (err) {
    throw unreadable('a zip entry that does not inflate')(err);
  } finally {
    stream.destroy();
  }
}

/**
 * An XML part parsed as it inflates: `handle` gets saxes' tags and text synchronously, and the
 * items it pushes onto `out` are handed on after each chunk, so a caller's loop sets the pace.
 */
async function* parseXml<T>(
  zip: ZipFile,
  entry: Entry,
  handle: (parser: SaxesParser, out: T[]) => void,
): AsyncGenerator<T> {
  const parser = new SaxesParser({ position: false });
  let failure: Error | undefined;
  parser.on('error', (err) => {
    failure ??= err;
  });
  const out: T[] = [];
  handle(parser, out);
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of inflated(zip, entry)) {
    parser.write(decoder.decode(chunk, { stream: true }));
    if (failure) throw refuse(`broken XML: ${failure.message.slice(0, 100)}`);
    yield* out.splice(0);
  }
  parser.close();
  if (failure) throw refuse(`broken XML: ${failure.message.slice(0, 100)}`);
  yield* out.splice(0);
}

/** Attribute `name` of a tag parsed without namespaces (saxes keeps prefixed names as written). */
const attribute = (tag: SaxesTagPlain, name: string) => {
  const value = tag.attributes[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The text of string items (`<si>` of the shared strings, `<is>` of an inline cell): their `<t>`
 * runs joined, rich text included, the phonetic guide (`<rPh>`) left out. saxes takes one handler
 * per event, so the parser's handlers pass their events on to it.
 */
class StringItems {
  private inItem = false;
  private inText = false;
  private phonetic = 0;
  private text = '';

  constructor(
    private readonly item: string,
    private readonly done: (text: string) => void,
  ) {}

  open(tag: SaxesTagPlain): void {
    if (tag.name === this.item) {
      this.inItem = true;
      this.text = '';
    } else if (tag.name === 'rPh') this.phonetic++;
    else if (tag.name === 't' && this.inItem && this.phonetic === 0) this.inText = !tag.isSelfClosing;
  }

  add(text: string): void {
    if (this.inText) this.text += text;
  }

  close(tag: SaxesTagPlain): void {
    if (tag.name === 't') this.inText = false;
    else if (tag.name === 'rPh') this.phonetic--;
    else if (tag.name === this.item && this.inItem) {
      this.inItem = false;
      this.done(this.text);
    }
  }

  /** Hands a parser's events to this reader alone. */
  listen(parser: SaxesParser): void {
    parser.on('opentag', (tag) => this.open(tag));
    parser.on('text', (text) => this.add(text));
    parser.on('closetag', (tag) => this.close(tag));
  }
}

/** A column's number (1 = A) from a cell reference such as `AB12`; 0 when it names none. */
function columnNumber(ref: string): number {
  let n = 0;
  for (let i = 0; i < ref.length; i++) {
    const code = ref.charCodeAt(i);
    if (code < 65 || code > 90) break;
    n = n * 26 + code - 64;
  }
  return n;
}

/** A column's letters from its number (1 = A). */
export function columnLetter(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** A sheet row: its Excel line and its cells' text by column (index 0 is column A). */
export interface SheetRow {
  line: number;
  cells: string[];
}

/** V8 copies a substring shorter than this; a longer one is a view that keeps its whole parent alive. */
const SLICE_MIN = 13;

/**
 * Text parsed from the sheet as a string of its own: saxes hands out slices of the 64 KB chunk it
 * parsed, and one such slice kept in an import's set of keys would keep the whole chunk.
 */
const own = (text: string) => (text.length < SLICE_MIN ? text : Buffer.from(text, 'utf8').toString('utf8'));

/** What a number format shows of a serial: a date, a time of day, both, or the number itself. */
export type DateKind = 'date' | 'time' | 'dateTime' | null;

/** Excel's built-in formats that show a date or a time (the CJK ones included); the rest show numbers. */
function builtInDateKind(id: number): DateKind {
  if ((id >= 14 && id <= 17) || (id >= 27 && id <= 31) || (id >= 34 && id <= 36) || (id >= 50 && id <= 58))
    return 'date';
  if ((id >= 18 && id <= 21) || id === 32 || id === 33 || (id >= 45 && id <= 47)) return 'time';
  return id === 22 ? 'dateTime' : null;
}

/**
 * What a custom format code shows: its quoted text, escapes and `[colour]` sections aside (an
 * elapsed `[h]` is a time), `y` or `d` make it a date, `h` or `s` a time (`m` alone is either).
 */
export function formatDateKind(code: string): DateKind {
  const bare = code
    .replace(/"[^"]*"|\\.|_.|\*./g, '')
    .replace(/\[(h+|m+|s+)\]/gi, '$1')
    .replace(/\[[^\]]*\]/g, '')
    .toLowerCase();
  const date = /[yd]/.test(bare);
  const time = /[hs]/.test(bare);
  return date && time ? 'dateTime' : date ? 'date' : time ? 'time' : null;
}

/** Day 0 of the 1900 date system (as Excel counts it, past its leap-year slip) and of the 1904 one. */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** A serial as the text a user types for it: `2024-01-01`, `22:00`, `2024-01-01 08:30:15`. */
function serialText(serial: number, kind: Exclude<DateKind, null>, date1904: boolean): string {
  const seconds = Math.round(serial * 86_400);
  const at = new Date((date1904 ? EPOCH_1904 : EPOCH_1900) + seconds * 1000).toISOString();
  const day = at.slice(0, 10);
  const time = seconds % 60 === 0 ? at.slice(11, 16) : at.slice(11, 19);
  if (kind === 'date') return day;
  return kind === 'time' ? time : `${day} ${time}`;
}

/** How the sheet's numbers are shown: each cell style's date kind, and the workbook's date system. */
export interface NumberStyles {
  kinds: readonly DateKind[];
  date1904: boolean;
}

const NO_STYLES: NumberStyles = { kinds: [], date1904: false };

/**
 * A cell's text as the user sees it: a shared or inline string, a formula's cached result (never
 * evaluated), a number (as the date or time its format shows, so a time typed as 22:00 reads
 * `22:00`, not the day fraction 0.9166…), TRUE/FALSE as `true` / `false`, an error as nothing. Text
 * is trimmed.
 */
function cellText(
  type: string | undefined,
  value: string,
  inline: string,
  shared: StringTable,
  dateKind: DateKind = null,
  date1904 = false,
): string {
  switch (type) {
    case 's':
      return value === '' ? '' : shared.get(Number(value)).trim();
    case 'inlineStr':
      return own(inline.trim());
    case 'str':
    case 'd':
      return own(value.trim());
    case 'b':
      return value === '' ? '' : value.trim() === '0' ? 'false' : 'true';
    case 'e':
      return '';
    default: {
      if (value.trim() === '') return '';
      const number = Number.parseFloat(value);
      return dateKind && Number.isFinite(number) && number >= 0
        ? serialText(number, dateKind, date1904)
        : String(number);
    }
  }
}

/** The rows of a sheet part, each once its `</row>` is read. */
function sheetHandler(shared: StringTable, styles: NumberStyles) {
  return (parser: SaxesParser, out: SheetRow[]) => {
    let row: SheetRow | null = null;
    let cellColumn = 0;
    let cellType: string | undefined;
    let cellStyle = 0;
    let inValue = false;
    let value = '';
    let inline = '';
    let line = 0;
    parser.on('opentag', (tag) => {
      inlineString.open(tag);
      switch (tag.name) {
        case 'row': {
          const r = Number(attribute(tag, 'r'));
          line = Number.isInteger(r) && r > 0 ? r : line + 1;
          row = { line, cells: [] };
          cellColumn = 0;
          break;
        }
        case 'c': {
          const fromRef = columnNumber(attribute(tag, 'r') ?? '');
          cellColumn = fromRef > 0 ? fromRef : cellColumn + 1;
          cellType = attribute(tag, 't');
          cellStyle = Number(attribute(tag, 's') ?? 0);
          value = '';
          inline = '';
          break;
        }
        case 'v':
          inValue = !tag.isSelfClosing;
          break;
      }
    });
    parser.on('text', (chunk) => {
      if (inValue) value += chunk;
      else inlineString.add(chunk);
    });
    const inlineString = new StringItems('is', (text) => {
      inline = text;
    });
    parser.on('closetag', (tag) => {
      inlineString.close(tag);
      if (tag.name === 'v') inValue = false;
      else if (tag.name === 'c' && row) {
        const text = cellText(cellType, value, inline, shared, styles.kinds[cellStyle] ?? null, styles.date1904);
        if (text !== '') {
          while (row.cells.length < cellColumn - 1) row.cells.push('');
          row.cells[cellColumn - 1] = text;
        }
      } else if (tag.name === 'row' && row) {
        out.push(row);
        row = null;
      }
    });
  };
}

/** Where a relationship points, as a zip entry name (`xl/…`). */
const partName = (target: string) => (target.startsWith('/') ? target.slice(1) : `xl/${target}`);

/** The first sheet's part and the shared strings' part, as the workbook and its relationships name them. */
async function workbookParts(zip: ZipFile, entries: Map<string, Entry>) {
  const targets = new Map<string, string>();
  let sharedStrings = 'xl/sharedStrings.xml';
  let styles = 'xl/styles.xml';
  const rels = entries.get('xl/_rels/workbook.xml.rels');
  if (rels) {
    for await (const rel of parseXml<{ id: string; type: string; target: string }>(zip, rels, (parser, out) => {
      parser.on('opentag', (tag) => {
        if (tag.name !== 'Relationship') return;
        out.push({
          id: attribute(tag, 'Id') ?? '',
          type: attribute(tag, 'Type') ?? '',
          target: attribute(tag, 'Target') ?? '',
        });
      });
    })) {
      targets.set(rel.id, partName(rel.target));
      if (rel.type.endsWith('/sharedStrings')) sharedStrings = partName(rel.target);
      if (rel.type.endsWith('/styles')) styles = partName(rel.target);
    }
  }
  let sheet: string | undefined;
  let date1904 = false;
  const book = entries.get('xl/workbook.xml');
  if (book) {
    // workbookPr comes before the sheets: both are known once the first sheet is.
    for await (const id of parseXml<string>(zip, book, (parser, out) => {
      parser.on('opentag', (tag) => {
        if (tag.name === 'workbookPr') date1904 = ['1', 'true'].includes(attribute(tag, 'date1904') ?? '');
        if (tag.name === 'sheet') out.push(attribute(tag, 'r:id') ?? '');
      });
    })) {
      sheet = targets.get(id);
      break;
    }
  }
  return { sheet: sheet ?? 'xl/worksheets/sheet1.xml', sharedStrings, styles, date1904 };
}

/** Each cell style's date kind (`<cellXfs>` in order), from the built-in or the workbook's own formats. */
async function numberStyles(zip: ZipFile, entry: Entry | undefined, date1904: boolean): Promise<NumberStyles> {
  if (!entry) return { ...NO_STYLES, date1904 };
  const formats = new Map<number, string>();
  const kinds: DateKind[] = [];
  for await (const xf of parseXml<number>(zip, entry, (parser, out) => {
    let inCellXfs = false;
    parser.on('opentag', (tag) => {
      if (tag.name === 'numFmt') formats.set(Number(attribute(tag, 'numFmtId')), attribute(tag, 'formatCode') ?? '');
      else if (tag.name === 'cellXfs') inCellXfs = true;
      else if (tag.name === 'xf' && inCellXfs) out.push(Number(attribute(tag, 'numFmtId') ?? 0));
    });
    parser.on('closetag', (tag) => {
      if (tag.name === 'cellXfs') inCellXfs = false;
    });
  })) {
    const code = formats.get(xf);
    kinds.push(code === undefined ? builtInDateKind(xf) : formatDateKind(code));
  }
  return { kinds, date1904 };
}

/**
 * An uploaded workbook, ready to give its first sheet's rows as often as asked: the zip directory
 * checked (zip bomb), the shared strings read once into a compact table.
 */
export class Workbook {
  private constructor(
    private readonly zip: ZipFile,
    private readonly sheet: Entry,
    private readonly shared: StringTable,
    private readonly styles: NumberStyles,
  ) {}

  static async open(file: Buffer): Promise<Workbook> {
    const { zip, entries } = await zipDirectory(file);
    const parts = await workbookParts(zip, entries);
    const sheet = entries.get(parts.sheet);
    if (!sheet) throw refuse('no worksheet');
    const shared = new StringTable();
    const strings = entries.get(parts.sharedStrings);
    if (strings) {
      for await (const text of parseXml<string>(zip, strings, (parser, out) =>
        new StringItems('si', (t) => out.push(t)).listen(parser),
      )) {
        shared.add(text);
      }
    }
    return new Workbook(zip, sheet, shared, await numberStyles(zip, entries.get(parts.styles), parts.date1904));
  }

  /** The first sheet's rows in order, inflated and parsed as they are read. */
  rows(): AsyncGenerator<SheetRow> {
    return parseXml(this.zip, this.sheet, sheetHandler(this.shared, this.styles));
  }

  /**
   * How many rows the first sheet holds (the header and any empty ones included), counted on its
   * bytes without parsing them: a progress bar's total before the rows are read. A sheet's XML has
   * no other element starting `<row` followed by a space or `>`.
   */
  async countRows(): Promise<number> {
    const rowTags = (bytes: Buffer) => {
      let count = 0;
      for (let at = bytes.indexOf(ROW_TAG); at >= 0; at = bytes.indexOf(ROW_TAG, at + ROW_TAG.length)) {
        const next = bytes[at + ROW_TAG.length];
        if (next === 0x20 || next === 0x3e) count++;
      }
      return count;
    };
    let count = 0;
    let tail: Buffer = Buffer.alloc(0);
    for await (const chunk of inflated(this.zip, this.sheet)) {
      // A tag straddling two chunks is found where the previous chunk's end meets this one's start.
      count += rowTags(Buffer.concat([tail, chunk.subarray(0, ROW_TAG.length)])) + rowTags(chunk);
      tail = chunk.subarray(Math.max(0, chunk.length - ROW_TAG.length));
    }
    return count;
  }
}
