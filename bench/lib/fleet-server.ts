/**
 * A head-end benchmark's setup on PostgreSQL: a database of the run's own holding DCUs and their
 * meters as `npm run seed` makes them, the server as a child process (its embedded broker admits the
 * devices on a TCP port that survives restarts), and the simulator as another child process playing
 * the archive's fleet; all of it undone at the run's end (lib/cleanup.mjs).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_BATCH_DEVICES } from '@meterdesk/contracts';
import pg from 'pg';
import { SecretBox } from '../../packages/server/src/crypto/secret-box';
import { openDatabase } from '../../packages/server/src/db/driver';
import { buildFleet } from '../../packages/server/src/headend/fleet';
import { DeviceCredentials } from '../../packages/server/src/mqtt/device-credentials';
import { seedScaleArchive } from '../../packages/server/src/seed/scale-archive';
import { seed } from '../../packages/server/src/seed/seed';
import { atEnd, killAtEnd } from './cleanup.mjs';
import { ADMIN_PASSWORD, client, freePort } from './server.mjs';

export { freePort };

const root = fileURLToPath(new URL('../..', import.meta.url));
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface FleetDatabase {
  url: string;
  secretKey: string;
  fleetFile: string;
  dcus: string[];
  meters: string[];
  /** A plain client on the database, for counting what the server wrote. */
  sql: pg.Client;
  scratch: string;
}

/**
 * A database of this run's own (`meterdesk_bench_<label>_<pid>`, so two runs never drop each other's),
 * dropped at the run's end however it ends, holding the archive as `npm run seed` makes it
 * (seedScaleArchive: each meter with its consumer, module and POC, as commands require) in `dcus`
 * transformer areas of `metersPerDcu` meters, each with its DCU; and its fleet file.
 */
export async function fleetDatabase(label: string, dcus: number, metersPerDcu: number): Promise<FleetDatabase> {
  const name = `meterdesk_bench_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const scratch = mkdtempSync(join(tmpdir(), 'meterdesk-headend-bench-'));
  atEnd(async () => {
    rmSync(scratch, { recursive: true, force: true });
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  const target = new URL(adminUrl);
  target.pathname = `/${name}`;
  const url = target.toString();

  const key = randomBytes(32);
  const database = await openDatabase({ databaseUrl: url });
  await database.migrate();
  await seed(database.db, { adminPassword: ADMIN_PASSWORD });
  await seedScaleArchive(database, { meters: dcus * metersPerDcu, metersPerArea: metersPerDcu });
  const fleet = await buildFleet(database.db, new DeviceCredentials(database.db, new SecretBox(key)));
  await database.close();

  const fleetFile = join(scratch, 'fleet.json');
  writeFileSync(fleetFile, JSON.stringify(fleet), { mode: 0o600 });
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  atEnd(() => sql.end());
  return {
    url,
    secretKey: key.toString('base64'),
    fleetFile,
    dcus: fleet.dcus.map((d) => d.dcuNo),
    meters: fleet.dcus.flatMap((d) => d.meters.map((m) => m.devAddr)),
    sql,
    scratch,
  };
}

/** The benchmarks' keep-alive client (bench/lib/server.mjs), logging in as the administrator. */
export function apiClient(port: number) {
  const api = client(port) as {
    post(path: string, body: unknown): Promise<{ status: number; body: { code: number; msg: string; data: unknown } }>;
    close(): void;
  };
  const login = async () => {
    const answer = await api.post('/sysuser/login', {
      username: 'admin',
      password: ADMIN_PASSWORD,
      code: 'x',
      codeFill: 'x',
    });
    if (answer.body.code !== 200) throw new Error(`login: ${JSON.stringify(answer.body)}`);
  };
  return { post: api.post, login, close: api.close };
}

export interface ServerProcess {
  child: ChildProcess;
  exited: Promise<unknown>;
}

/** The server on the fleet database, its embedded broker listening for devices on `mqttPort`. */
export function startServer(
  db: FleetDatabase,
  port: number,
  mqttPort: number,
  env: Record<string, string> = {},
): ServerProcess {
  const dataDir = mkdtempSync(join(db.scratch, 'data-'));
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      '--import',
      'tsx',
      join(root, 'packages/server/src/main.ts'),
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: db.url,
        SECRET_KEY: db.secretKey,
        ADMIN_PASSWORD,
        CAPTCHA: 'off',
        DEMO: 'off',
        SIMULATOR: 'off',
        MQTT_URL: '',
        MQTT_TCP_PORT: String(mqttPort),
        LOG_LEVEL: 'error',
        LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return { child, exited: killAtEnd(child) };
}

/** Waits until the server answers and logs the client in. */
export async function ready(api: ReturnType<typeof apiClient>, server: ServerProcess): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`the server exited with ${server.child.exitCode}`);
    const up = await api.post('/sysuser/auth', {}).catch(() => null);
    if (up) break;
    if (Date.now() > deadline) throw new Error('the server did not answer within 3 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await api.login();
}

/** The simulator CLI playing the fleet file on the server's device listener, writing its counters. */
export function startSimulatorProcess(db: FleetDatabase, mqttPort: number, latency: string, extra: string[] = []) {
  const statsFile = join(db.scratch, 'simulator-stats.json');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'packages/simulator/src/cli.ts'),
      '--fleet',
      db.fleetFile,
      '--url',
      `mqtt://127.0.0.1:${mqttPort}`,
      '--latency',
      latency,
      '--stats-file',
      statsFile,
      '--outages',
      '0',
      '--cover-opens',
      '0',
      ...extra,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const exited = killAtEnd(child);
  return {
    stats: () => JSON.parse(readFileSync(statsFile, 'utf8')) as Record<string, unknown>,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Waits until the server has heard every one of `meters` (and its DCU) say it is online. */
export async function fleetOnline(db: FleetDatabase, meters: number, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.sql.query(
      `select count(*)::int as n from device_link where device_kind = 'meter' and online`,
    );
    if (rows[0].n >= meters) return;
    if (Date.now() > deadline) throw new Error(`only ${rows[0].n} of ${meters} meters came online`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A generator of the same numbers for the same seed (kill moments that repeat from run to run). */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * Every meter of the fleet once, in one-shot plans of at most 30 meters sent all at once (`send` posts
 * one batch), until every command they queued is answered: meters a second, and the result codes of
 * the ledger so far.
 */
export async function everyMeterOnce(
  db: FleetDatabase,
  send: (batch: string[], index: number) => Promise<{ body: { code: number } }>,
): Promise<{ rate: number; seconds: number; codes: string }> {
  const count = async () =>
    (
      await db.sql.query(
        `select count(*) filter (where state = 'done')::int as done, count(*)::int as n from device_command`,
      )
    ).rows[0] as { done: number; n: number };
  const before = (await count()).n;
  const started = performance.now();
  const batches: Promise<void>[] = [];
  for (let i = 0; i * MAX_BATCH_DEVICES < db.meters.length; i++)
    batches.push(
      send(db.meters.slice(i * MAX_BATCH_DEVICES, (i + 1) * MAX_BATCH_DEVICES), i).then((answer) => {
        if (answer.body.code !== 200) throw new Error(JSON.stringify(answer.body));
      }),
    );
  await Promise.all(batches);
  for (;;) {
    const { done, n } = await count();
    if (n - before === db.meters.length && done === n) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const { rows } = await db.sql.query(
    `select result_code, count(*)::int as n from device_command group by result_code order by 1`,
  );
  return {
    rate: db.meters.length / seconds,
    seconds,
    codes: rows.map((r: { result_code: string; n: number }) => `${r.result_code}: ${r.n}`).join(', '),
  };
}
