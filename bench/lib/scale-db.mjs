/**
 * The benchmark databases, filled with `npm run seed -- --meters N`. Each run makes its own
 * (`meterdesk_bench_<size>_<pid>`) and drops it at its end however it ends, so two runs never drop
 * each other's. `BENCH_REUSE=1` keeps one database per archive size instead (`meterdesk_bench_<size>`),
 * built once and reused by later runs (`BENCH_RESEED=1` starts over): a million meters take minutes to
 * seed, and such runs are not to be made side by side.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { atEnd } from './cleanup.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(new URL('../../packages/server/package.json', import.meta.url));
export const pg = require('pg');

/** The server the benchmarks run on: BENCH_DATABASE_URL names any database of it (default: local). */
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REUSE = process.env.BENCH_REUSE === '1';

/** Whether the PostgreSQL server answers (a fresh machine may have none). */
export async function postgresAnswers() {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** `1k`, `1m`, or the count itself: a size's part of a database name. */
export const sizeLabel = (meters) =>
  meters % 1_000_000 === 0 ? `${meters / 1_000_000}m` : meters % 1000 === 0 ? `${meters / 1000}k` : String(meters);

/**
 * A database name of this run's own, dropped at its end (a failure, SIGINT or SIGTERM included):
 * answers `meterdesk_bench_<label>_<pid>`, created empty; with `BENCH_REUSE=1`, `meterdesk_bench_<label>`
 * and null (the caller builds or reuses it).
 */
export async function runDatabase(label) {
  if (REUSE) return null;
  const name = `meterdesk_bench_${label}_${process.pid}`;
  await withClient(adminUrl, (c) => c.query(`create database ${name}`));
  atEnd(() => withClient(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`)));
  return name;
}

export const databaseUrl = (name) => {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const meterCount = (url) =>
  withClient(url, async (c) => {
    const { rows } = await c.query(`select to_regclass('public.meter') is not null as ready`);
    if (!rows[0].ready) return 0;
    return Number((await c.query('select count(*) from meter')).rows[0].count);
  });

/** The last day of a seeded history (`npm run seed -- --days`), or null. */
const historyEnd = (url) =>
  withClient(url, async (c) => (await c.query(`select max(day)::text as day from rollup_grid_day`)).rows[0].day);

/**
 * A database holding `meters` meters of one scale run (runDatabase: this run's own, or with
 * `BENCH_REUSE=1` the size's shared one, made when missing), with `history` ({days, profileDays,
 * profileEvery}: `npm run seed -- --days`) when given. Answers its URL. VACUUM sets the visibility
 * map, so index-only scans read no table pages, as on a database that autovacuum has visited.
 */
export async function scaleDatabase(meters, history = null) {
  const label = history ? `${sizeLabel(meters)}_${history.days}d` : sizeLabel(meters);
  const own = await runDatabase(label);
  const name = own ?? `meterdesk_bench_${label}`;
  const url = databaseUrl(name);
  const exists =
    !own &&
    (await withClient(adminUrl, async (c) => {
      const found = (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount > 0;
      if (found && process.env.BENCH_RESEED === '1') await c.query(`drop database ${name} with (force)`);
      else if (found) return true;
      await c.query(`create database ${name}`);
      return false;
    }));
  const count = exists ? await meterCount(url) : 0;
  if (exists && count !== meters) {
    throw new Error(`${name} holds ${count} meters, not ${meters}: run with BENCH_RESEED=1 to build it again`);
  }
  const today = new Date().toISOString().slice(0, 10);
  if (exists && history && (await historyEnd(url)) !== today) {
    throw new Error(`${name} holds a history that ends before today: run with BENCH_RESEED=1 to build it again`);
  }
  if (!exists) {
    const days = history
      ? ['--days', history.days, '--profile-days', history.profileDays, '--profile-every', history.profileEvery].map(
          String,
        )
      : [];
    console.log(`Building ${name}: ${meters.toLocaleString('en-US')} meters (npm run seed ${days.join(' ')})…`);
    const seeded = spawnSync(
      'npm',
      ['run', '--silent', 'seed', '--', '--meters', String(meters), ...days, '--database-url', url],
      { cwd: root, stdio: 'inherit' },
    );
    if (seeded.status !== 0) throw new Error(`npm run seed failed with ${seeded.status}`);
  }
  await withClient(url, (c) => c.query('vacuum analyze'));
  return url;
}

/** Runs `fn` with a client of the database at `url`. */
export const onDatabase = withClient;
