import { eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from './driver';
import { qualified } from './rows';
import { columnOf } from './unique-keys';

/**
 * A link table's two columns: whose links (`owner`, a user) and what they link to (`target`, a role).
 * Both belong to the same table.
 */
export interface Link {
  owner: AnyPgColumn;
  target: AnyPgColumn;
}

const keyOf = (column: AnyPgColumn) => {
  const found = Object.entries(getTableColumns(column.table as PgTable)).find(([, c]) => c === column);
  if (!found) throw new Error(`${column.name}: not a column of its table`);
  return found[0];
};

/**
 * The `value`s of what the outer query's row (`row`, its id column) links to, in value order: a column
 * of the link table itself (a user's role ids) or of the table the link names (its roles' names).
 */
function linkedValues(link: Link, row: AnyPgColumn, value: AnyPgColumn, aggregate: SQL, empty: SQL): SQL {
  const named =
    value.table === link.owner.table
      ? sql``
      : sql` join ${value.table} on ${columnOf(value.table as PgTable, 'id')} = ${link.target}`;
  return sql`coalesce((select ${aggregate} from ${link.owner.table}${named} where ${link.owner} = ${qualified(row)}), ${empty})`;
}

/** The linked values as a list (`'{}'` for none). */
export const linkedList = (link: Link, row: AnyPgColumn, value: AnyPgColumn) =>
  linkedValues(link, row, value, sql`array_agg(${value} order by ${value})`, sql`'{}'`) as SQL<string[]>;

/** The linked values as text, separated by commas (`''` for none). */
export const linkedText = (link: Link, row: AnyPgColumn, value: AnyPgColumn) =>
  linkedValues(link, row, value, sql`string_agg(${value}, ', ' order by ${value})`, sql`''`) as SQL<string>;

/** What `id` links to (a user's roles). */
export async function linkedIds(db: Executor, link: Link, id: string): Promise<Set<string>> {
  const rows = await db.select({ target: link.target }).from(link.owner.table).where(eq(link.owner, id));
  return new Set(rows.map((row) => String(row.target)));
}

/** Makes `targets` (each once) what `id` links to, in place of what it linked to before. */
export async function replaceLinks(db: Executor, link: Link, id: string, targets: readonly string[]): Promise<void> {
  const table = link.owner.table as PgTable;
  await db.delete(table).where(eq(link.owner, id));
  const distinct = [...new Set(targets)];
  const [owner, target] = [keyOf(link.owner), keyOf(link.target)];
  if (distinct.length) await db.insert(table).values(distinct.map((t) => ({ [owner]: id, [target]: t })));
}
