import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getTableColumns, getTableName } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { PgTable } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Db } from './driver';

/** Rows per INSERT where COPY is not at hand: well under PostgreSQL's 65 535 parameters for wide rows. */
const CHUNK_ROWS = 500;

/** One value in COPY's text format: `\N` for null, backslash escapes for tab, newline and backslash. */
function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text =
    value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c] ?? c);
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
  if (!target.pool) {
    for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
      await target.db.insert(table).values(rows.slice(i, i + CHUNK_ROWS) as T['$inferInsert'][]);
    }
    return rows.length;
  }
  const keys = Object.keys(rows[0] as object);
  const columns = getTableColumns(table) as Record<string, { name: string; keyAsName: boolean }>;
  const names = keys.map((key) => {
    const column = columns[key];
    if (!column) throw new Error(`${getTableName(table)}: no column ${key}`);
    // The schema names columns by their keys and the driver snake-cases them (casing: 'snake_case').
    return column.keyAsName ? toSnakeCase(column.name) : column.name;
  });
  const client = await target.pool.connect();
  try {
    const sink = client.query(
      copyFrom(`COPY "${getTableName(table)}" (${names.map((n) => `"${n}"`).join(', ')}) FROM STDIN`),
    );
    const lines = Readable.from(
      (function* () {
        for (const row of rows) {
          yield `${keys.map((k) => copyText((row as Record<string, unknown>)[k])).join('\t')}\n`;
        }
      })(),
    );
    await pipeline(lines, sink);
  } finally {
    client.release();
  }
  return rows.length;
}
