import { type FilterDefinition, isDateRange, type PageQuery, RESULT } from '@meterdesk/contracts';
import { and, asc, desc, eq, getTableName, gte, ilike, inArray, lt, SQL, sql } from 'drizzle-orm';
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

export interface ListSpec<E extends ListEntityShape> {
  entity: E;
  /** The column behind every filtered and every sortable field; the compiler asks for each one. */
  columns: { [K in ListFields<E>]: AnyPgColumn | SQL };
  /** The tree of each `subtree` filter. */
  trees?: Partial<Record<E['filters'][number]['field'], TreeTable>>;
  /**
   * The order without a `sortField`; a single term gets the tie-break after it. A `keyOrder` can
   * also be resumed from a cursor (`keysetPage`).
   */
  defaultOrder: SQL | SQL[] | KeyOrder;
  /** Last key of every order, so that pages never overlap. */
  tieBreak: AnyPgColumn;
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

const encodeCursor = (order: KeyOrder, row: Record<string, unknown>) =>
  Buffer.from(JSON.stringify(order.keys.map((k) => row[k.field]))).toString('base64url');

/** The key values of a cursor, each as its column's driver expects it. */
function decodeCursor(order: KeyOrder, cursor: string): unknown[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(values) || values.length !== order.keys.length) throw badCursor();
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

/**
 * A page of a table that grows to millions of rows: without a `sortField` it pages by cursor
 * (`after`, read from the index whatever the depth), and the source counts only up to `countCap`,
 * so `total` stops there and `totalCapped` says there are more.
 */
export async function keysetPage<E extends ListEntityShape, R extends Record<string, unknown>>(
  spec: ListSpec<E>,
  q: PageQuery & Query & { after?: string | undefined },
  source: PageSource<R>,
  options: { countCap: number; placement?: Placement },
  ...scope: (SQL | undefined)[]
) {
  const order = spec.defaultOrder;
  if (!isKeyOrder(order)) throw new Error('keysetPage: the default order is not a keyOrder');
  const byCursor = q.sortField === undefined;
  const after = byCursor && q.after ? decodeCursor(order, q.after) : undefined;
  const where = listWhere(spec, q, ...scope);
  const cursor = after ? afterCursor(order, after) : undefined;
  const orderBy = listOrder(spec, q);
  const { limit, offset } = pageWindow(q);
  // One row past the page tells whether there is a next one.
  const page = { where, cursor, orderBy, limit: limit + 1, offset: after ? 0 : offset };
  const rows = async () =>
    (byCursor && options.placement ? await placedPage(spec, order, options.placement, q, source, page) : undefined) ??
    source.rows(and(where, cursor), orderBy, page.limit, page.offset);
  const [found, counted] = await Promise.all([rows(), source.count(where)]);
  const list = found.slice(0, limit);
  const last = list.at(-1);
  return {
    list,
    total: Math.min(counted, options.countCap),
    totalCapped: counted > options.countCap,
    curPage: q.curPage,
    pageSize: q.pageSize,
    ...(byCursor && found.length > limit && last ? { nextCursor: encodeCursor(order, last) } : {}),
  };
}
