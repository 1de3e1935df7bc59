import { Column, getTableColumns, is, SQL } from 'drizzle-orm';
import { type AnyPgColumn, getTableConfig, IndexedColumn, PgColumn, type PgTable } from 'drizzle-orm/pg-core';

/**
 * Whether an index expression names `column` (`lower(column)`, or the column itself). An index holds
 * copies of the table's columns, made for its definition: they are known by name.
 */
function names(part: unknown, column: AnyPgColumn): boolean {
  if (is(part, Column) || is(part, IndexedColumn)) return part.name === column.name;
  return is(part, SQL) && part.queryChunks.some((chunk) => names(chunk, column));
}

/**
 * The name of the unique index that holds `column` alone: what a business key is enforced with, and
 * what a violation names. Throws when there is none, so a key declared unique in the contract but not
 * in the table fails at start-up rather than at the first race.
 */
export function uniqueIndexOf(table: PgTable, column: AnyPgColumn): string {
  const { name, indexes } = getTableConfig(table);
  const found = indexes.find(
    ({ config }) => config.unique && config.columns.length === 1 && names(config.columns[0], column),
  );
  if (!found?.config.name) throw new Error(`${name}.${column.name} is declared unique but no unique index holds it`);
  return found.config.name;
}

/** The column of `table` stored under `key`, or an error naming both. */
export function columnOf(table: PgTable, key: string): AnyPgColumn {
  const column = (table as unknown as Record<string, unknown>)[key];
  if (!is(column, PgColumn)) throw new Error(`${getTableConfig(table).name} has no column ${key}`);
  return column;
}

/** The columns of `table` that a unique index holds alone: its business keys, as the database enforces them. */
export function uniqueColumns(table: PgTable): AnyPgColumn[] {
  const columns = Object.values(getTableColumns(table)) as AnyPgColumn[];
  return getTableConfig(table)
    .indexes.filter(({ config }) => config.unique && config.columns.length === 1)
    .flatMap(({ config }) => columns.filter((column) => names(config.columns[0], column)));
}
