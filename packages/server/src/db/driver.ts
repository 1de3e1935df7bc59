import { AsyncLocalStorage } from 'node:async_hooks';
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgTable } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../paths';
import { type AtomicWriter, bulkInsert, writeAtomically } from './bulk-insert';
import { type DataDirHolder, lockDataDir } from './data-dir-lock';
import type { Db } from './executor';
import * as schema from './schema';

export type { Db, Executor, Tx } from './executor';

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** How a second client (the job system) reaches the same database. */
  connection: { kind: 'postgres'; url: string } | { kind: 'pglite'; client: PGlite; dataDir: string | undefined };
  migrate(): Promise<void>;
  /** Many rows at once: COPY on PostgreSQL, chunked INSERTs on PGlite (`db/bulk-insert.ts`). */
  bulkInsert<T extends PgTable>(table: T, rows: readonly T['$inferInsert'][]): Promise<number>;
  /** One transaction whose bulk rows go through COPY too (`db/bulk-insert.ts`). */
  writeAtomically<R>(work: (writer: AtomicWriter) => Promise<R>): Promise<R>;
  close(): Promise<void>;
}

const migrationsFolder = MIGRATIONS_DIR;

/** An embedded database with the extensions the migrations create (pg_trgm, 0008). */
export const createPglite = (options: PGliteOptions = {}) => PGlite.create({ ...options, extensions: { pg_trgm } });
const casing = 'snake_case' as const;

/**
 * Settings of every session the server opens on PostgreSQL. JIT off: the server's statements read a
 * page of rows by their keys, but an analytics query over a large archive is estimated big enough for
 * PostgreSQL to compile it first, which cost more than the query itself (task analysis on 5,000 meters:
 * 300–1,000 ms a call with JIT, 30–100 ms without; seconds on 20,000).
 */
export const SESSION_OPTIONS = '-c jit=off';

/**
 * The driver seam: PostgreSQL when a URL is given, otherwise PGlite in `dataDir` (or the
 * instance passed in, which tests load from a prepared dump). Same schema, same SQL.
 * `dataDir` stays locked for `holder` until `close` (`db/data-dir-lock.ts`).
 */
export async function openDatabase(
  options: { databaseUrl?: string | undefined; pglite?: PGlite } & (
    | { dataDir: string; holder: DataDirHolder }
    | { dataDir?: undefined }
  ),
): Promise<Database> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10, options: SESSION_OPTIONS });
    // An idle connection the server drops (restart, failover) must not crash the process; the pool reconnects.
    pool.on('error', (err) => console.warn('database: idle connection lost', err.message));
    const db = drizzlePg(pool, { schema, casing });
    return {
      db: db as unknown as Db,
      kind: 'postgres',
      connection: { kind: 'postgres', url: options.databaseUrl },
      migrate: () => migratePg(db, { migrationsFolder }),
      bulkInsert: (table, rows) => bulkInsert({ db: db as unknown as Db, pool }, table, rows),
      writeAtomically: (work) => writeAtomically({ db: db as unknown as Db, pool }, work),
      close: () => pool.end(),
    };
  }
  let client = options.pglite;
  const dir = !client && options.dataDir ? path.join(options.dataDir, 'pgdata') : undefined;
  let unlock = () => {};
  if (!client) {
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
      unlock = lockDataDir(options.dataDir, options.holder);
    }
    try {
      if (dir && options.dataDir) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        makePrivate(options.dataDir);
      }
      client = await createPglite(dir ? { dataDir: dir } : {});
      // Again for the files a first start has just created.
      if (options.dataDir) makePrivate(options.dataDir);
    } catch (err) {
      unlock();
      throw err;
    }
  }
  const owned = client;
  yieldBetweenMessages(owned);
  foregroundFirst(owned);
  const db = drizzlePglite(owned, { schema, casing });
  return {
    db: db as unknown as Db,
    kind: 'pglite',
    connection: { kind: 'pglite', client: owned, dataDir: dir ? options.dataDir : undefined },
    migrate: () => migratePglite(db, { migrationsFolder }),
    bulkInsert: (table, rows) => bulkInsert({ db: db as unknown as Db, pool: null }, table, rows),
    writeAtomically: (work) => writeAtomically({ db: db as unknown as Db, pool: null }, work),
    close: async () => {
      await owned.close();
      unlock();
    },
  };
}

const foreground = new AsyncLocalStorage<true>();

/** Runs `work` (the handling of a request) with its PGlite statements ahead of background work's. */
export const inForeground = <T>(work: () => T): T => foreground.run(true, work);

/**
 * PGlite has one connection: each statement or transaction waits for the one before it, in order of
 * arrival, so a login waited behind every write the history fill had queued (2–30 s on a loaded
 * machine). Here a request's statement waits for the one running only, background work for what is
 * free. The wrapped method is where PGlite's query, exec and transaction take their turn.
 */
function foregroundFirst(client: PGlite): void {
  const exclusive = client._runExclusiveTransaction.bind(client);
  const waiting = { foreground: [] as (() => void)[], background: [] as (() => void)[] };
  let busy = false;
  client._runExclusiveTransaction = async (work) => {
    if (busy)
      await new Promise<void>((resolve) => waiting[foreground.getStore() ? 'foreground' : 'background'].push(resolve));
    busy = true;
    try {
      return await exclusive(work);
    } finally {
      const next = waiting.foreground.shift() ?? waiting.background.shift();
      busy = next !== undefined;
      next?.();
    }
  };
}

/** Longest run of PGlite work before the event loop gets a turn. */
const SLICE_MS = 10;

/**
 * PGlite runs each query synchronously on this thread and settles its promises as microtasks, so a
 * chain of queries (the demo history's ingest, the head-end, a job) never let the event loop read a
 * socket: during the first start's history fill a static file or a login waited 3–7 s for the chain
 * to pause. Every protocol message sent after SLICE_MS of such work waits for the loop's next turn.
 */
function yieldBetweenMessages(client: PGlite): void {
  const send = client.execProtocolRaw.bind(client);
  let turned = performance.now();
  client.execProtocolRaw = async (message, options) => {
    if (performance.now() - turned >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      turned = performance.now();
    }
    return send(message, options);
  };
}

/**
 * The data directory holds the database files (their WAL carries password hashes) and the secret
 * key: only the service user may read them. Checked and fixed at every start, since an older
 * version, a copy or a restore may have left them open; main.ts sets the umask for new files.
 */
export function makePrivate(root: string): void {
  const walk = (p: string) => {
    const stat = lstatSync(p);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== 0o700) chmodSync(p, 0o700);
      for (const name of readdirSync(p)) walk(path.join(p, name));
    } else if (stat.mode & 0o077) {
      chmodSync(p, stat.mode & 0o700);
    }
  };
  walk(root);
}
