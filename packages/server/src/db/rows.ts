import { getTableName, inArray, SQL, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from './driver';
import { columnOf } from './unique-keys';

/** `count(*)` as a JavaScript number on both drivers (pg returns bigint as a string). */
export const countAll = () => sql<number>`count(*)`.mapWith(Number);

export const iso = (d: Date | null | undefined): string => (d ? d.toISOString() : '');

/** Escapes LIKE wildcards so a filter matches what the user typed. */
export const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** How many rows of `table` match. */
export async function countRows(db: Executor, table: PgTable, where: SQL | undefined): Promise<number> {
  const [row] = await db.select({ n: countAll() }).from(table).where(where);
  return row?.n ?? 0;
}

/** How many rows match, counting no further than `cap + 1`: enough to tell "more than cap". */
export async function countUpTo(db: Executor, table: PgTable, where: SQL | undefined, cap: number): Promise<number> {
  const matching = db
    .select({ one: sql`1` })
    .from(table)
    .where(where)
    .limit(cap + 1)
    .as('matching');
  const [row] = await db.select({ n: countAll() }).from(matching);
  return row?.n ?? 0;
}

/**
 * `"table"."column"` for a correlated subquery in a select list: drizzle writes a bare `"column"`
 * there when the query reads one table, which the subquery's own tables would capture. A column
 * named by its key is spelled as the database's snake_case casing spells it (`meterId` → `meter_id`).
 */
export const qualified = (column: AnyPgColumn): SQL =>
  sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.keyAsName ? toSnakeCase(column.name) : column.name)}`;

/**
 * `column` of the row whose `key` equals `ref` (a column of the outer query, or another lookup), as a
 * scalar subquery of a select list. A list shows its neighbours' names this way: the database looks
 * them up for the rows of the page alone, where joins may be planned over every row of the table.
 * `lookup<string>` for a reference that always finds its row (a required foreign key).
 */
export const lookup = <T extends string | null = string | null>(
  column: AnyPgColumn,
  key: AnyPgColumn,
  ref: AnyPgColumn | SQL,
) =>
  sql<
    NoInfer<T>
  >`(select ${qualified(column)} from ${column.table} where ${qualified(key)} = ${ref instanceof SQL ? ref : qualified(ref)})`;

/** Whether any row of `table` matches; stops at the first. */
export async function anyRow(db: Executor, table: PgTable, where: SQL | undefined): Promise<boolean> {
  const rows = await db.select({ one: sql`1` }).from(table).where(where).limit(1);
  return rows.length > 0;
}

/**
 * The ids of the rows whose `key` (the id, or another unique column: a code) is one of `values`, or
 * undefined when one of them names no row.
 */
export async function idsOf(db: Executor, key: AnyPgColumn, values: readonly string[]): Promise<string[] | undefined> {
  if (values.length === 0) return [];
  const id = columnOf(key.table as PgTable, 'id');
  const rows = await db
    .select({ id })
    .from(key.table)
    .where(inArray(key, [...values]));
  return rows.length === new Set(values).size ? rows.map((row) => String(row.id)) : undefined;
}

/** Rows of a raw statement; both drivers answer `{ rows }`. */
export async function rowsOf<T>(db: Executor, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * A write mapper stores every field of its input in a column of its own: `mapper(v) satisfies
 * EveryField<Input, typeof table.$inferInsert>` fails to compile when the contract gains a field the
 * mapper does not write, and when a field it writes (a spread included) has no column to go to, where
 * the insert would silently drop it. A field stored otherwise (a password as its hash) is left out of
 * `Input` by name.
 */
export type EveryField<V, Stored = Record<keyof V, unknown>> = {
  [K in keyof Required<V>]: K extends keyof Stored ? Stored[K] : never;
};
