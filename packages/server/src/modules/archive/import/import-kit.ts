import {
  type FieldOption,
  fieldMeta,
  type ImportError,
  type ImportStatus,
  type importApi,
  issueKey,
  MAX_IMPORT_ERRORS_LISTED,
  MAX_IMPORT_ROWS,
  type MessageKey,
  messageText,
  RESULT,
} from '@meterdesk/contracts';
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { AtomicWriter } from '../../../db/bulk-insert';
import type { Database, Executor } from '../../../db/driver';
import { newId } from '../../../db/ids';
import { archiveImport } from '../../../db/schema';
import { ApiError } from '../../../errors/api-error';
import { translator } from '../../../i18n/labels';
import { defineJob, type JobContext, type JobRecord } from '../../../jobs/job-system';
import { resolveScope, type Scope } from '../../../rbac/scope';
import { FirstLines } from './compact-strings';
import { columnLetter, Workbook } from './workbook';

/** A column of an import: its header key (the spec's headers are keys) and the label whose texts also head it. */
export interface ImportColumn {
  key: string;
  /** i18n key; the English and Chinese texts are accepted as the header, the user's language heads the template. */
  label: string;
  required?: boolean;
  /**
   * The field a cell converts as: a select's options (a switch's yes and no) are the values the
   * template lists and offers in a dropdown.
   */
  schema?: z.ZodType;
  /** i18n key of what a reference column names its record by (` (name or code)`), part of its header. */
  by?: string;
  /** The template's example row's cell; a column with allowed values shows its first one. */
  example?: string;
}

/** A data row by column key, with its Excel line. */
export interface ImportRow {
  line: number;
  cells: Record<string, string>;
}

/** How the error list names a column: the header the file gave it and its letter there. */
export interface FileColumn {
  header: string;
  letter: string;
}

/** A column by key as the file heads it; one the file lacks, by its template header and no letter. */
export type ColumnOf = (key: string) => FileColumn;

/** The column of a problem with the whole file or row. */
export const NO_COLUMN: FileColumn = { header: '', letter: '' };

export interface ImportContext {
  /** What a pass reads through: the database while checking, the import's transaction while writing. */
  db: Executor;
  scope: Scope;
  username: string;
  columnOf: ColumnOf;
}

/** The outcome of checking rows: the bad ones, or what to write. */
export type CheckResult<P> = { errors: ImportError[]; plan?: undefined } | { errors: []; plan: P };

/** Checks the rows of one chunk, in file order, against what the chunks before it held. */
export type ChunkCheck<P> = (rows: ImportRow[]) => Promise<CheckResult<P>>;

export interface ImportDefinition<P = unknown> {
  entity: string;
  api: ReturnType<typeof importApi>;
  columns: readonly ImportColumn[];
  /**
   * One pass over the file: values, references within the caller's scope, keys unique in the file
   * and the database. The check it gives takes the rows a chunk at a time and keeps only what later
   * chunks must know (the keys seen so far, the records the file makes); it writes nothing.
   */
  pass(ctx: ImportContext): ChunkCheck<P>;
  /** Writes one chunk's plan on the import's transaction; answers the rows written. */
  write(plan: P, writer: AtomicWriter, ctx: ImportContext): Promise<number>;
}

/** How a bad value reads in the error list: its column, message key and the value that was refused. */
export const importError = (
  line: number,
  column: FileColumn,
  code: MessageKey | string,
  value: string,
): ImportError => ({
  line,
  column: column.header,
  columnLetter: column.letter,
  code,
  cause: value === '' ? messageText(code) : `${messageText(code)}: ${value.slice(0, 100)}`,
});

const EN = translator(1);
const ZH = translator(2);
const normal = (text: string) => text.trim().toLowerCase();
/** A header as the template writes it may carry ' *' for a required column. */
const headerName = (text: string) => normal(text.replace(/\s*\*\s*$/, ''));

/** A column's header in a language, without the mark of a required one: its label and what it names a record by. */
export const columnTitle = (t: (key: string) => string, column: ImportColumn) =>
  t(column.label) + (column.by ? t(column.by) : '');

/** The headers a file may give a column: its key, and its label with or without what it names a record by. */
const headerNames = (column: ImportColumn) =>
  [EN, ZH].flatMap((t) => [t(column.label), columnTitle(t, column)]).concat(column.key);

// No first: the example row shows a switch off, as a record starts.
const SWITCH_CHOICES: readonly FieldOption[] = [
  { value: 0, label: 'common.no' },
  { value: 1, label: 'common.yes' },
];

/** The values a column allows, labelled: a single select's options, a switch's yes and no; none for free text. */
export function columnChoices(column: ImportColumn): readonly FieldOption[] | undefined {
  const meta = column.schema ? fieldMeta(column.schema) : undefined;
  if (meta?.widget === 'switch') return SWITCH_CHOICES;
  return meta?.widget === 'select' && !meta.multiple && meta.options?.length ? meta.options : undefined;
}

/** i18n key of the text that marks the template's example row: a row with it in a cell is not imported. */
export const EXAMPLE_MARK = 'crud.importExampleRow';
const EXAMPLE_MARKS = new Set([normal(EN(EXAMPLE_MARK)), normal(ZH(EXAMPLE_MARK))]);
const isExample = (cells: readonly string[]) => cells.some((cell) => EXAMPLE_MARKS.has(normal(cell)));

/** Rows checked, and then written, at a time: one query per reference and chunk, not per row. */
export const IMPORT_CHUNK = 1000;

/**
 * An uploaded workbook's data rows by column key. Its header row says which column is which (a
 * column's key, or its label in either language, with or without what a reference names its record
 * by; unknown headers are ignored); the rows are read
 * from the file again on every pass, a chunk at a time, so no more than a chunk of them is ever
 * held. Empty rows are skipped, and so is the template's example row (EXAMPLE_MARK in a cell), so
 * an operator who leaves it in imports no fake record.
 */
export class ImportFile {
  private constructor(
    private readonly workbook: Workbook,
    private readonly positions: Map<string, number>,
    readonly columnOf: ColumnOf,
    /** How many data rows the file seems to hold (empty ones included): the progress bar's first total. */
    readonly estimate: number,
  ) {}

  /** The file and its columns, or the required columns its header lacks. */
  static async open(
    content: Buffer,
    columns: readonly ImportColumn[],
    language: number,
  ): Promise<ImportFile | { errors: ImportError[] }> {
    const workbook = await Workbook.open(content);
    const rows = workbook.rows();
    const first = await rows.next();
    await rows.return(undefined);
    const header = first.done ? { line: 1, cells: [] } : first.value;

    const byName = new Map<string, ImportColumn>();
    for (const column of columns) {
      for (const name of headerNames(column)) byName.set(headerName(name), column);
    }
    const positions = new Map<string, number>();
    header.cells.forEach((text, index) => {
      const column = byName.get(headerName(text));
      if (column && !positions.has(column.key)) positions.set(column.key, index);
    });
    const t = translator(language);
    const labels = new Map(columns.map((c) => [c.key, columnTitle(t, c)]));
    const columnOf: ColumnOf = (key) => {
      const index = positions.get(key);
      if (index === undefined) return { header: labels.get(key) ?? key, letter: '' };
      return { header: header.cells[index] ?? key, letter: columnLetter(index + 1) };
    };
    const missing = columns.filter((c) => c.required && !positions.has(c.key));
    if (missing.length) {
      return { errors: missing.map((c) => importError(header.line, columnOf(c.key), 'importColumnMissing', c.key)) };
    }
    return new ImportFile(workbook, positions, columnOf, Math.max(0, (await workbook.countRows()) - 1));
  }

  /** The data rows, `size` at a time; refuses a file of more than MAX_IMPORT_ROWS. */
  async *chunks(size = IMPORT_CHUNK): AsyncGenerator<ImportRow[]> {
    let chunk: ImportRow[] = [];
    let count = 0;
    let header = true;
    for await (const { line, cells } of this.workbook.rows()) {
      if (header) {
        header = false;
        continue;
      }
      if (cells.every((c) => c === '') || isExample(cells)) continue;
      if (++count > MAX_IMPORT_ROWS) throw new ApiError(RESULT.badRequest, 'importTooManyRows');
      const byKey: Record<string, string> = {};
      for (const [key, index] of this.positions) byKey[key] = cells[index] ?? '';
      chunk.push({ line, cells: byKey });
      if (chunk.length === size) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length) yield chunk;
  }
}

/** A select field's cell: its value, or its label in either language. */
function choiceValue(meta: ReturnType<typeof fieldMeta>, text: string): unknown {
  for (const option of meta?.options ?? []) {
    if ([String(option.value), EN(option.label), ZH(option.label)].some((name) => normal(name) === normal(text))) {
      return option.value;
    }
  }
  return text;
}

const YES = new Set(['1', 'true', 'yes', 'y', '是', '√']);
const NO = new Set(['0', 'false', 'no', 'n', '否', '']);

/**
 * A cell as the create schema expects its field: numbers for number widgets, booleans for switches,
 * the value of a select option given by its label. What cannot convert is passed on for the schema
 * to refuse with its own message.
 */
export function cellValue(schema: z.ZodType | undefined, text: string): unknown {
  const meta = schema ? fieldMeta(schema) : undefined;
  switch (meta?.widget) {
    // An empty cell leaves the field to its default (null where the field may be empty).
    case 'number':
      return text === '' ? undefined : Number.isFinite(Number(text)) ? Number(text) : text;
    case 'switch': {
      const t = normal(text);
      return YES.has(t) ? true : NO.has(t) ? false : text;
    }
    case 'select':
      if (meta.multiple)
        return text === '' ? [] : text.split(/[,，;；\n]/).map((part) => choiceValue(meta, part.trim()));
      return text === '' ? undefined : choiceValue(meta, text);
    default:
      return text;
  }
}

/**
 * The rows whose value of a key column repeats an earlier row's, compared as the unique indexes
 * do, over the chunks of one pass: it remembers each value's first line.
 */
export function duplicatesInFile(keys: readonly string[], columnOf: ColumnOf): (rows: ImportRow[]) => ImportError[] {
  const seen = new Map(keys.map((key) => [key, new FirstLines()]));
  return (rows) => {
    const errors: ImportError[] = [];
    for (const [key, lines] of seen) {
      for (const row of rows) {
        const value = row.cells[key] ?? '';
        if (value === '') continue;
        const first = lines.firstOrAdd(normal(value), row.line);
        if (first !== undefined) {
          errors.push(importError(row.line, columnOf(key), 'importDuplicateInFile', `${value} (line ${first})`));
        }
      }
    }
    return errors;
  };
}

/** What `read` finds for the distinct lower-cased non-empty `values`, a thousand of them a query. */
export async function byChunks<T>(values: string[], read: (chunk: string[]) => PromiseLike<T[]>): Promise<T[]> {
  const wanted = [...new Set(values.filter((v) => v !== '').map(normal))];
  const found: T[] = [];
  for (let i = 0; i < wanted.length; i += 1000) found.push(...(await read(wanted.slice(i, i + 1000))));
  return found;
}

/** Which of `values` a business key column already holds (case-insensitive, as its unique index). */
export async function takenValues(db: Executor, table: PgTable, column: AnyPgColumn, values: string[]) {
  const taken = new Set<string>();
  const wanted = [...new Set(values.filter((v) => v !== '').map(normal))];
  for (let i = 0; i < wanted.length; i += 1000) {
    const rows = await db
      .select({ value: sql<string>`lower(${column})` })
      .from(table)
      .where(inArray(sql`lower(${column})`, wanted.slice(i, i + 1000)));
    for (const { value } of rows) taken.add(value);
  }
  return (value: string) => taken.has(normal(value));
}

/**
 * Ids by lower-cased business key for the keys the rows name, among the records `scope` admits:
 * a reference outside the caller's scope reads as unknown, like one that does not exist.
 */
export async function idsByKey(
  db: Executor,
  table: PgTable,
  key: AnyPgColumn,
  id: AnyPgColumn,
  names: string[],
  scope: ReturnType<typeof and> | undefined,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const wanted = [...new Set(names.filter((n) => n !== '').map(normal))];
  for (let i = 0; i < wanted.length; i += 1000) {
    const rows = await db
      .select({ key: sql<string>`lower(${key})`, id })
      .from(table)
      .where(and(inArray(sql`lower(${key})`, wanted.slice(i, i + 1000)), scope));
    for (const row of rows) found.set(row.key, String(row.id));
  }
  return found;
}

/** The schema's issues on a row, as import errors on the columns the fields came from. */
export function schemaErrors(
  issues: readonly z.core.$ZodIssue[],
  line: number,
  columnOf: (field: string) => FileColumn,
  cells: Record<string, string>,
  keyOf: (field: string) => string,
): ImportError[] {
  return issues.map((issue) => {
    const field = String(issue.path[0] ?? '');
    return importError(line, columnOf(field), issueKey(issue), cells[keyOf(field)] ?? '');
  });
}

/** The job that runs every import: one queue, the entity named in its data. */
export function importJob(database: Database, definitions: () => ReadonlyMap<string, ImportDefinition>) {
  return defineJob<{ importId: string }>({
    name: 'archive-import',
    concurrency: 1,
    retryLimit: 2,
    retryDelaySeconds: 5,
    expireInSeconds: 30 * 60,
    handler: async ({ importId }, job) => runImport(database, definitions(), importId, job),
  });
}

/** The errors of a file: every one counted, the first MAX_IMPORT_ERRORS_LISTED kept (chunks come in line order). */
class ErrorList {
  readonly listed: ImportError[] = [];
  count = 0;

  add(errors: readonly ImportError[]): void {
    this.count += errors.length;
    this.listed.push(...errors.slice(0, MAX_IMPORT_ERRORS_LISTED - this.listed.length));
  }
}

/** The refusal of a file as the error list's one entry (not a workbook, a zip bomb, too many rows). */
function refusal(err: unknown): ImportError {
  if (!(err instanceof ApiError)) {
    return importError(1, NO_COLUMN, 'importFileInvalid', 'the workbook cannot be read');
  }
  const detail = (err.data as { detail?: unknown } | null)?.detail;
  return importError(1, NO_COLUMN, err.key, typeof detail === 'string' ? detail : '');
}

/**
 * Runs an import in two passes over the file, a chunk of rows at a time. The first checks every
 * row and writes nothing; only when all are valid does the second check each chunk again — on one
 * transaction, so it sees what the chunks before it wrote — and write it there. That transaction
 * also marks the import done: a run cut off by a restart is simply run again, and either nothing
 * was written yet or the state already says `done`. A row the archive made invalid between the
 * passes rolls everything back; the job's retry checks again and names it.
 */
export async function runImport(
  database: Database,
  definitions: ReadonlyMap<string, ImportDefinition>,
  importId: string,
  job: Pick<JobContext, 'progress'>,
): Promise<void> {
  const { db } = database;
  const [task] = await db.select().from(archiveImport).where(eq(archiveImport.id, importId));
  if (!task || task.state === 'done' || task.state === 'failed' || !task.content) return;
  const definition = definitions.get(task.entity);
  if (!definition) throw new Error(`no import for ${task.entity}`);
  const update = (values: Partial<typeof archiveImport.$inferInsert>) =>
    db.update(archiveImport).set(values).where(eq(archiveImport.id, importId));
  const fail = async (errors: ErrorList, total: number) => {
    await update({
      state: 'failed',
      total,
      errorCount: errors.count,
      errors: errors.listed,
      content: null,
      finishTime: new Date(),
    });
    await job.progress({ done: total, total, state: 'failed' });
  };
  const failWith = (error: ImportError) => {
    const errors = new ErrorList();
    errors.add([error]);
    return fail(errors, 0);
  };

  await update({ state: 'reading' });
  let file: ImportFile;
  try {
    const opened = await ImportFile.open(task.content, definition.columns, task.language);
    if (!(opened instanceof ImportFile)) {
      const errors = new ErrorList();
      errors.add(opened.errors);
      return fail(errors, 0);
    }
    file = opened;
  } catch (err) {
    return failWith(refusal(err));
  }
  const scope = await resolveScope(db, task.userId);
  const context = (on: Executor): ImportContext => ({
    db: on,
    scope,
    username: task.username,
    columnOf: file.columnOf,
  });

  let total = file.estimate;
  await update({ state: 'checking', total, done: 0 });
  await job.progress({ done: 0, total, state: 'checking' });
  const errors = new ErrorList();
  let rows = 0;
  const check = definition.pass(context(db));
  try {
    for await (const chunk of file.chunks()) {
      errors.add((await check(chunk)).errors);
      rows += chunk.length;
      total = Math.max(total, rows);
      await update({ done: rows, total });
      await job.progress({ done: rows, total, state: 'checking' });
    }
  } catch (err) {
    // The reader refuses a broken file with an ApiError; anything else (the database) is the job's to retry.
    if (!(err instanceof ApiError)) throw err;
    return failWith(refusal(err));
  }
  if (rows === 0) return failWith(importError(2, NO_COLUMN, 'importNoRows', ''));
  if (errors.count) return fail(errors, rows);

  // The writing pass's progress goes to the browser only: its transaction holds the import's row.
  await update({ state: 'writing', total: rows, done: 0 });
  await job.progress({ done: 0, total: rows, state: 'writing' });
  const imported = await database.writeAtomically(async (writer) => {
    const [locked] = await writer.tx
      .select({ state: archiveImport.state })
      .from(archiveImport)
      .where(eq(archiveImport.id, importId))
      .for('update');
    if (locked?.state === 'done') return 0;
    const ctx = context(writer.tx);
    const again = definition.pass(ctx);
    let written = 0;
    let done = 0;
    for await (const chunk of file.chunks()) {
      const checked = await again(chunk);
      if (checked.plan === undefined) {
        throw new Error(
          `import ${importId}: the archive changed under line ${checked.errors[0]?.line}; checking again`,
        );
      }
      written += await definition.write(checked.plan, writer, ctx);
      done += chunk.length;
      await job.progress({ done, total: rows, state: 'writing' });
    }
    await writer.tx
      .update(archiveImport)
      .set({ state: 'done', done: rows, imported: written, content: null, finishTime: new Date() })
      .where(eq(archiveImport.id, importId));
    return written;
  });
  await job.progress({ done: rows, total: rows, state: 'done', imported });
}

/** What the job system says of an import's job: null when it knows no such job any more. */
export type JobStateOf = (jobId: string) => Promise<{ state: JobRecord['state'] } | null>;

const JOB_GAVE_UP: ReadonlySet<string> = new Set(['failed', 'cancelled']);

/**
 * An unfinished import whose job has given up (its retries spent: the database failed each time, or
 * restarts cut off every run) is failed for good, so its dialog does not wait forever. Nothing was
 * written: the write and the `done` state are one transaction.
 */
async function settleAbandoned(db: Executor, status: ImportStatus, jobStateOf: JobStateOf): Promise<boolean> {
  if (status.state === 'done' || status.state === 'failed') return false;
  const job = status.jobId ? await jobStateOf(status.jobId) : null;
  if (job && !JOB_GAVE_UP.has(job.state)) return false;
  const abandoned = importError(1, NO_COLUMN, 'importAbandoned', '');
  const settled = await db
    .update(archiveImport)
    .set({ state: 'failed', errorCount: 1, errors: [abandoned], content: null, finishTime: new Date() })
    .where(and(eq(archiveImport.id, status.importId), notInArray(archiveImport.state, ['done', 'failed'])))
    .returning({ id: archiveImport.id });
  return settled.length > 0;
}

/**
 * The status the dialog reads; only the user who started an import sees it. The upload itself is
 * left in the table: the dialog asks every few seconds, and a 20 MB file read each time would be
 * 40 MB of text to parse and drop.
 */
export async function importStatus(
  db: Executor,
  importId: string,
  username: string,
  jobStateOf: JobStateOf,
): Promise<ImportStatus | null> {
  const status = await readStatus(db, importId, username);
  if (status && (await settleAbandoned(db, status, jobStateOf))) return readStatus(db, importId, username);
  return status;
}

async function readStatus(db: Executor, importId: string, username: string): Promise<ImportStatus | null> {
  const [row] = await db
    .select({
      importId: archiveImport.id,
      jobId: archiveImport.jobId,
      state: archiveImport.state,
      fileName: archiveImport.fileName,
      total: archiveImport.total,
      done: archiveImport.done,
      imported: archiveImport.imported,
      errorCount: archiveImport.errorCount,
      errors: archiveImport.errors,
    })
    .from(archiveImport)
    .where(and(eq(archiveImport.id, importId), eq(archiveImport.username, username)));
  if (!row) return null;
  return { ...row, state: row.state as ImportStatus['state'], errors: row.errors as ImportError[] };
}

/** Keeps the upload and queues its job; the job id lets the browser follow `progress/{jobId}`. */
export async function startImport(
  database: Database,
  send: (importId: string, startedBy: string) => Promise<string>,
  upload: { entity: string; file: Buffer; fileName: string; userId: string; username: string; language: number },
): Promise<{ importId: string; jobId: string }> {
  const importId = newId();
  await database.db.insert(archiveImport).values({
    id: importId,
    entity: upload.entity,
    username: upload.username,
    userId: upload.userId,
    language: upload.language,
    fileName: upload.fileName.slice(0, 200),
    content: upload.file,
  });
  const jobId = await send(importId, upload.username);
  await database.db.update(archiveImport).set({ jobId }).where(eq(archiveImport.id, importId));
  return { importId, jobId };
}
