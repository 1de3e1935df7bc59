import { type FilterDefinition, isDateRange, type PageQuery, RESULT } from '@meterdesk/contracts';
import { and, asc, desc, eq, getTableName, gte, ilike, inArray, lt, SQL, sql } from 'drizzle-orm';
import { type AnyPgColumn, alias, type PgTable } from 'drizzle-orm/pg-core';
import { fieldError } from '../errors/api-error';
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
 * The ids of `roots` and of every node below them: one recursive query the database runs on the
 * parent index, never a walk in application code. `union`, not `union all`: scope roots may lie
 * one below another, and each node is then walked once.
 */
export function subtreeIds(tree: TreeTable, roots: string | readonly string[]): SQL {
  const child = alias(tree.table, 'subtree_child');
  const id = columnsOf(tree.table).id;
  const childId = columnsOf(child).id;
  const childParent = columnsOf(child)[tree.parentKey];
  if (!id || !childId || !childParent) throw new Error(`tree ${tree.parentKey}: unknown column`);
  const start = typeof roots === 'string' ? sql`${id} = ${roots}` : inArray(id, [...roots]);
  return sql`with recursive subtree(id) as (select ${id} from ${tree.table} where ${start} union select ${childId} from ${tree.table} subtree_child join subtree on ${childParent} = subtree.id) select id from subtree`;
}

/** `column` names one of `roots` or a node below them. Scope (organisation, grid) uses it too. */
export function inSubtree(column: AnyPgColumn | SQL, tree: TreeTable, roots: string | readonly string[]): SQL {
  return sql`${column} in (${subtreeIds(tree, roots)})`;
}

/** What the server needs to know of an entity's list: its declared filters and sortable columns. */
export interface ListEntityShape {
  filters: readonly FilterDefinition[];
  sortable: readonly string[];
}

type ListFields<E extends ListEntityShape> = E['filters'][number]['field'] | E['sortable'][number];

/**
 * An `equals` filter answered by a condition of its own rather than by a column: a state kept in a
 * side table (`exists` on its index, which the planner can drive from when few rows match).
 */
export type FilterCondition = (value: unknown) => SQL;

export interface ListSpec<E extends ListEntityShape> {
  entity: E;
  /** The column behind every filtered and every sortable field; the compiler asks for each one. */
  columns: { [K in ListFields<E>]: AnyPgColumn | SQL };
  /**
   * `equals` filters answered by a condition of their own rather than by comparing their column: a
   * state kept in a side table, matched by `exists` on its index (which the planner can drive from
   * when few rows match, where a comparison would be evaluated row by row).
   */
  conditions?: Partial<Record<E['filters'][number]['field'], FilterCondition>>;
  /** The tree of each `subtree` filter. */
  trees?: Partial<Record<E['filters'][number]['field'], TreeTable>>;
  /**
   * The order without a `sortField`; a single term gets the tie-break after it. A `keyOrder` can
   * also be resumed from a cursor (`keysetPage`).
   */
  defaultOrder: SQL | SQL[] | KeyOrder;
  /** Last key of every order, so that pages never overlap. */
  tieBreak: AnyPgColumn;
  /**
   * Sortable columns (not nullable, of the list's own table) that indexes order as the default
   * key does: (column, tie-break) and, for a list placed in a tree, (node, column, tie-break). A sort
   * by one of them, or by the default order's first key either way, pages by cursor like the
   * default order; any other sort pages by offset.
   */
  indexedSorts?: readonly E['sortable'][number][];
}

export const defineList = <E extends ListEntityShape>(spec: ListSpec<E>) => spec;

/**
 * An order a cursor can resume: record fields and the columns behind them, all one direction, the
 * tie-break last, none of them nullable. A row comparison on them reads the matching index from
 * any depth, so the millionth row costs what the first does.
 */
export interface KeyOrder {
  keys: readonly { field: string; column: AnyPgColumn }[];
  descending: boolean;
}

/** `keyOrder({ devAddr: meter.devAddr, id: meter.id })`: the keys in the order written. */
export const keyOrder = (keys: Record<string, AnyPgColumn>, direction: 'asc' | 'desc' = 'asc'): KeyOrder => ({
  keys: Object.entries(keys).map(([field, column]) => ({ field, column })),
  descending: direction === 'desc',
});

const isKeyOrder = (order: ListSpec<ListEntityShape>['defaultOrder']): order is KeyOrder =>
  !(order instanceof SQL) && !Array.isArray(order);

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
  const condition = (spec.conditions as Record<string, FilterCondition> | undefined)?.[filter.field];
  if (condition) {
    if (filter.op !== 'equals') throw new Error(`list ${filter.field}: a condition answers equals only`);
    return condition(value);
  }
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
  if (!column) {
    const order = spec.defaultOrder;
    if (isKeyOrder(order)) return order.keys.map((k) => (order.descending ? desc : asc)(k.column));
    return Array.isArray(order) ? order : [order, asc(spec.tieBreak)];
  }
  return [(q.sortOrder === 'descend' ? desc : asc)(column), asc(spec.tieBreak)];
}

/** The key order of a page: the default order, or a sort that an index reads the same way; none for other sorts. */
function cursorOrder<E extends ListEntityShape>(
  spec: ListSpec<E>,
  q: Pick<PageQuery, 'sortField' | 'sortOrder'>,
): KeyOrder | undefined {
  const order = spec.defaultOrder;
  if (!isKeyOrder(order)) return undefined;
  if (q.sortField === undefined) return order;
  const descending = q.sortOrder === 'descend';
  if (order.keys[0]?.field === q.sortField) return { keys: order.keys, descending };
  const column = (spec.columns as Record<string, AnyPgColumn | SQL>)[q.sortField];
  const tieBreak = order.keys.at(-1);
  if (!spec.indexedSorts?.includes(q.sortField) || !column || column instanceof SQL || !tieBreak) return undefined;
  return { keys: [{ field: q.sortField, column }, tieBreak], descending };
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

/** A cursor holds the last row's key values; one that is not ours is refused naming `after`. */
const badCursor = () => fieldError(RESULT.badRequest, 'after', 'invalidValue');

/** A cursor belongs to the sort it was made in; another sort refuses it. */
const sortOf = (q: Pick<PageQuery, 'sortField' | 'sortOrder'>) =>
  q.sortField ? `${q.sortField} ${q.sortOrder ?? 'ascend'}` : '';

const keyValues = (order: KeyOrder, row: Record<string, unknown>) => order.keys.map((k) => row[k.field]);

const encodeCursor = (sort: string, order: KeyOrder, row: Record<string, unknown>) =>
  Buffer.from(JSON.stringify([sort, ...keyValues(order, row)])).toString('base64url');

/** The key values of a cursor (or of a row), each as its column's driver expects it. */
function driverValues(order: KeyOrder, values: unknown[]): unknown[] {
  if (values.length !== order.keys.length) throw badCursor();
  return order.keys.map(({ column }, i) => {
    const value: unknown = values[i];
    switch (column.dataType) {
      case 'date': {
        const date = typeof value === 'string' ? new Date(value) : undefined;
        if (date && !Number.isNaN(date.getTime())) return date;
        break;
      }
      case 'number':
        if (typeof value === 'number' && Number.isFinite(value)) return value;
        break;
      case 'string':
        if (typeof value === 'string' && value.length <= 500) return value;
        break;
    }
    throw badCursor();
  });
}

function decodeCursor(sort: string, order: KeyOrder, cursor: string): unknown[] {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(decoded) || decoded[0] !== sort) throw badCursor();
  return driverValues(order, decoded.slice(1));
}

/** The rows after the cursor's row in `order`: one row comparison the order's index answers. */
function afterCursor(order: KeyOrder, values: unknown[]): SQL {
  const columns = sql.join(
    order.keys.map((k) => k.column),
    sql`, `,
  );
  const params = sql.join(
    order.keys.map((k, i) => sql.param(values[i], k.column)),
    sql`, `,
  );
  return sql`(${columns}) ${order.descending ? sql`<` : sql`>`} (${params})`;
}

/**
 * Where a list's records hang in a tree (the grid): the field of its subtree filter (the list names
 * the column and the tree) and the roots of the caller's scope in that tree (absent: everything).
 */
export interface Placement {
  field: string;
  scopeRoots?: readonly string[] | undefined;
}

/** Rows of the whole list's order a page under a subtree reads first; a subtree dense there ends there. */
const PROBE_ROWS = 1000;

/** The `order by` of a key order, for raw statements. */
const orderSql = (order: KeyOrder, column: (key: KeyOrder['keys'][number], i: number) => SQL | AnyPgColumn) =>
  sql.join(
    order.keys.map((k, i) => sql`${column(k, i)}${order.descending ? sql` desc` : sql``}`),
    sql`, `,
  );

/**
 * The ids of a page in key order under a subtree, chosen so that neither the depth of the page nor
 * the size of the table matters. An index on (node, keys…) gives each node's rows in order, but the
 * planner cannot merge them, and the key index read from the start finds a subtree's rows only
 * where the subtree lies in that order — a million rows further for a subtree whose keys come last.
 * So: the next `PROBE_ROWS` rows of the key index first (a subtree dense there, as an unfiltered
 * scope or a large one is, ends there), otherwise each node's first rows from the (node, keys…)
 * index, merged: nodes × page rows, whatever the depth.
 */
async function placedPage<E extends ListEntityShape, R>(
  spec: ListSpec<E>,
  order: KeyOrder,
  placement: Placement,
  q: Query,
  source: PageSource<R>,
  page: { where: SQL | undefined; cursor: SQL | undefined; orderBy: SQL[]; limit: number; offset: number },
): Promise<R[] | undefined> {
  const column = (spec.columns as Record<string, AnyPgColumn>)[placement.field];
  const tree = (spec.trees as Record<string, TreeTable> | undefined)?.[placement.field];
  const root = q[placement.field];
  const filterRoot = typeof root === 'string' && root !== '' ? root : undefined;
  if (!column || !tree || (filterRoot === undefined && placement.scopeRoots === undefined)) return undefined;
  const id = order.keys.at(-1)?.column;
  if (!id) throw new Error('keysetPage: an empty key order');
  const table = sql.identifier(getTableName(id.table));
  const { where, cursor, orderBy, limit, offset } = page;
  const byKeys = orderSql(order, (k) => k.column);
  const matching = where ?? sql`true`;

  const probed = sql`select ${id} from (select * from ${id.table} ${cursor ? sql`where ${cursor}` : sql``} order by ${byKeys} limit ${PROBE_ROWS + offset + limit})
    as ${table} where ${matching} order by ${byKeys} limit ${limit} offset ${offset}`;
  const rows = await source.rows(sql`${id} in (${probed})`, orderBy, limit, 0);
  if (rows.length === limit) return rows;

  const { scopeRoots } = placement;
  const nodes =
    filterRoot === undefined
      ? subtreeIds(tree, scopeRoots ?? [])
      : scopeRoots === undefined
        ? subtreeIds(tree, filterRoot)
        : sql`select id from (${subtreeIds(tree, filterRoot)}) filtered where id in (${subtreeIds(tree, scopeRoots)})`;
  // Inside each node the subtree and the scope hold by construction; the other filters still apply.
  const inNode = and(listWhere(spec, { ...q, [placement.field]: undefined }), cursor) ?? sql`true`;
  const keyNames = order.keys.map((_, i) => sql.identifier(`k${i}`));
  const merged = sql`select placed.${keyNames.at(-1)} from (${nodes}) placed_node cross join lateral (
      select ${sql.join(
        order.keys.map((k, i) => sql`${k.column} as ${keyNames[i]}`),
        sql`, `,
      )} from ${id.table} where ${column} = placed_node.id and ${inNode} order by ${byKeys} limit ${offset + limit}
    ) placed order by ${orderSql(order, (_, i) => sql`placed.${keyNames[i]}`)} limit ${limit} offset ${offset}`;
  return source.rows(sql`${id} in (${merged})`, orderBy, limit, 0);
}

const keyOrderBy = (order: KeyOrder) => order.keys.map((k) => (order.descending ? desc : asc)(k.column));

/** What a page reads: its filters and scope, where it starts, how many rows. */
interface PageRead {
  where: SQL | undefined;
  cursor: SQL | undefined;
  orderBy: SQL[];
  limit: number;
  offset: number;
}

/** Rows of one page: under a subtree in key order as `placedPage` reads them, otherwise as the planner sees fit. */
async function readPage<E extends ListEntityShape, R>(
  spec: ListSpec<E>,
  q: Query,
  source: PageSource<R>,
  order: KeyOrder | undefined,
  placement: Placement | undefined,
  page: PageRead,
): Promise<R[]> {
  const placed = order && placement ? await placedPage(spec, order, placement, q, source, page) : undefined;
  return placed ?? source.rows(and(page.where, page.cursor), page.orderBy, page.limit, page.offset);
}

/**
 * A page of a table that grows to millions of rows: in the default order, or a sort an index reads
 * as it does (`indexedSorts`), it pages by cursor (`after`, read from the index whatever the depth);
 * the source counts only up to `countCap`, so `total` stops there and `totalCapped` says there are
 * more. `placement` makes pages under a subtree cost what they cost anywhere else.
 */
export async function keysetPage<E extends ListEntityShape, R extends Record<string, unknown>>(
  spec: ListSpec<E>,
  q: PageQuery & Query & { after?: string | undefined },
  source: PageSource<R>,
  options: { countCap: number; placement?: Placement | undefined },
  ...scope: (SQL | undefined)[]
) {
  const order = cursorOrder(spec, q);
  const sort = sortOf(q);
  const after = order && q.after ? decodeCursor(sort, order, q.after) : undefined;
  const where = listWhere(spec, q, ...scope);
  const { limit, offset } = pageWindow(q);
  // One row past the page tells whether there is a next one.
  const page: PageRead = {
    where,
    cursor: order && after ? afterCursor(order, after) : undefined,
    orderBy: order ? keyOrderBy(order) : listOrder(spec, q),
    limit: limit + 1,
    offset: after ? 0 : offset,
  };
  const [found, counted] = await Promise.all([
    readPage(spec, q, source, order, options.placement, page),
    source.count(where),
  ]);
  const list = found.slice(0, limit);
  const last = list.at(-1);
  return {
    list,
    total: Math.min(counted, options.countCap),
    totalCapped: counted > options.countCap,
    curPage: q.curPage,
    pageSize: q.pageSize,
    ...(order && found.length > limit && last ? { nextCursor: encodeCursor(sort, order, last) } : {}),
  };
}

/**
 * Every row the filters select (at most `max`), `chunk` rows at a time, in the list's order: an
 * export. In key order each chunk starts after the last one's final row, so the last chunk of a
 * million costs what the first does; other sorts go by offset.
 */
export async function* listChunks<E extends ListEntityShape, R extends Record<string, unknown>>(
  spec: ListSpec<E>,
  q: Query & Pick<PageQuery, 'sortField' | 'sortOrder'>,
  source: Pick<PageSource<R>, 'rows'>,
  options: { chunk: number; max: number; placement?: Placement | undefined },
  ...scope: (SQL | undefined)[]
): AsyncGenerator<R[]> {
  const order = cursorOrder(spec, q);
  const where = listWhere(spec, q, ...scope);
  const orderBy = order ? keyOrderBy(order) : listOrder(spec, q);
  const rows = { ...source, count: async () => 0 };
  let cursor: SQL | undefined;
  for (let read = 0; read < options.max; ) {
    const limit = Math.min(options.chunk, options.max - read);
    const page = { where, cursor, orderBy, limit, offset: order ? 0 : read };
    const chunk = await readPage(spec, q, rows, order, options.placement, page);
    if (chunk.length === 0) return;
    yield chunk;
    read += chunk.length;
    if (chunk.length < limit) return;
    const last = chunk.at(-1);
    if (order && last) cursor = afterCursor(order, driverValues(order, keyValues(order, last)));
  }
}
