// The server the journeys run against, compiled and started as `npm start` starts it (built first when
// stale), on a data directory of its own that goes when the server stops: Playwright ends the web server
// with SIGTERM (gracefulShutdown in playwright.config.ts), and only this wrapper outlives the server to
// remove what it wrote, the stored logins included.
//
// Where PostgreSQL answers (E2E_DATABASE_URL, or the local server CI's machine runs), the journeys run
// on a database of their own there, dropped at the end: the production setup, and one that serves two
// browsers at once, where the embedded PGlite answers one statement at a time. Elsewhere on PGlite.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { buildServerIfStale } from '../scripts/build-server.mjs';
import { serverArgs } from '../scripts/server-process.mjs';

const scratch = process.env.E2E_SCRATCH;
if (!scratch) throw new Error('E2E_SCRATCH is not set: start the journeys with `npx playwright test`');
const dataDir = path.join(scratch, 'data');
rmSync(scratch, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });

const adminUrl = process.env.E2E_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const databaseName = `meterdesk_e2e_${process.pid}`;

/**
 * Runs one statement as the PostgreSQL administrator; false when the server does not answer or refuses
 * (a local server where this user may not create databases). A URL given on purpose must work.
 */
async function admin(statement) {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query(statement);
    return true;
  } catch (err) {
    if (process.env.E2E_DATABASE_URL) throw new Error(`E2E_DATABASE_URL=${adminUrl}: ${err.message}`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// The simulated faults e2e/tariffs-and-firmware.spec.ts counts on: meters whose serial ends in 3 fail their
// first calendar write, in 4 every firmware image verification.
const env = { ...process.env, DATA_DIR: dataDir, SIMULATOR_ARGS: '--fail-calendar-once 3$ --fail-image-verify 4$' };
if (process.env.E2E_DATABASE !== 'pglite' && (await admin(`CREATE DATABASE ${databaseName}`))) {
  const url = new URL(adminUrl);
  url.pathname = `/${databaseName}`;
  // The journeys expect what a first start on PGlite brings: the demo archive and its simulated fleet.
  Object.assign(env, { DATABASE_URL: url.toString(), DEMO: 'on', SIMULATOR: 'on' });
}

const root = path.resolve(import.meta.dirname, '..');
await buildServerIfStale(root);
const server = spawn(process.execPath, serverArgs(root), { cwd: root, stdio: 'inherit', env });
// Playwright signals the whole process group; the server stops on its own signal, this one only waits.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', async (code, signal) => {
  rmSync(scratch, { recursive: true, force: true });
  if (env.DATABASE_URL) await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`).catch(() => undefined);
  process.exit(code ?? (signal ? 1 : 0));
});
