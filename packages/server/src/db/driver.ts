import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTable, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { type AtomicWriter, bulkInsert, writeAtomically } from './bulk-insert';
import { type DataDirHolder, lockDataDir } from './data-dir-lock';
import * as schema from './schema';

type Schema = typeof schema;
/** The one query interface business code sees, whatever runs underneath. */
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Executor = Db | Tx;

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

const migrationsFolder = path.join(import.meta.dirname, 'migrations');

/** An embedded database with the extensions the migrations create (pg_trgm, 0008). */
export const createPglite = (options: PGliteOptions = {}) => PGlite.create({ ...options, extensions: { pg_trgm } });
const casing = 'snake_case' as const;

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
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
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
