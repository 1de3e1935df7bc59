import { type FilterDefinition, isDateRange, type PageQuery, RESULT } from '@meterdesk/contracts';
import { and, asc, desc, eq, gte, ilike, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { type AnyPgColumn, alias, type PgTable } from 'drizzle-orm/pg-core';
import { fieldError } from '../http/api-error';
import type { Executor } from './driver';
import { pageWindow } from './paging';
import { countRows, likeContains } from './rows';

/** A self-referencing table keyed by `id`: organisations, grid nodes, resources. */
export interface TreeTable {
  table: PgTable;
  /** The key (on the drizzle table) of the column holding the parent's id. */
  parentKey: string;
}

const columnsOf = (table: PgTable) => table as unknown as Record<string, AnyPgColumn>;

/**
 * `column` names one of `roots` or a node below them: one recursive query the database runs on
 * the parent index, never a walk in application code. Scope (organisation, grid) uses it too.
 */
export function inSubtree(column: AnyPgColumn | SQL, tree: TreeTable, roots: string | readonly string[]): SQL {
  const child = alias(tree.table, 'subtree_child');
  const id = columnsOf(tree.table).id;
  const childId = columnsOf(child).id;
  const childParent = columnsOf(child)[tree.parentKey];
  if (!id || !childId || !childParent) throw new Error(`tree ${tree.parentKey}: unknown column`);
  const start = typeof roots === 'string' ? sql`${id} = ${roots}` : inArray(id, [...roots]);
  return sql`${column} in (with recursive subtree(id) as (select ${id} from ${tree.table} where ${start} union all select ${childId} from ${tree.table} subtree_child join subtree on ${childParent} = subtree.id) select id from subtree)`;
}

/** What the server needs to know of an entity's list: its declared filters and sortable columns. */
export interface ListEntityShape {
  filters: readonly FilterDefinition[];
  sortable: readonly string[];
}

type ListFields<E extends ListEntityShape> = E['filters'][number]['field'] | E['sortable'][number];

export interface ListSpec<E extends ListEntityShape> {
  entity: E;
  /** The column behind every filtered and every sortable field; the compiler asks for each one. */
  columns: { [K in ListFields<E>]: AnyPgColumn | SQL };
  /** The tree of each `subtree` filter. */
  trees?: Partial<Record<E['filters'][number]['field'], TreeTable>>;
  /** The order without a `sortField`; a single term gets the tie-break after it. */
  defaultOrder: SQL | SQL[];
  /** Last key of every order, so that pages never overlap. */
  tieBreak: AnyPgColumn;
}

export const defineList = <E extends ListEntityShape>(spec: ListSpec<E>) => spec;

type Query = Record<string, unknown>;

function filterCondition<E extends ListEntityShape>(
  spec: ListSpec<E>,
  filter: FilterDefinition,
  q: Query,
): SQL | undefined {
  // A column or an expression; drizzle's operators take either, its overloads just cannot say so.
  const column = (spec.columns as Record<string, AnyPgColumn>)[filter.field];
  if (!column) throw new Error(`list ${filter.field}: no column declared`);
  if (isDateRange(filter)) {
    const from = q[filter.from];
    const to = q[filter.to];
    return and(
      typeof from === 'string' ? gte(column, new Date(from)) : undefined,
      typeof to === 'string' ? lt(column, new Date(to)) : undefined,
    );
  }
  const value = q[filter.field];
  if (value === undefined || value === '') return undefined;
  switch (filter.op) {
    case 'contains':
      return ilike(column, likeContains(String(value)));
    case 'equals':
      return eq(column, value);
    case 'in':
      return Array.isArray(value) && value.length > 0 ? inArray(column, value) : undefined;
    case 'subtree': {
      const tree = (spec.trees as Record<string, TreeTable> | undefined)?.[filter.field];
      if (!tree) throw new Error(`list ${filter.field}: no tree declared`);
      return inSubtree(column, tree, String(value));
    }
    default:
      throw new Error(`list ${filter.field}: unknown filter ${filter.op}`);
  }
}

/** The WHERE of a list: every declared filter the query sets, and the caller's scope. */
export function listWhere<E extends ListEntityShape>(
  spec: ListSpec<E>,
  q: Query,
  ...extra: (SQL | undefined)[]
): SQL | undefined {
  return and(...spec.entity.filters.map((f) => filterCondition(spec, f, q)), ...extra);
}

/** The ORDER BY of a list; the query schema already refused a `sortField` that is not sortable. */
export function listOrder<E extends ListEntityShape>(
  spec: ListSpec<E>,
  q: Pick<PageQuery, 'sortField' | 'sortOrder'>,
): SQL[] {
  const column = q.sortField ? (spec.columns as Record<string, AnyPgColumn | SQL>)[q.sortField] : undefined;
  if (!column) return Array.isArray(spec.defaultOrder) ? spec.defaultOrder : [spec.defaultOrder, asc(spec.tieBreak)];
  return [(q.sortOrder === 'descend' ? desc : asc)(column), asc(spec.tieBreak)];
}

export interface PageSource<R> {
  rows(where: SQL | undefined, orderBy: SQL[], limit: number, offset: number): Promise<R[]>;
  count(where: SQL | undefined): Promise<number>;
}

/** A select builder as a page reads it: filtered, ordered, cut. Each page needs a fresh one. */
interface PagedSelect<Row> {
  where(where: SQL | undefined): {
    orderBy(...orderBy: SQL[]): { limit(limit: number): { offset(offset: number): PromiseLike<Row[]> } };
  };
}

/**
 * The page source of most lists: rows from a fresh `select()`, each mapped by `map`, and the
 * total counted over `countFrom` (a function when the filters need a join to count).
 */
export function selectSource<Row, R>(
  db: Executor,
  source: {
    select: () => PagedSelect<Row>;
    map: (row: Row) => R;
    countFrom: PgTable | ((where: SQL | undefined) => Promise<number>);
  },
): PageSource<R> {
  const { select, map, countFrom } = source;
  return {
    rows: async (where, orderBy, limit, offset) =>
      (
        await select()
          .where(where)
          .orderBy(...orderBy)
          .limit(limit)
          .offset(offset)
      ).map(map),
    count: (where) => (typeof countFrom === 'function' ? countFrom(where) : countRows(db, countFrom, where)),
  };
}

/** One page of a declared list: rows and total of the same WHERE, with the paging asked for. */
export async function listPage<E extends ListEntityShape, R>(
  spec: ListSpec<E>,
  q: PageQuery & Query,
  source: PageSource<R>,
  ...scope: (SQL | undefined)[]
) {
  const where = listWhere(spec, q, ...scope);
  const { limit, offset } = pageWindow(q);
  const [list, total] = await Promise.all([source.rows(where, listOrder(spec, q), limit, offset), source.count(where)]);
  return { list, total, curPage: q.curPage, pageSize: q.pageSize };
}

/** A list read by cursor, newest first: `column` descending, then the tie-break descending. */
export interface Keyset<R> {
  column: AnyPgColumn;
  /** The cursor of a row: its `column` value and its tie-break id. */
  keyOf(row: R): [Date, string];
  /** Counting stops here; the answer says the total is capped. */
  countCap: number;
}

const encodeCursor = ([at, id]: [Date, string]) =>
  Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');

function decodeCursor(cursor: string): [Date, string] {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const date = new Date(String(at));
    if (typeof id === 'string' && id.length <= 64 && !Number.isNaN(date.getTime())) return [date, id];
  } catch {}
  throw fieldError(RESULT.badRequest, 'after', 'invalidValue');
}

/**
 * A page of a table that grows to millions of rows: without a `sortField` it pages by cursor
 * (`after`, read from the index whatever the depth) and counts only up to `countCap`.
 */
export async function keysetPage<E extends ListEntityShape, R>(
  spec: ListSpec<E>,
  q: PageQuery & Query & { after?: string | undefined },
  source: PageSource<R>,
  keyset: Keyset<R>,
  ...scope: (SQL | undefined)[]
) {
  const byCursor = q.sortField === undefined;
  const after = byCursor && q.after ? decodeCursor(q.after) : undefined;
  const where = listWhere(spec, q, ...scope);
  const page = after
    ? and(where, sql`(${keyset.column}, ${spec.tieBreak}) < (${after[0].toISOString()}::timestamptz, ${after[1]})`)
    : where;
  const { limit, offset } = pageWindow(q);
  const orderBy = byCursor ? [desc(keyset.column), desc(spec.tieBreak)] : listOrder(spec, q);
  const [rows, counted] = await Promise.all([
    source.rows(page, orderBy, limit + 1, after ? 0 : offset),
    source.count(where),
  ]);
  const list = rows.slice(0, limit);
  const last = list.at(-1);
  return {
    list,
    total: Math.min(counted, keyset.countCap),
    totalCapped: counted > keyset.countCap,
    curPage: q.curPage,
    pageSize: q.pageSize,
    ...(byCursor && rows.length > limit && last ? { nextCursor: encodeCursor(keyset.keyOf(last)) } : {}),
  };
}
