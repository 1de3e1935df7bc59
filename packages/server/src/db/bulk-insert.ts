import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getTableColumns, getTableName } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgTable } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Db, Executor } from './executor';
import * as schema from './schema';

/** Rows per INSERT where COPY is not at hand: well under PostgreSQL's 65 535 parameters for wide rows. */
const CHUNK_ROWS = 500;

/** An array column's literal: `{"a","b"}`, each element quoted, its quotes and backslashes escaped. */
const arrayLiteral = (values: readonly unknown[]) =>
  `{${values.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/["\\]/g, (c) => `\\${c}`)}"`)).join(',')}}`;

/**
 * Times as text, by epoch milliseconds: a readings flush repeats few times (a profile push carries
 * the same 96 interval ends for each of its meters), and formatting one costs more than looking it up.
 */
const isoTexts = new Map<number, string>();
const ISO_TEXTS_MAX = 10_000;

function isoText(at: Date): string {
  const ms = at.getTime();
  let text = isoTexts.get(ms);
  if (text === undefined) {
    if (isoTexts.size >= ISO_TEXTS_MAX) isoTexts.clear();
    text = at.toISOString();
    isoTexts.set(ms, text);
  }
  return text;
}

/** A character COPY's text format escapes (ids and names hardly ever hold one). */
const COPY_SPECIAL = /[\\\t\n\r]/;

/** One value in COPY's text format: `\N` for null, backslash escapes for tab, newline and backslash. */
function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  // Numbers, booleans and times hold no character COPY escapes: most of a readings batch skips the scan.
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return isoText(value);
  const text = Array.isArray(value)
    ? arrayLiteral(value)
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);
  return COPY_SPECIAL.test(text)
    ? text.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c] ?? c)
    : text;
}

/** Rows as chunked multi-row INSERTs through any executor (PGlite, or inside a transaction). */
async function insertChunks<T extends PgTable>(db: Executor, table: T, rows: readonly T['$inferInsert'][]) {
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
    await db.insert(table).values(rows.slice(i, i + CHUNK_ROWS) as T['$inferInsert'][]);
  }
  return rows.length;
}

/**
 * Rows through COPY on one PostgreSQL connection (inside its transaction when one is open), into
 * `table` or into `into`, a table of the same columns (a staging table).
 */
async function copyRows<T extends PgTable>(
  client: pg.PoolClient,
  table: T,
  rows: readonly T['$inferInsert'][],
  into: string = getTableName(table),
  keys: readonly string[] = Object.keys(rows[0] ?? {}),
) {
  if (rows.length === 0) return 0;
  const columns = getTableColumns(table) as Record<string, { name: string; keyAsName: boolean }>;
  const names = keys.map((key) => {
    const column = columns[key];
    if (!column) throw new Error(`${getTableName(table)}: no column ${key}`);
    // The schema names columns by their keys and the driver snake-cases them (casing: 'snake_case').
    return column.keyAsName ? toSnakeCase(column.name) : column.name;
  });
  const sink = client.query(copyFrom(`COPY "${into}" (${names.map((n) => `"${n}"`).join(', ')}) FROM STDIN`));
  const lines = Readable.from(
    (function* () {
      // Lines gathered into ~64 KB messages: one CopyData message per row costs more than the row.
      let chunk = '';
      const last = keys.length - 1;
      for (const row of rows) {
        // A loop, not map and join: no arrays per row, where a readings flush is thousands of rows.
        for (let i = 0; i <= last; i++)
          chunk += copyText((row as Record<string, unknown>)[keys[i] as string]) + (i === last ? '\n' : '\t');
        if (chunk.length >= 65_536) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    })(),
  );
  await pipeline(lines, sink);
  return rows.length;
}

/**
 * Writes many rows at once: COPY on PostgreSQL (the readings of a million meters arrive this way),
 * chunked multi-row INSERTs on PGlite. Column defaults apply to keys a row leaves out only on the
 * INSERT path, so callers give every column they mean to set on every row.
 */
export async function bulkInsert<T extends PgTable>(
  target: { db: Db; pool: pg.Pool | null },
  table: T,
  rows: readonly T['$inferInsert'][],
): Promise<number> {
  if (rows.length === 0) return 0;
  if (!target.pool) return insertChunks(target.db, table, rows);
  const client = await target.pool.connect();
  try {
    return await copyRows(client, table, rows);
  } finally {
    client.release();
  }
}

/** What an all-or-nothing write gets: queries and bulk rows on one transaction. */
export interface AtomicWriter {
  tx: Executor;
  /** Many rows at once inside the transaction: COPY on PostgreSQL, chunked INSERTs on PGlite. */
  bulk<T extends PgTable>(table: T, rows: readonly T['$inferInsert'][]): Promise<number>;
  /**
   * Rows of `table`'s shape through COPY into `into`, `table` itself or a table of the same columns (a
   * staging table made in the transaction): every column, a value a row leaves out as null, a field
   * no column has ignored. Null on PGlite, which has no COPY from a client stream.
   */
  copyInto: (<T extends PgTable>(table: T, rows: readonly T['$inferInsert'][], into: string) => Promise<number>) | null;
}

/**
 * Runs `work` in one transaction in which bulk rows go through COPY as well: an import of many
 * tables commits whole or not at all. drizzle's own transaction cannot lend its connection to COPY.
 */
export async function writeAtomically<R>(
  target: { db: Db; pool: pg.Pool | null },
  work: (writer: AtomicWriter) => Promise<R>,
): Promise<R> {
  if (!target.pool) {
    return target.db.transaction((tx) =>
      work({ tx, bulk: (table, rows) => insertChunks(tx, table, rows), copyInto: null }),
    );
  }
  const client = await target.pool.connect();
  try {
    const tx = drizzlePg(client, { schema, casing: 'snake_case' }) as unknown as Executor;
    await client.query('BEGIN');
    try {
      const result = await work({
        tx,
        bulk: (table, rows) => copyRows(client, table, rows),
        copyInto: (table, rows, into) => copyRows(client, table, rows, into, Object.keys(getTableColumns(table))),
      });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  } finally {
    client.release();
  }
}
