import {
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
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { AtomicWriter } from '../../../db/bulk-insert';
import type { Database, Executor } from '../../../db/driver';
import { newId } from '../../../db/ids';
import { archiveImport } from '../../../db/schema';
import { ApiError } from '../../../http/api-error';
import { translator } from '../../../i18n/labels';
import { defineJob, type JobContext } from '../../../jobs/job-system';
import { resolveScope, type Scope } from '../../../rbac/scope';
import { checkUnpackedSize, sheetRows } from './workbook';

/** A column of an import: its header key (the spec's headers are keys) and the label whose texts also head it. */
export interface ImportColumn {
  key: string;
  /** i18n key; the English and Chinese texts are accepted as the header, the user's language heads the template. */
  label: string;
  required?: boolean;
}

/** A data row by column key, with its Excel line. */
export interface ImportRow {
  line: number;
  cells: Record<string, string>;
}

export interface ImportContext {
  /** Reads while checking (the write gets its own transaction). */
  db: Executor;
  scope: Scope;
  username: string;
  /** The header a column carries in the file, as the user wrote it (for the error list). */
  headerOf: HeaderOf;
  /** Reports how many rows are checked so far. */
  progress(done: number): Promise<void>;
}

/** The outcome of checking every row: the bad ones, or what to write. */
export type CheckResult<P> = { errors: ImportError[]; plan?: undefined } | { errors: []; plan: P };

export interface ImportDefinition<P = unknown> {
  entity: string;
  api: ReturnType<typeof importApi>;
  columns: readonly ImportColumn[];
  /** Checks every row (values, references within the caller's scope, keys unique in the file and the database). */
  check(rows: ImportRow[], ctx: ImportContext): Promise<CheckResult<P>>;
  /** Writes what `check` planned, on one transaction. */
  write(plan: P, writer: AtomicWriter, ctx: ImportContext): Promise<number>;
}

/** How a bad value reads in the error list: its message key and the value that was refused. */
export const importError = (line: number, column: string, code: MessageKey | string, value: string): ImportError => ({
  line,
  column,
  code,
  cause: value === '' ? messageText(code) : `${messageText(code)}: ${value.slice(0, 100)}`,
});

const EN = translator(1);
const ZH = translator(2);
const normal = (text: string) => text.trim().toLowerCase();
/** A header as the template writes it may carry ' *' for a required column. */
const headerName = (text: string) => normal(text.replace(/\s*\*\s*$/, ''));

/** Which column each header names (its key, or its label in either language); unknown headers are ignored. */
function matchHeaders(columns: readonly ImportColumn[], headers: string[]) {
  const byName = new Map<string, ImportColumn>();
  for (const column of columns) {
    for (const name of [column.key, EN(column.label), ZH(column.label)]) byName.set(headerName(name), column);
  }
  const positions = new Map<string, number>();
  const headerOf = new Map<string, string>();
  headers.forEach((header, index) => {
    const column = byName.get(headerName(header));
    if (column && !positions.has(column.key)) {
      positions.set(column.key, index);
      headerOf.set(column.key, header);
    }
  });
  return { positions, headerOf };
}

/** The header a column carries in the file (as the user wrote it), for the error list. */
export type HeaderOf = (key: string) => string;

/**
 * Reads an uploaded workbook into rows by column key, refusing what is not worth reading: a zip
 * bomb, a missing required column, too many rows. Empty rows are skipped.
 */
export async function readImport(
  file: Buffer,
  columns: readonly ImportColumn[],
): Promise<{ rows: ImportRow[]; headerOf: HeaderOf; errors: ImportError[] }> {
  checkUnpackedSize(file);
  const rows: ImportRow[] = [];
  let match: ReturnType<typeof matchHeaders> | undefined;
  try {
    for await (const { line, cells } of sheetRows(file)) {
      if (!match) {
        match = matchHeaders(columns, cells);
        const missing = columns.filter((c) => c.required && !match?.positions.has(c.key));
        if (missing.length) {
          return {
            rows: [],
            headerOf: (key) => key,
            errors: missing.map((c) => importError(line, EN(c.label), 'importColumnMissing', c.key)),
          };
        }
        continue;
      }
      if (cells.every((c) => c === '')) continue;
      if (rows.length >= MAX_IMPORT_ROWS) throw new ApiError(RESULT.badRequest, 'importTooManyRows');
      const byKey: Record<string, string> = {};
      for (const [key, index] of match.positions) byKey[key] = cells[index] ?? '';
      rows.push({ line, cells: byKey });
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(RESULT.badRequest, 'importFileInvalid', { detail: 'the workbook cannot be read' });
  }
  const headerOf = match?.headerOf;
  return { rows, headerOf: (key) => headerOf?.get(key) ?? key, errors: [] };
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

/** The rows whose value of `key` repeats an earlier row's, compared as the unique indexes do. */
export function duplicatesInFile(rows: ImportRow[], key: string, headerOf: HeaderOf): ImportError[] {
  const seen = new Map<string, number>();
  const errors: ImportError[] = [];
  for (const row of rows) {
    const value = row.cells[key] ?? '';
    if (value === '') continue;
    const first = seen.get(normal(value));
    if (first === undefined) seen.set(normal(value), row.line);
    else errors.push(importError(row.line, headerOf(key), 'importDuplicateInFile', `${value} (line ${first})`));
  }
  return errors;
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
  columnOf: (field: string) => string,
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

const PROGRESS_STEP = 2000;

/**
 * Reads, checks and — only when every row is valid — writes an import, all in one transaction
 * with the state that says it is done, so a run cut off by a restart is simply run again: either
 * nothing was written yet, or the state already says `done` and the rerun stops.
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
  const finish = async (errors: ImportError[], total: number) => {
    await update({
      state: 'failed',
      total,
      errorCount: errors.length,
      errors: errors.slice(0, MAX_IMPORT_ERRORS_LISTED),
      content: null,
      finishTime: new Date(),
    });
    await job.progress({ done: total, total, state: 'failed' });
  };

  await update({ state: 'reading' });
  let read: Awaited<ReturnType<typeof readImport>>;
  try {
    read = await readImport(task.content, definition.columns);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const detail = (err.data as { detail?: unknown } | null)?.detail;
    await finish([importError(1, '', err.key, typeof detail === 'string' ? detail : '')], 0);
    return;
  }
  if (read.errors.length) return finish(read.errors, 0);
  if (read.rows.length === 0) return finish([importError(2, '', 'importNoRows', '')], 0);

  const total = read.rows.length;
  await update({ state: 'checking', total, done: 0 });
  await job.progress({ done: 0, total, state: 'checking' });
  let reported = 0;
  const ctx: ImportContext = {
    db,
    scope: await resolveScope(db, task.userId),
    username: task.username,
    headerOf: read.headerOf,
    progress: async (done) => {
      if (done - reported < PROGRESS_STEP && done < total) return;
      reported = done;
      await update({ done });
      await job.progress({ done, total, state: 'checking' });
    },
  };
  const checked = await definition.check(read.rows, ctx);
  if (checked.plan === undefined) return finish(checked.errors, total);

  await update({ state: 'writing', done: total });
  await job.progress({ done: total, total, state: 'writing' });
  const imported = await database.writeAtomically(async (writer) => {
    const [locked] = await writer.tx
      .select({ state: archiveImport.state })
      .from(archiveImport)
      .where(eq(archiveImport.id, importId))
      .for('update');
    if (locked?.state === 'done') return 0;
    const written = await definition.write(checked.plan, writer, { ...ctx, db: writer.tx });
    await writer.tx
      .update(archiveImport)
      .set({ state: 'done', imported: written, content: null, finishTime: new Date() })
      .where(eq(archiveImport.id, importId));
    return written;
  });
  await job.progress({ done: total, total, state: 'done', imported });
}

/** The status the dialog reads; only the user who started an import sees it. */
export async function importStatus(db: Executor, importId: string, username: string): Promise<ImportStatus | null> {
  const [row] = await db
    .select()
    .from(archiveImport)
    .where(and(eq(archiveImport.id, importId), eq(archiveImport.username, username)));
  if (!row) return null;
  return {
    importId: row.id,
    jobId: row.jobId,
    state: row.state as ImportStatus['state'],
    fileName: row.fileName,
    total: row.total,
    done: row.done,
    imported: row.imported,
    errorCount: row.errorCount,
    errors: row.errors as ImportError[],
  };
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
