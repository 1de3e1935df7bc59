import {
  ARCHIVE_COUNT_CAP,
  type BatchDeleteResult,
  type EntityDefinition,
  type ExportFormat,
  MAX_EXPORT_ROWS,
  MAX_OPTIONS,
  type MessageKey,
  type Operation,
  type Option,
  type OptionsAnswer,
  type OptionsQuery,
} from '@meterdesk/contracts';
import { and, asc, eq, getTableColumns, ilike, inArray, ne, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { Db, Executor } from '../../db/driver';
import { newId } from '../../db/ids';
import {
  defineList,
  keyOrder,
  keysetPage,
  type ListEntityShape,
  type ListSpec,
  listChunks,
  listPage,
  type Placement,
  selectSource,
} from '../../db/list';
import { anyRow, countRows, countUpTo, iso, likeContains } from '../../db/rows';
import { registerUniqueIndex } from '../../db/unique';
import { columnOf, uniqueIndexOf } from '../../db/unique-keys';
import { existedError, notFound } from '../../errors/api-error';
import { exportTable } from '../../http/export-table';
import type { SessionContext } from '../../http/operation';
import { registerDownload, registerOperation } from '../../http/operation';
import { entityColumns, translator } from '../../i18n/labels';
import { gridScope, orgScope, resolveScope, type Scope, scopeOf } from '../../rbac/scope';

/** A select builder as the kit reads it: filtered, and for pages ordered and cut. */
interface ArchiveSelect<Row> {
  where(where: SQL | undefined): PromiseLike<Row[]> & {
    orderBy(...orderBy: SQL[]): { limit(limit: number): { offset(offset: number): PromiseLike<Row[]> } };
  };
}

/** What a write sees: the transaction, the caller and their scope, and the record before (on update). */
export interface WriteContext<Row> {
  tx: Executor;
  session: SessionContext;
  scope: Scope;
  id: string;
  before?: Row;
}

/** A business key: its column and the unique index the database enforces it with. */
export interface UniqueKey {
  column: AnyPgColumn;
  index: string;
}

/**
 * How the entity's `options` call searches its records for the pickers of other forms, always
 * within the caller's grid scope.
 */
export interface OptionsSource {
  /**
   * The columns the keyword is looked for in (case-insensitive). The first is the business key, unique
   * in any case (`lower(key)` has a unique index): it orders the options.
   */
  searched: readonly [AnyPgColumn, ...AnyPgColumn[]];
  label: SQL<string>;
  /** What an option carries besides id and label (a meter type's supplier). */
  members?: Record<string, AnyPgColumn | SQL>;
  /** The entity's own filters of the options call (only meters at no POC). */
  where?(query: OptionsQuery): SQL | undefined;
}

/**
 * One stored entity on the server: an archive record or a system one (a user). The kit turns it into
 * the list, detail, save, update, batch delete, check and export calls, every one of them within the
 * caller's scope: the grid scope for archive records, the organisation scope for system ones.
 */
export interface ArchiveDefinition<
  E extends ListEntityShape & Pick<EntityDefinition<z.ZodObject>, 'name' | 'record' | 'columns'>,
  Row,
  Rec extends Record<string, unknown>,
  Create,
  U extends string,
> {
  entity: E;
  api: ArchiveOperations<Create, U>;
  table: PgTable;
  idColumn: AnyPgColumn;
  /** The column a batch delete names a row by (the business key). */
  nameColumn: AnyPgColumn;
  list: ListSpec<E>;
  /** A fresh select of the records with what the record shows of its neighbours. */
  select(db: Executor): ArchiveSelect<Row>;
  toRecord(row: Row): Rec;
  /** The grid column the data scope limits; none for parameters every user shares (supplier, meter type). */
  gridColumn?: AnyPgColumn;
  /** The organisation column the caller's organisation scope limits (a system entity: users). */
  orgColumn?: AnyPgColumn;
  /**
   * `numbered`: a table that stays small (the system's users) pages by number, counted exactly, without
   * cursor; otherwise pages go by cursor and the count stops at `ARCHIVE_COUNT_CAP`.
   */
  paging?: 'numbered';
  unique: Record<U, UniqueKey>;
  /**
   * The stored values of a valid input. Checks what the schema cannot (references exist within the
   * caller's scope, cross-field rules) by throwing a field error; seals secrets.
   */
  toValues(input: Create, ctx: WriteContext<Row>): Promise<Record<string, unknown>>;
  /** What else a write stores with the record, in the same transaction (a user's memberships). */
  afterWrite?(input: Create, ctx: WriteContext<Row>): Promise<void>;
  /**
   * Refuses a caller acting on a record in their scope all the same (a user holding more than the caller):
   * asked before an update and by the entity's own calls on one record.
   */
  mayActOn?(tx: Executor, row: Row, session: SessionContext): Promise<void>;
  /** Why each of `ids` cannot be deleted yet (the first reference that still holds it). */
  inUse?(tx: Executor, ids: string[]): Promise<Map<string, MessageKey>>;
  /** What the detail shows beyond a list row (a consumer's POCs), read within the caller's scope. */
  related?(db: Executor, record: Rec, scope: Scope): Promise<Partial<Rec>>;
  /** How other forms' pickers search the records (with `api.options`). */
  options?: OptionsSource;
}

export interface ArchiveOperations<Create, U extends string> {
  list: Operation;
  detail: Operation<z.ZodType<{ id: string }>>;
  save: Operation<z.ZodType<Create>>;
  update: Operation<z.ZodType<Create & { id: string }>>;
  /** Delete and check as the archive has them; an entity whose calls take other fields wires its own. */
  delete?: Operation<z.ZodType<{ ids: string[] }>>;
  check?: Operation<z.ZodType<{ field: U; value: string; id?: string | undefined }>>;
  options?: Operation<z.ZodType<OptionsQuery>>;
  export?: Operation<
    z.ZodType<Record<string, unknown> & { columns?: string[] | undefined; format?: ExportFormat | undefined }>
  >;
}

/** An entity as the contract declares it: its record, what add and edit take, its business keys. */
type ContractEntity = ListEntityShape &
  Pick<EntityDefinition<z.ZodObject>, 'name' | 'record' | 'columns'> & {
    create?: z.ZodObject;
    unique: readonly string[];
  };

type Derived = 'idColumn' | 'nameColumn' | 'list' | 'select' | 'toRecord' | 'unique' | 'toValues';

/** What `defineArchive` asks of an entity beyond its contract; every derived member may be given instead. */
export type ArchiveSpec<
  E extends ContractEntity,
  T extends PgTable,
  Row,
  Rec extends Record<string, unknown>,
  Create,
> = Omit<ArchiveDefinition<E, Row, Rec, Create, E['unique'][number]>, Derived | 'table'> &
  Partial<Pick<ArchiveDefinition<E, Row, Rec, Create, E['unique'][number]>, Derived>> & {
    table: T;
    /** The trees of the derived list's subtree filters on other trees than the grid (a user's organisation). */
    trees?: ListSpec<E>['trees'];
    /**
     * What the record shows of its neighbours (a `lookup`, a count), selected with the table's columns;
     * a listed field that is no column of the table is one of these.
     */
    shown?: Record<string, SQL>;
  };

/** A table's row with what its record shows of its neighbours (`shown`). */
export type ShownRow<T extends PgTable, S extends Record<string, SQL>> = T['$inferSelect'] & {
  [K in keyof S]: S[K] extends SQL<infer V> ? V : never;
};

/**
 * A record as the contract declares it, from a row holding its fields under the same keys: times as
 * ISO text, an empty value as the empty text.
 */
export function recordOf(record: z.ZodObject) {
  const keys = Object.keys(record.shape);
  return <Rec>(row: Record<string, unknown>): Rec =>
    Object.fromEntries(
      keys.map((key) => {
        const value = row[key];
        return [key, value instanceof Date ? iso(value) : (value ?? '')];
      }),
    ) as Rec;
}

/**
 * An archive entity from its contract and its table, each thing said once. Derived unless given: the
 * id column, the business keys from the contract's `unique` fields with the table's unique index on
 * each, the select (the table's columns and the `shown` members), the list's columns (every filtered
 * and sortable field's column or `shown` member of the same key) in business key order, the record from
 * the row's fields of the same keys, and the stored values as the input gives them, which asks that
 * every field of the input has a column of its key.
 */
export function defineArchive<
  E extends ContractEntity,
  T extends PgTable,
  Row = T['$inferSelect'],
  Rec extends Record<string, unknown> = z.output<E['record']>,
  Create = z.output<NonNullable<E['create']>>,
>(spec: ArchiveSpec<E, T, Row, Rec, Create>): ArchiveDefinition<E, Row, Rec, Create, E['unique'][number]> {
  const { entity, table, trees, shown = {}, ...rest } = spec;
  type U = E['unique'][number];
  const idColumn = spec.idColumn ?? columnOf(table, 'id');
  const unique =
    spec.unique ??
    (Object.fromEntries(
      entity.unique.map((key) => {
        const column = columnOf(table, key);
        return [key, { column, index: uniqueIndexOf(table, column) }];
      }),
    ) as Record<U, UniqueKey>);
  const [businessKey] = entity.unique;
  if (!spec.toValues) {
    // Stored as given: a field without a column of its own would be dropped by the insert unnoticed.
    for (const key of Object.keys(entity.create?.shape ?? {})) columnOf(table, key);
  }
  const listed = [...new Set([...entity.filters.map((f) => f.field), ...entity.sortable])];
  return {
    ...rest,
    entity,
    table,
    idColumn,
    unique,
    nameColumn: spec.nameColumn ?? (businessKey ? unique[businessKey as U].column : idColumn),
    select:
      spec.select ??
      ((db: Executor) =>
        db.select({ ...getTableColumns(table), ...shown }).from(table as PgTable) as unknown as ArchiveSelect<Row>),
    toRecord: spec.toRecord ?? (recordOf(entity.record) as (row: Row) => Rec),
    toValues: spec.toValues ?? (async (input: Create) => ({ ...input }) as Record<string, unknown>),
    list:
      spec.list ??
      defineList({
        entity,
        columns: Object.fromEntries(
          listed.map((key) => [key, shown[key] ?? columnOf(table, key)]),
        ) as ListSpec<E>['columns'],
        defaultOrder: keyOrder(
          businessKey ? { [businessKey]: columnOf(table, businessKey), id: idColumn } : { id: idColumn },
        ),
        tieBreak: idColumn,
        ...(trees ? { trees } : {}),
      }),
  };
}

/** Stored values must name columns of the table: anything else the insert would drop unnoticed. */
function assertStored(table: PgTable, values: Record<string, unknown>): void {
  const columns = getTableColumns(table);
  for (const key of Object.keys(values)) if (!(key in columns)) columnOf(table, key);
}

/** The archive calls of one entity, as a service the routes (and later imports and the head-end) use. */
export class ArchiveService<
  E extends ListEntityShape & Pick<EntityDefinition<z.ZodObject>, 'name' | 'record' | 'columns'>,
  Row,
  Rec extends Record<string, unknown>,
  Create,
  U extends string,
> {
  /** The list's subtree filter on the grid column, if any: pages under a subtree read node by node. */
  private readonly placedBy: string | undefined;

  constructor(
    protected readonly db: Db,
    readonly definition: ArchiveDefinition<E, Row, Rec, Create, U>,
  ) {
    const { list, gridColumn } = definition;
    const columns = list.columns as Record<string, unknown>;
    this.placedBy = gridColumn
      ? list.entity.filters.find((f) => f.op === 'subtree' && columns[f.field] === gridColumn)?.field
      : undefined;
    for (const [field, key] of Object.entries<UniqueKey>(definition.unique)) {
      registerUniqueIndex(key.index, () => existedError(definition.entity, field));
    }
  }

  /** The records as pages read them, counted up to the cap. */
  private source() {
    const d = this.definition;
    return selectSource(this.db, {
      select: () => d.select(this.db),
      map: d.toRecord,
      countFrom: (where) =>
        d.paging === 'numbered'
          ? countRows(this.db, d.table, where)
          : countUpTo(this.db, d.table, where, ARCHIVE_COUNT_CAP),
    });
  }

  /** Where the records hang in the grid, for pages under a subtree; none for shared parameters. */
  private placement(scope: Scope): Placement | undefined {
    return this.placedBy ? { field: this.placedBy, scopeRoots: scope.all ? undefined : scope.gridIds } : undefined;
  }

  /** The condition that keeps a caller within their grid or organisation scope (nothing for shared parameters). */
  scopeCondition(scope: Scope): SQL | undefined {
    const { gridColumn, orgColumn } = this.definition;
    if (gridColumn) return gridScope(scope, gridColumn);
    return orgColumn ? orgScope(scope, orgColumn) : undefined;
  }

  /**
   * A page of the caller's records: by cursor in the list's default order, counted up to
   * `ARCHIVE_COUNT_CAP`. `noScope` tells a caller whose scope reaches no grid node (no admin role,
   * no user group) why a grid-scoped list is empty, so the screen can say whom to ask.
   */
  async list(q: Parameters<typeof keysetPage>[1], session: SessionContext) {
    const scope = await scopeOf(this.db, session);
    const d = this.definition;
    if (d.paging === 'numbered') return listPage(d.list, q, this.source(), this.scopeCondition(scope));
    const page = await keysetPage(
      d.list,
      q,
      this.source(),
      { countCap: ARCHIVE_COUNT_CAP, placement: this.placement(scope) },
      this.scopeCondition(scope),
    );
    const noScope = d.gridColumn !== undefined && !scope.all && scope.gridIds.length === 0;
    return noScope ? { ...page, noScope } : page;
  }

  /** The record, or 404 when it does not exist or lies outside the caller's scope. */
  async detail(id: string, session: SessionContext): Promise<Rec> {
    const scope = await scopeOf(this.db, session);
    const row = await this.find(this.db, id, scope);
    if (!row) throw notFound();
    const d = this.definition;
    const record = d.toRecord(row);
    return d.related ? { ...record, ...(await d.related(this.db, record, scope)) } : record;
  }

  private async find(db: Executor, id: string, scope: Scope): Promise<Row | undefined> {
    const d = this.definition;
    const [row] = await d.select(db).where(and(eq(d.idColumn, id), this.scopeCondition(scope)));
    return row;
  }

  /** Acts on the record in one transaction, when the caller may (as `reachable` says). */
  async actOn(id: string, session: SessionContext, act: (tx: Executor, row: Row) => Promise<void>): Promise<void> {
    await this.db.transaction(async (tx) => act(tx, await this.reachable(tx, id, session)));
  }

  /** The record when the caller may act on it: in their scope (else 404) and as `mayActOn` allows. */
  async reachable(tx: Executor, id: string, session: SessionContext, scope?: Scope): Promise<Row> {
    const row = await this.find(tx, id, scope ?? (await resolveScope(tx, session.userId)));
    if (!row) throw notFound();
    await this.definition.mayActOn?.(tx, row, session);
    return row;
  }

  async save(input: Create, session: SessionContext): Promise<{ id: string }> {
    const id = newId();
    const d = this.definition;
    await this.db.transaction(async (tx) => {
      const scope = await resolveScope(tx, session.userId);
      await this.assertUnique(tx, input);
      const ctx = { tx, session, scope, id };
      const values = await d.toValues(input, ctx);
      assertStored(d.table, values);
      await tx.insert(d.table).values({ ...values, id });
      await d.afterWrite?.(input, ctx);
    });
    return { id };
  }

  async update(id: string, input: Create, session: SessionContext): Promise<void> {
    const d = this.definition;
    await this.db.transaction(async (tx) => {
      const scope = await resolveScope(tx, session.userId);
      const before = await this.reachable(tx, id, session, scope);
      await this.assertUnique(tx, input, id);
      const ctx = { tx, session, scope, id, before };
      const values = await d.toValues(input, ctx);
      assertStored(d.table, values);
      await tx
        .update(d.table)
        .set({ ...values, updateTime: new Date() })
        .where(eq(d.idColumn, id));
      await d.afterWrite?.(input, ctx);
    });
  }

  /** Deletes what may go; a row still in use, or outside the caller's scope, stays and is reported. */
  async delete(ids: string[], session: SessionContext): Promise<BatchDeleteResult> {
    const d = this.definition;
    return this.db.transaction(async (tx) => {
      const scope = await resolveScope(tx, session.userId);
      const wanted = [...new Set(ids)];
      const found = await tx
        .select({ id: d.idColumn, name: d.nameColumn })
        .from(d.table)
        .where(and(inArray(d.idColumn, wanted), this.scopeCondition(scope)));
      const names = new Map(found.map((r) => [String(r.id), String(r.name)]));
      const blocked = d.inUse ? await d.inUse(tx, [...names.keys()]) : new Map<string, MessageKey>();
      const failures: BatchDeleteResult['failures'] = wanted.flatMap((rowId) => {
        const name = names.get(rowId);
        if (name === undefined) return [{ id: rowId, name: '', key: 'notFound' as const }];
        const key = blocked.get(rowId);
        return key ? [{ id: rowId, name, key }] : [];
      });
      const deletable = [...names.keys()].filter((rowId) => !blocked.has(rowId));
      if (deletable.length) await tx.delete(d.table).where(inArray(d.idColumn, deletable));
      return { deleted: deletable.length, failures };
    });
  }

  /**
   * A picker's search: the records named by `ids` (those the form holds, whatever the keyword and
   * filters), then the first matches in key order; `more` when others match too. Both within the
   * caller's scope, so a record outside it is never offered nor named.
   */
  async options(q: OptionsQuery, session: SessionContext): Promise<OptionsAnswer> {
    const d = this.definition;
    const source = d.options as OptionsSource;
    const scope = await resolveScope(this.db, session.userId);
    const search = async (where: SQL | undefined, limit: number): Promise<Option[]> => {
      const rows = await this.db
        .select({ ...source.members, id: d.idColumn, label: source.label })
        .from(d.table)
        .where(and(where, this.scopeCondition(scope)))
        // The key is unique in any case, and its unique index gives this order.
        .orderBy(asc(sql`lower(${source.searched[0]})`))
        .limit(limit);
      return rows.map((row) => ({ ...row, id: String(row.id) }));
    };
    const keyword = q.keyword
      ? or(...source.searched.map((column) => ilike(column, likeContains(q.keyword))))
      : undefined;
    const [named, found] = await Promise.all([
      q.ids.length ? search(inArray(d.idColumn, q.ids), q.ids.length) : [],
      // One past the cap tells whether others match.
      search(and(keyword, source.where?.(q)), MAX_OPTIONS + 1),
    ]);
    const held = new Set(named.map((option) => option.id));
    return {
      list: [...named, ...found.slice(0, MAX_OPTIONS).filter((option) => !held.has(option.id))],
      more: found.length > MAX_OPTIONS,
    };
  }

  /** Whether a business key is taken anywhere: keys are unique across the whole archive, not per scope. */
  isTaken(field: U, value: string, exceptId?: string): Promise<boolean> {
    return this.taken(this.db, this.definition.unique[field].column, value.trim(), exceptId);
  }

  /**
   * The key compared as text in any case. A text key's `lower(key::text)` is the expression its unique
   * index holds; a number key (an event code) is compared as the text the check call sends.
   */
  private taken(db: Executor, column: AnyPgColumn, value: string, exceptId?: string): Promise<boolean> {
    const d = this.definition;
    return anyRow(
      db,
      d.table,
      and(eq(sql`lower(${column}::text)`, value.toLowerCase()), exceptId ? ne(d.idColumn, exceptId) : undefined),
    );
  }

  private async assertUnique(tx: Executor, input: Create, exceptId?: string) {
    const d = this.definition;
    for (const [field, { column }] of Object.entries<UniqueKey>(d.unique)) {
      const value = (input as Record<string, unknown>)[field];
      if ((typeof value !== 'string' && typeof value !== 'number') || value === '') continue;
      if (await this.taken(tx, column, String(value), exceptId)) throw existedError(d.entity, field);
    }
  }

  /** The rows an export writes (at most `max`), a chunk at a time, in the list's order. */
  async *exportRows(
    q: Record<string, unknown>,
    session: SessionContext,
    chunk = 1000,
    max = MAX_EXPORT_ROWS,
  ): AsyncGenerator<Rec[]> {
    const scope = await scopeOf(this.db, session);
    yield* listChunks(
      this.definition.list,
      q,
      this.source(),
      { chunk, max, placement: this.placement(scope) },
      this.scopeCondition(scope),
    );
  }
}

/** Registers the calls of an archive entity; every route is guarded by the resource its operation names. */
export function registerArchiveRoutes<
  E extends ListEntityShape & Pick<EntityDefinition<z.ZodObject>, 'name' | 'record' | 'columns'>,
  Row,
  Rec extends Record<string, unknown>,
  Create,
  U extends string,
>(app: FastifyInstance, service: ArchiveService<E, Row, Rec, Create, U>) {
  const { api, entity } = service.definition;
  registerOperation(app, api.list, ({ body, session }) => service.list(body as never, session));
  registerOperation(app, api.detail, ({ body, session }) => service.detail(body.id, session));
  registerOperation(app, api.save, ({ body, session }) => service.save(body, session));
  registerOperation(app, api.update, async ({ body: { id, ...values }, session }) => {
    await service.update(id, values as Create, session);
    return null;
  });
  if (api.delete) registerOperation(app, api.delete, ({ body, session }) => service.delete(body.ids, session));
  if (api.check)
    registerOperation(app, api.check, async ({ body }) => ({
      existed: await service.isTaken(body.field, body.value, body.id),
    }));
  if (api.options) {
    if (!service.definition.options) throw new Error(`${entity.name} declares an options call without its source`);
    registerOperation(app, api.options, ({ body, session }) => service.options(body, session));
  }
  const exportOp = api.export;
  if (exportOp) {
    registerDownload(app, exportOp, async ({ body, session, req }) =>
      exportTable({
        format: body.format,
        language: session.language,
        title: translator(session.language)(`${entity.name}.exportName`),
        columns: entityColumns<Rec>(entity, body.columns ?? entity.columns.map((c) => c.field), session.language),
        rows: (limit) => service.exportRows(body, session, 1000, Math.min(limit, MAX_EXPORT_ROWS)),
        onError: (err) => req.log.error({ err }, `${entity.name} export failed`),
      }),
    );
  }
}
