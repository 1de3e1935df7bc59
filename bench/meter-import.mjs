#!/usr/bin/env node
/**
 * The 100,000-row meter import of issue 7 ("Performance": at most 60 s on PostgreSQL, peak RSS at
 * most 400 MB, all or nothing). Runs the real server (compiled, started as `npm start` starts it) as
 * a child process on a database of its own (on PGlite where PostgreSQL does not answer), writes each
 * file in the format of the server's own template (stream-written, shared strings after the sheet as
 * Excel saves them), uploads it through the API and follows the job to its end, sampling the server's
 * resident memory from /proc meanwhile. Every row makes a consumer, a module, a POC and a meter (with a sealed HES
 * password): the most an import row writes.
 *
 * Baselines from the same run: the idle server's RSS, and a 10,000-row import for scale.
 *
 *   npm run bench:import [-- --rows 100000 --baseline-rows 10000 --keep]
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres (the default; a database is created beside it)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ExcelJS from 'exceljs';
import pg from 'pg';
import { buildServerIfStale } from '../scripts/build-server.mjs';
import { serverArgs } from '../scripts/server-process.mjs';
import { postgresAnswers } from './lib/scale-db.mjs';

const TARGET_SECONDS = 60;
const TARGET_RSS_MB = 400;
const ADMIN_PASSWORD = 'Bench123';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    'baseline-rows': { type: 'string', default: '10000' },
    keep: { type: 'boolean', default: false },
  },
});
const ROWS = Number(args.rows);
const BASELINE_ROWS = Number(args['baseline-rows']);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const work = mkdtempSync(join(tmpdir(), 'meterdesk-bench-import-'));
const dbName = `meterdesk_bench_import_${process.pid}`;
const mb = (kb) => kb / 1024;

async function adminQuery(sql) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The server's resident set and its high-water mark, in kB, from /proc. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/**
 * The highest RSS of a phase: sampled every 50 ms, and the kernel's high-water mark (reset at the
 * phase's start through clear_refs where the kernel lets us), whichever is higher.
 */
function watchPeak(pid) {
  let resetHwm = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    resetHwm = false;
  }
  let peak = memoryOf(pid).rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryOf(pid).rss);
  }, 50);
  return () => {
    clearInterval(timer);
    const last = memoryOf(pid);
    return Math.max(peak, last.rss, resetHwm ? last.hwm : 0);
  };
}

/** The server on `databaseUrl`, or on PGlite in its data directory when null. */
async function startServer(databaseUrl) {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: join(work, 'data'),
    ADMIN_PASSWORD,
    CAPTCHA: 'off',
    DEMO: 'off',
    MQTT_TCP_PORT: 'off',
    LOG_LEVEL: 'warn',
  };
  delete env.MQTT_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, serverArgs(root), {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  const base = `http://127.0.0.1:${port}/apis`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
    try {
      await fetch(`${base}/sysuser/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, base, stop, output: () => output };
}

function client(base) {
  let cookie = '';
  const call = async (path, body) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify(body),
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) cookie = setCookie.split(';')[0];
    const answer = await res.json();
    if (answer.code !== 200) throw new Error(`${path}: ${JSON.stringify(answer)}`);
    return answer.data;
  };
  const raw = (path, body, headers = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { cookie, ...headers }, body });
  return { call, raw };
}

/** The meter import's headers as the server's template writes them in the admin's language. */
async function templateHeaders(api) {
  const res = await api.raw('/meter/template', '{}', { 'content-type': 'application/json' });
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(Buffer.from(await res.arrayBuffer()));
  return book.worksheets[0].getRow(1).values.slice(1);
}

/**
 * A meter file of `rows` rows under the template's headers, each making its consumer, module and
 * POC; the cells follow the template's columns (METER_IMPORT_COLUMNS, spec §3's order).
 */
async function writeMeterFile(path, headers, rows, prefix) {
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true, useStyles: false });
  const sheet = book.addWorksheet('Meters');
  sheet.addRow(headers).commit();
  for (let i = 0; i < rows; i++) {
    const n = `${prefix}${String(i).padStart(7, '0')}`;
    const row = {
      consumerCode: `C${n}`,
      consumerName: `Consumer ${n}`,
      identityNumber: `ID${n}`,
      devAddr: `M${n}`,
      moduleNo: `MOD${n}`,
      simNo: `139${String(i).padStart(8, '0')}`,
      meterBoxNo: `BOX${i % 500}`,
      gridName: 'BENCH',
      supplierName: 'Bench supplier',
      tariffId: '',
      pocPoint: `P${n}`,
      pocNature: 'Consumer',
      dcuNo: 'BENCHDCU1',
      hesPassword: `hes-${n}`,
      interfaceType: 'Optical port',
      meterTypeName: 'BENCH-1P',
    };
    const cells = Object.values(row);
    if (cells.length !== headers.length)
      throw new Error(`the template has ${headers.length} columns, the bench ${cells.length}`);
    sheet.addRow(cells).commit();
  }
  sheet.commit();
  await book.commit();
  return readFileSync(path);
}

async function runImport(api, pid, file, rows) {
  const stopWatch = watchPeak(pid);
  const started = performance.now();
  const res = await api.raw('/meter/import', file, {
    'content-type': XLSX,
    'x-file-name': encodeURIComponent(`bench-${rows}.xlsx`),
  });
  const answer = await res.json();
  if (answer.code !== 200) throw new Error(`upload: ${JSON.stringify(answer)}`);
  const { importId } = answer.data;
  let status;
  let writingAt = null;
  for (;;) {
    status = await api.call('/meter/importstatus', { importId });
    if (status.state === 'writing' && writingAt === null) writingAt = performance.now();
    if (status.state === 'done' || status.state === 'failed') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const seconds = (performance.now() - started) / 1000;
  const peak = stopWatch();
  if (status.state !== 'done' || status.imported !== rows) {
    throw new Error(`the import of ${rows} rows ended ${status.state}: ${JSON.stringify(status.errors.slice(0, 3))}`);
  }
  const checking = writingAt === null ? null : (writingAt - started) / 1000;
  return { rows, seconds, checking, peak, bytes: file.length };
}

/** Rows of each table, through the API's lists where PGlite is the server's own. */
async function tableRows(url, api) {
  if (!url) {
    const total = async (entity) => (await api.call(`/${entity}/list`, { pageSize: 1 })).total;
    return {
      meter: await total('meter'),
      consumer: await total('consumer'),
      comm_module: await total('module'),
      poc: await total('poc'),
    };
  }
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const rows = {};
    for (const table of ['meter', 'consumer', 'comm_module', 'poc'])
      rows[table] = (await db.query(`select count(*)::int as n from ${table}`)).rows[0].n;
    return rows;
  } finally {
    await db.end();
  }
}

async function main() {
  await buildServerIfStale(root);
  const onPostgres = await postgresAnswers();
  let url = null;
  if (onPostgres) {
    await adminQuery(`CREATE DATABASE ${dbName}`);
    const target = new URL(adminUrl);
    target.pathname = `/${dbName}`;
    url = target.toString();
  }
  const server = await startServer(url);
  const pid = server.child.pid;
  try {
    const api = client(server.base);
    await api.call('/sysuser/login', { username: 'admin', password: ADMIN_PASSWORD, code: 'x', codeFill: 'x' });
    const grid = await api.call('/powergrid/save', {
      gridCode: 'BENCH',
      gridName: 'Bench grid',
      gridType: 0,
      parentId: '0',
    });
    const supplier = await api.call('/supplier/save', { supplierCode: 'BENCHSUP', supplierName: 'Bench supplier' });
    await api.call('/metertype/save', {
      modelName: 'BENCH-1P',
      supplierId: supplier.id,
      wiring: '1P2W',
      side: 'secondary',
    });
    await api.call('/dcu/save', { dcuNo: 'BENCHDCU1', gridId: grid.id });
    const headers = await templateHeaders(api);

    // Idle: what the started server holds once it has answered a few calls and settled.
    await new Promise((r) => setTimeout(r, 3000));
    const idle = memoryOf(pid).rss;

    const baselineFile = await writeMeterFile(join(work, 'baseline.xlsx'), headers, BASELINE_ROWS, 'A');
    const baseline = await runImport(api, pid, baselineFile, BASELINE_ROWS);
    const mainFile = await writeMeterFile(join(work, 'main.xlsx'), headers, ROWS, 'B');
    const main = await runImport(api, pid, mainFile, ROWS);

    // All written: every table holds each file's rows once.
    for (const [table, n] of Object.entries(await tableRows(url, api)))
      if (n !== BASELINE_ROWS + ROWS) throw new Error(`${table} holds ${n} rows`);

    const mbText = (kb) => `${mb(kb).toFixed(0)} MB`;
    const line = (r) =>
      [
        `${r.rows.toLocaleString('en')} rows (${(r.bytes / 1048576).toFixed(1)} MB file)`,
        `${r.seconds.toFixed(1)} s (checked in ${r.checking?.toFixed(1) ?? '?'} s)`,
        `${Math.round(r.rows / r.seconds).toLocaleString('en')} rows/s`,
        `peak RSS ${mbText(r.peak)} (+${mbText(r.peak - idle)} over idle)`,
      ].join(', ');
    console.log(
      `Meter import on ${onPostgres ? 'PostgreSQL' : 'PGlite (PostgreSQL does not answer)'}, the server compiled as npm start runs it (pid ${pid})`,
    );
    console.log('every row makes a consumer, a module, a POC and a meter');
    console.log(
      `machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end (timings share it)`,
    );
    console.log(`idle server: RSS ${mbText(idle)}`);
    console.log(`baseline: ${line(baseline)}`);
    console.log(`measured: ${line(main)}`);
    const rowRatio = main.rows / baseline.rows;
    const timeRatio = main.seconds / baseline.seconds;
    const memoryRatio = (main.peak - idle) / Math.max(1, baseline.peak - idle);
    console.log(
      `ratios: ${rowRatio.toFixed(0)}x the rows took ${timeRatio.toFixed(1)}x the time and ${memoryRatio.toFixed(1)}x the memory over idle; peak ${(main.peak / idle).toFixed(2)}x the idle RSS`,
    );
    const timeOk = main.seconds <= TARGET_SECONDS;
    const memoryOk = mb(main.peak) <= TARGET_RSS_MB;
    // Printed, not the exit code: a shared machine's timings decide nothing (a smoke run must not fail on them).
    console.log(
      `targets: at most ${TARGET_SECONDS} s ${timeOk ? 'met' : 'MISSED'}, peak RSS at most ${TARGET_RSS_MB} MB ${memoryOk ? 'met' : 'MISSED'}`,
    );
  } catch (err) {
    console.error(server.output());
    throw err;
  } finally {
    await server.stop();
    if (!onPostgres) {
      if (args.keep) console.log(`kept PGlite data directory ${join(work, 'data')}`);
    } else if (!args.keep) await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    else console.log(`kept database ${dbName}`);
    if (!args.keep || onPostgres) rmSync(work, { recursive: true, force: true });
  }
}

await main();
