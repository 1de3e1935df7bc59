/**
 * The benchmark databases: one PostgreSQL database per archive size, filled once with
 * `npm run seed -- --meters N` and reused by later runs (`BENCH_RESEED=1` starts over).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(new URL('../../packages/server/package.json', import.meta.url));
export const pg = require('pg');

/** The server the benchmarks run on: BENCH_DATABASE_URL names any database of it (default: local). */
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

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

/**
 * The database `meterdesk_bench_<label>` holding `meters` meters of one scale run, made when missing.
 * Answers its URL. VACUUM sets the visibility map, so index-only scans read no table pages, as on a
 * database that autovacuum has visited.
 */
export async function scaleDatabase(label, meters) {
  const name = `meterdesk_bench_${label}`;
  const url = databaseUrl(name);
  const exists = await withClient(adminUrl, async (c) => {
    const found = (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount > 0;
    if (found && process.env.BENCH_RESEED === '1') await c.query(`drop database ${name} with (force)`);
    else if (found) return true;
    await c.query(`create database ${name}`);
    return false;
  });
  const count = exists ? await meterCount(url) : 0;
  if (exists && count !== meters) {
    throw new Error(`${name} holds ${count} meters, not ${meters}: run with BENCH_RESEED=1 to build it again`);
  }
  if (!exists) {
    console.log(`Building ${name}: ${meters.toLocaleString('en-US')} meters (npm run seed)…`);
    const seeded = spawnSync(
      'npm',
      ['run', '--silent', 'seed', '--', '--meters', String(meters), '--database-url', url],
      { cwd: root, stdio: 'inherit' },
    );
    if (seeded.status !== 0) throw new Error(`npm run seed failed with ${seeded.status}`);
  }
  await withClient(url, (c) => c.query('vacuum analyze'));
  return url;
}

/** Runs `fn` with a client of the database at `url`. */
export const onDatabase = withClient;
