import { getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import type { Database, Db, Executor } from '../db/driver';
import { databaseError } from '../db/errors';
import { rowsOf } from '../db/rows';
import {
  clockCheck,
  dcuEvent,
  linkChange,
  meterEvent,
  readingDaily,
  readingMonthly,
  readingProfile,
} from '../db/schema';
import { recordLive } from './live-state';
import { keepLatestClock } from './meter-clock';
import { markOnlinePending } from './online-rollups';
import { ensurePartitions } from './partitions';
import { type PowerChange, recordPower } from './power-state';
import { changedKeys, markPending } from './rollups';
import type { LinkChangeRow, ReadingBatch } from './rows';

/** Each part of a batch, its table and the time that places a row in a partition. */
const PARTS = {
  profile: { table: readingProfile, at: (r: { ts: Date }) => r.ts },
  daily: { table: readingDaily, at: (r: { day: string }) => new Date(r.day) },
  monthly: { table: readingMonthly, at: (r: { month: string }) => new Date(r.month) },
  meterEvents: { table: meterEvent, at: (r: { ts: Date }) => r.ts },
  dcuEvents: { table: dcuEvent, at: (r: { ts: Date }) => r.ts },
  linkChanges: { table: linkChange, at: (r: { ts: Date }) => r.ts },
  clockChecks: { table: clockCheck, at: (r: { ts: Date }) => r.ts },
} as const;
export type ReadingPart = keyof typeof PARTS;
export const READING_PARTS = Object.keys(PARTS) as ReadingPart[];

type Row = Record<string, unknown>;

/** PostgreSQL: no partition of the table holds the row's time. */
const NO_PARTITION = '23514';
const UNIQUE_VIOLATION = '23505';
/** A reading time later than this after now is no real capture time (a meter clock gone wild). */
export const FUTURE_TOLERANCE_MS = 86_400_000;

const INT32 = 2 ** 31;
const INT16 = 2 ** 15;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** JSON that PostgreSQL's jsonb refuses: a NUL character, a lone surrogate. */
const JSONB_REFUSED = /\\u(?:0000|d[89a-f])/i;

const isoDay = (day: string) => {
  const at = new Date(day);
  return Number.isFinite(at.getTime()) ? at.toISOString().slice(0, 10) : null;
};

/**
 * The check a column's value passes before it may reach COPY or INSERT, made once per column: a
 * flush screens every value of thousands of rows.
 */
function fitsColumn(column: PgColumn): (value: unknown) => boolean {
  const nullable = !column.notNull;
  const check = valueCheck(column);
  return (value) => (value === null || value === undefined ? nullable : check(value));
}

function valueCheck(column: PgColumn): (value: unknown) => boolean {
  switch (column.columnType) {
    case 'PgBigInt53':
      return (value) => Number.isSafeInteger(value);
    case 'PgInteger':
      return (value) => Number.isInteger(value) && (value as number) >= -INT32 && (value as number) < INT32;
    case 'PgSmallInt':
      return (value) => Number.isInteger(value) && (value as number) >= -INT16 && (value as number) < INT16;
    case 'PgVarchar': {
      const length = (column as PgColumn & { length?: number }).length ?? Number.POSITIVE_INFINITY;
      return (value) =>
        typeof value === 'string' && value.length > 0 && value.length <= length && !value.includes('\0');
    }
    case 'PgTimestamp':
      return (value) => value instanceof Date && Number.isFinite(value.getTime());
    case 'PgDateString':
      return (value) => typeof value === 'string' && DATE.test(value) && isoDay(value) === value;
    case 'PgBoolean':
      return (value) => typeof value === 'boolean';
    case 'PgJsonb':
      return (value) => {
        if (typeof value !== 'object') return false;
        try {
          return !JSONB_REFUSED.test(JSON.stringify(value));
        } catch {
          return false;
        }
      };
    default:
      return () => false;
  }
}

/** A table's column keys, each one's check, their SQL names, and its primary key's SQL names (the merge's order). */
function shapeOf(table: PgTable) {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const sqlName = (c: PgColumn) => (c.keyAsName ? toSnakeCase(c.name) : c.name);
  const keyColumns = getTableConfig(table).primaryKeys[0]?.columns ?? [];
  const keyOf = (c: PgColumn) => Object.keys(columns).find((k) => columns[k]?.name === c.name) as string;
  return {
    name: getTableName(table),
    keys: Object.keys(columns),
    checks: Object.values(columns).map(fitsColumn),
    sqlNames: Object.entries(columns).map(([key, c]) => [key, sqlName(c)] as const),
    key: keyColumns.map(sqlName),
    compare: keyOrder(keyColumns.map(keyOf)),
    /** The key's columns as a RETURNING list of the rows' fields (times as times, days as text). */
    returningKey: sql.raw(
      keyColumns
        .map((c) => `${sqlName(c)}${c.columnType === 'PgDateString' ? '::text' : ''} as "${keyOf(c)}"`)
        .join(', '),
    ),
    timeFields: keyColumns.filter((c) => c.columnType === 'PgTimestamp').map(keyOf),
  };
}

/** Rows compared by their key's fields (text, number or time): one order, the same in every writer. */
function keyOrder(fields: readonly string[]): (a: Row, b: Row) => number {
  return (a, b) => {
    for (const field of fields) {
      const x = a[field] instanceof Date ? (a[field] as Date).getTime() : (a[field] as string | number);
      const y = b[field] instanceof Date ? (b[field] as Date).getTime() : (b[field] as string | number);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
}
const SHAPES = Object.fromEntries(READING_PARTS.map((part) => [part, shapeOf(PARTS[part].table)])) as Record<
  ReadingPart,
  ReturnType<typeof shapeOf>
>;

/** Whether every column's value fits: a loop, not `every` and a closure, run for thousands of rows a flush. */
function fitsShape(
  row: unknown,
  keys: readonly string[],
  checks: readonly ((value: unknown) => boolean)[],
): row is Row {
  if (typeof row !== 'object' || row === null) return false;
  for (let i = 0; i < keys.length; i++)
    if (!(checks[i] as (value: unknown) => boolean)((row as Row)[keys[i] as string])) return false;
  return true;
}

/** What screening a batch found: the rows that may be written and how many were refused, and why. */
export interface Screened {
  batch: ReadingBatch;
  rows: number;
  malformed: number;
  impossibleTime: number;
}

/** How long the window of possible times is, read for each write (the retention setting). */
export interface RetentionWindow {
  cutoff(now: Date): Promise<Date>;
}

export const countRows = (batch: ReadingBatch) => READING_PARTS.reduce((n, part) => n + (batch[part]?.length ?? 0), 0);

/**
 * Stores readings once: a row already stored (the same key: meter and time) is left as it is, so a
 * value re-delivered or re-read is never stored twice. A row for a month without a partition makes
 * it. A row that does not fit its columns is malformed, one whose time lies beyond now + 1 day or
 * before the retention window is an impossible time: both are refused (counted), never inserted.
 *
 * A write is one transaction, with the rollups' keys of the rows stored marked in it, each meter's
 * latest clock check moved forward and the meters' live state (`meter_live`) brought up to date. On PostgreSQL
 * each table's rows go in key order by COPY straight into the table (`copyNew`); when some are stored
 * already, through a staging table (temporary, the connection's own, emptied at commit) merged with
 * `ON CONFLICT DO NOTHING`. On PGlite, which takes no COPY from a client, the rows come from one JSON
 * parameter (`json_populate_recordset`) by a plain INSERT, merged the same way when some are stored.
 */
export class ReadingWriter {
  readonly refused = { malformed: 0, impossibleTime: 0 };
  private readonly db: Db;
  private readonly database: Database | null;
  private readonly powerListeners = new Set<(changes: PowerChange[]) => void>();
  private readonly linkListeners = new Set<(changes: LinkChangeRow[]) => void>();

  constructor(
    store: Database | Db,
    private readonly retention: RetentionWindow | null = null,
  ) {
    this.database = 'writeAtomically' in store ? store : null;
    this.db = 'writeAtomically' in store ? store.db : store;
  }

  /**
   * Splits a batch into the rows that may be written and the refused counts. A kept row is the row
   * itself, not a copy: a column it leaves out is written as null, a field no column has is ignored.
   */
  async screen(batch: ReadingBatch, now = new Date()): Promise<Screened> {
    const cutoff = (await this.retention?.cutoff(now))?.getTime() ?? Number.NEGATIVE_INFINITY;
    const latest = now.getTime() + FUTURE_TOLERANCE_MS;
    const out: Screened = { batch: {}, rows: 0, malformed: 0, impossibleTime: 0 };
    for (const part of READING_PARTS) {
      const rows = batch[part] as Row[] | undefined;
      if (!rows?.length) continue;
      const { keys, checks } = SHAPES[part];
      const at = PARTS[part].at as (r: Row) => Date;
      const kept: Row[] = [];
      for (const row of rows) {
        if (!fitsShape(row, keys, checks)) {
          out.malformed++;
          continue;
        }
        const time = at(row).getTime();
        if (time > latest || time < cutoff) {
          out.impossibleTime++;
          continue;
        }
        kept.push(row);
      }
      if (kept.length) (out.batch as Record<ReadingPart, Row[]>)[part] = kept;
      out.rows += kept.length;
    }
    return out;
  }

  /**
   * Calls `listener` after each write that changed devices' supply (`device_power`), once the write
   * has committed; answers the way to stop.
   */
  onPowerChange(listener: (changes: PowerChange[]) => void): () => void {
    this.powerListeners.add(listener);
    return () => this.powerListeners.delete(listener);
  }

  /**
   * Calls `listener` after each write that stored link changes, once it has committed: by then the
   * meters' reachability (`meter_live`) says what the changes say, so a page reading again on the
   * news finds it. Answers the way to stop.
   */
  onLinkChange(listener: (changes: LinkChangeRow[]) => void): () => void {
    this.linkListeners.add(listener);
    return () => this.linkListeners.delete(listener);
  }

  /** Stores what the batch holds that is not stored yet; answers how many rows were new. */
  async write(batch: ReadingBatch): Promise<number> {
    const screened = await this.screen(batch);
    this.refused.malformed += screened.malformed;
    this.refused.impossibleTime += screened.impossibleTime;
    return this.writeScreened(screened.batch);
  }

  /**
   * `write` for the rows `screen` kept (the ingest screens when rows arrive, not again when they
   * leave). The rollups' keys are marked for the rows stored, and the power events stored folded into
   * the devices' supply, in the same transaction.
   */
  async writeScreened(batch: ReadingBatch): Promise<number> {
    if (!countRows(batch)) return 0;
    const database = this.database;
    // Of the attempt that committed: a retry after making partitions writes everything again.
    let powerChanges: PowerChange[] = [];
    let linkChanges: LinkChangeRow[] = [];
    const writeParts = async (tx: Executor, writePart: (part: ReadingPart, rows: Row[]) => Promise<Row[]>) => {
      const stored: Record<string, Row[]> = {};
      let count = 0;
      for (const part of READING_PARTS) {
        const rows = batch[part] as Row[] | undefined;
        if (!rows?.length) continue;
        stored[part] = await writePart(part, rows);
        count += stored[part].length;
      }
      await markPending(tx, changedKeys(stored as ReadingBatch));
      linkChanges = (stored as ReadingBatch).linkChanges ?? [];
      await markOnlinePending(tx, linkChanges);
      await keepLatestClock(tx, stored.clockChecks as { meterId: string; ts: Date }[] | undefined);
      powerChanges = await recordPower(tx, stored as ReadingBatch);
      // Rows stored before count too: a meter read again has communicated again.
      await recordLive(tx, batch);
      return count;
    };
    const write =
      database?.kind === 'postgres'
        ? () =>
            database.writeAtomically(({ tx, copyInto }) =>
              writeParts(tx, (part, rows) => {
                if (!copyInto) throw new Error('a PostgreSQL write without COPY');
                return this.copyNew(tx, part, inKeyOrder(part, rows), copyInto);
              }),
            )
        : () =>
            this.db.transaction((tx) =>
              writeParts(tx, (part, rows) => this.merge(tx, part, rows, asRecordset(part, rows))),
            );
    const count = await this.withPartitions(write, batch);
    if (powerChanges.length) for (const listener of this.powerListeners) listener(powerChanges);
    if (linkChanges.length) for (const listener of this.linkListeners) listener(linkChanges);
    return count;
  }

  /** Runs `work`; when a row found no partition, makes those the rows need and runs it again. */
  private async withPartitions(work: () => Promise<number>, batch: ReadingBatch): Promise<number> {
    try {
      return await work();
    } catch (error) {
      if (databaseError(error)?.code !== NO_PARTITION) throw error;
      await this.makePartitions(batch);
      return work();
    }
  }

  /**
   * PostgreSQL: COPYs the rows straight into the table, as a raw COPY would, and answers those stored.
   * Most flushes hold new rows only, and the table's key refuses a row stored already, so nothing is
   * ever stored twice: a flush that meets one (a re-delivery, a re-read, a concurrent flush of the
   * same key) is rolled back to before its COPY and merged through the staging table.
   */
  private async copyNew(tx: Executor, part: ReadingPart, rows: Row[], copyInto: CopyInto): Promise<Row[]> {
    await tx.execute(sql`savepoint copy_new_rows`);
    try {
      await copyInto(PARTS[part].table, rows as never[], SHAPES[part].name);
      await tx.execute(sql`release savepoint copy_new_rows`);
      return rows;
    } catch (error) {
      if (databaseError(error)?.code !== UNIQUE_VIOLATION) throw error;
      await tx.execute(sql`rollback to savepoint copy_new_rows`);
      return this.insertMissing(tx, part, await staged(tx, part, rows, copyInto));
    }
  }

  /**
   * PGlite: inserts the rows `source` yields by a plain INSERT in key order (about half the cost of
   * ON CONFLICT's speculative insertion, row by row), and answers those stored; a flush that meets a
   * row stored already is rolled back to before it and merged.
   */
  private async merge(tx: Executor, part: ReadingPart, rows: Row[], source: SQL): Promise<Row[]> {
    const { name, key } = SHAPES[part];
    await tx.execute(sql`savepoint merge_new_rows`);
    try {
      await tx.execute(
        sql`insert into ${sql.identifier(name)} select * from ${source} order by ${sql.raw(key.join(', '))}`,
      );
      await tx.execute(sql`release savepoint merge_new_rows`);
      return rows;
    } catch (error) {
      if (databaseError(error)?.code !== UNIQUE_VIOLATION) throw error;
      await tx.execute(sql`rollback to savepoint merge_new_rows`);
      return this.insertMissing(tx, part, source);
    }
  }

  /** Inserts, in key order, the rows `source` yields that are not stored yet; answers the keys of those it stored. */
  private async insertMissing(tx: Executor, part: ReadingPart, source: SQL): Promise<Row[]> {
    const { name, key, returningKey, timeFields } = SHAPES[part];
    const stored = await rowsOf<Row>(
      tx,
      sql`insert into ${sql.identifier(name)} select * from ${source} order by ${sql.raw(key.join(', '))}
        on conflict do nothing returning ${returningKey}`,
    );
    for (const row of stored) for (const field of timeFields) row[field] = new Date(row[field] as string | Date);
    return stored;
  }

  /** The partitions every row's time needs, table by table over the batch's whole span. */
  private async makePartitions(batch: ReadingBatch): Promise<void> {
    const times: number[] = [];
    for (const part of READING_PARTS) {
      const at = PARTS[part].at as (r: Row) => Date;
      for (const row of (batch[part] as Row[] | undefined) ?? []) times.push(at(row).getTime());
    }
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const t of times) {
      if (t < min) min = t;
      if (t > max) max = t;
    }
    await ensurePartitions(this.db, new Date(min), new Date(max));
  }
}

type CopyInto = <T extends PgTable>(table: T, rows: readonly T['$inferInsert'][], into: string) => Promise<number>;

/**
 * The rows in the order of the table's key, sorted only when they are not: two writers meeting on the
 * same keys then wait for each other in the same order, never in a deadlock. A flush is mostly in
 * order already (a push holds one meter's intervals in time order).
 */
function inKeyOrder(part: ReadingPart, rows: Row[]): Row[] {
  const { compare } = SHAPES[part];
  for (let i = 1; i < rows.length; i++)
    if (compare(rows[i - 1] as Row, rows[i] as Row) > 0) return [...rows].sort(compare);
  return rows;
}

/** The part's rows COPY'd into the connection's staging table (PostgreSQL): one per connection, emptied at each commit. */
async function staged(tx: Executor, part: ReadingPart, rows: Row[], copyInto: CopyInto): Promise<SQL> {
  const { name } = SHAPES[part];
  const staging = `${name}_staging`;
  await tx.execute(sql.raw(`create temp table if not exists ${staging} (like ${name}) on commit delete rows`));
  await copyInto(PARTS[part].table, rows as never[], staging);
  return sql`${sql.identifier(staging)}`;
}

/**
 * The part's rows as the table's records from one JSON parameter (PGlite, which takes no COPY from a
 * client): a multi-row INSERT of thousands of bound values cost several times the write itself to
 * build and bind (a month of a demo fleet's profile went from about 40 s to about 12 s).
 */
function asRecordset(part: ReadingPart, rows: Row[]): SQL {
  const { name, sqlNames } = SHAPES[part];
  const records = rows.map((row) => Object.fromEntries(sqlNames.map(([key, column]) => [column, row[key]])));
  return sql`json_populate_recordset(null::${sql.identifier(name)}, ${JSON.stringify(records)}::json)`;
}
