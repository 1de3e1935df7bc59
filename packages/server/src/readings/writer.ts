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
import { ensurePartitions } from './partitions';
import { markPending, PENDING_DAYS } from './rollups';
import type { ReadingBatch } from './rows';

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
  return {
    name: getTableName(table),
    keys: Object.keys(columns),
    checks: Object.values(columns).map(fitsColumn),
    sqlNames: Object.entries(columns).map(([key, c]) => [key, sqlName(c)] as const),
    key: (getTableConfig(table).primaryKeys[0]?.columns ?? []).map(sqlName),
  };
}
const SHAPES = Object.fromEntries(READING_PARTS.map((part) => [part, shapeOf(PARTS[part].table)])) as Record<
  ReadingPart,
  ReturnType<typeof shapeOf>
>;

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
 * On PostgreSQL a write is one transaction: each table's rows go by COPY into a staging table
 * (temporary, the connection's own, emptied at commit) and are merged into the table in key order (two
 * writers meeting on the same keys take their locks in the same order), `ON CONFLICT DO NOTHING`
 * when some are stored already (`merge`). On PGlite the same merge reads
 * the rows from one JSON parameter (`json_populate_recordset`) in one transaction.
 */
export class ReadingWriter {
  readonly refused = { malformed: 0, impossibleTime: 0 };
  private readonly db: Db;
  private readonly database: Database | null;

  constructor(
    store: Database | Db,
    private readonly retention: RetentionWindow | null = null,
  ) {
    this.database = 'writeAtomically' in store ? store : null;
    this.db = 'writeAtomically' in store ? store.db : store;
  }

  /** Splits a batch into the rows that may be written (every column given) and the refused counts. */
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
        if (typeof row !== 'object' || row === null || !keys.every((key, i) => checks[i]?.(row[key]))) {
          out.malformed++;
          continue;
        }
        const time = at(row).getTime();
        if (time > latest || time < cutoff) {
          out.impossibleTime++;
          continue;
        }
        const copy: Row = {};
        for (const key of keys) copy[key] = row[key] ?? null;
        kept.push(copy);
      }
      if (kept.length) (out.batch as Record<ReadingPart, Row[]>)[part] = kept;
      out.rows += kept.length;
    }
    return out;
  }

  /** Stores what the batch holds that is not stored yet; answers how many rows were new. */
  async write(batch: ReadingBatch): Promise<number> {
    const screened = await this.screen(batch);
    this.refused.malformed += screened.malformed;
    this.refused.impossibleTime += screened.impossibleTime;
    return this.writeScreened(screened.batch);
  }

  /** `write` for the rows `screen` kept (the ingest screens when rows arrive, not again when they leave). */
  async writeScreened(batch: ReadingBatch): Promise<number> {
    if (!countRows(batch)) return 0;
    const database = this.database;
    const merge =
      database?.kind === 'postgres'
        ? () =>
            database.writeAtomically(async ({ tx, copyInto }) => {
              let stored = 0;
              for (const part of READING_PARTS) {
                const rows = batch[part] as Row[] | undefined;
                if (rows?.length && copyInto)
                  stored += await this.merge(tx, part, await staged(tx, part, rows, copyInto));
              }
              return stored;
            })
        : () =>
            this.db.transaction(async (tx) => {
              let stored = 0;
              for (const part of READING_PARTS) {
                const rows = batch[part] as Row[] | undefined;
                if (rows?.length) stored += await this.merge(tx, part, asRecordset(part, rows));
              }
              return stored;
            });
    return this.withPartitions(merge, batch);
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
   * Inserts the rows `source` yields that are not stored yet, in key order, and marks the rollups'
   * keys of those stored. Most flushes hold new rows only: they go by a plain INSERT, which costs about
   * half of `ON CONFLICT DO NOTHING` (its speculative insertion, row by row). A flush that meets a row
   * stored already (a re-delivery, a re-read, a concurrent flush of the same key) is rolled back to
   * before it and merged again with ON CONFLICT.
   */
  private async merge(tx: Executor, part: ReadingPart, source: SQL): Promise<number> {
    await tx.execute(sql`savepoint merge_new_rows`);
    try {
      const stored = await this.insert(tx, part, source, false);
      await tx.execute(sql`release savepoint merge_new_rows`);
      return stored;
    } catch (error) {
      if (databaseError(error)?.code !== UNIQUE_VIOLATION) throw error;
      await tx.execute(sql`rollback to savepoint merge_new_rows`);
      return this.insert(tx, part, source, true);
    }
  }

  private async insert(tx: Executor, part: ReadingPart, source: SQL, skipStored: boolean): Promise<number> {
    const { name, key } = SHAPES[part];
    const days = PENDING_DAYS[part as keyof typeof PENDING_DAYS] as SQL | undefined;
    const [row] = await rowsOf<{ n: number }>(
      tx,
      sql`with stored as (
        insert into ${sql.identifier(name)} select * from ${source} order by ${sql.raw(key.join(', '))}
        ${skipStored ? sql`on conflict do nothing` : sql``} returning ${sql.raw(key.join(', '))}
      )${days ? sql`, marked as (${markPending(days)})` : sql``}
      select count(*)::int as n from stored`,
    );
    return row?.n ?? 0;
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

/** The part's rows COPY'd into the connection's staging table (PostgreSQL): one per connection, emptied at each commit. */
async function staged(
  tx: Executor,
  part: ReadingPart,
  rows: Row[],
  copyInto: <T extends PgTable>(table: T, rows: readonly T['$inferInsert'][], into: string) => Promise<number>,
): Promise<SQL> {
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
