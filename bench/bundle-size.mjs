#!/usr/bin/env node
/**
 * Weighs what the browser downloads to show the login page, then the dashboard after login (and that
 * before its first chart: ECharts comes in lazy chunks): every
 * script and stylesheet it fetches, the lazy chunks included, gzipped at level 6 (what servers and
 * CDNs use by default). The web app is built fresh into a scratch directory and served by the real
 * server (PGlite, no broker), and Debian's Chromium opens it; what it fetched is weighed from the
 * build's files. Ratios are against the entry chunk of the same build, so numbers from different
 * machines or versions compare.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { buildServerIfStale } from '../scripts/build-server.mjs';
import { serverArgs } from '../scripts/server-process.mjs';
import { atEnd, cleanup, killAtEnd } from './lib/cleanup.mjs';
import { ADMIN_PASSWORD, client, freePort } from './lib/server.mjs';

const LOGIN_BUDGET_KB = 250;
/** Issue 17: the dashboard's scripts before its first chart (chart code comes in lazy chunks). */
const DASHBOARD_BUDGET_KB = 300;
/** The module that brings ECharts; it and what only it imports are the chart code. */
const CHART_RUNTIME = /(^|\/)charts\/echarts-runtime\.[jt]sx?$/;
const GZIP_LEVEL = 6;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// BENCH_WEB_DIST weighs a build already made (the smoke run in `npm test`, right after its production build).
const given = process.env.BENCH_WEB_DIST;
const scratch = mkdtempSync(join(tmpdir(), 'meterdesk-bench-bundle-'));
atEnd(() => rmSync(scratch, { recursive: true, force: true }));
const dist = given ?? join(scratch, 'dist');

if (!given) {
  const build = spawnSync(
    process.execPath,
    [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'],
    { cwd: join(root, 'packages/web'), stdio: 'inherit' },
  );
  if (build.status !== 0) throw new Error(`the web build failed (${build.status})`);
}

const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));
const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
if (!entry) throw new Error('The manifest has no entry chunk');

const port = await freePort();
const { DATABASE_URL: _onPglite, ...env } = process.env;
// The compiled server, as production runs it: under tsx the start alone took half a minute on a busy machine.
await buildServerIfStale(root);
const server = spawn(process.execPath, serverArgs(root), {
  cwd: root,
  env: {
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: join(scratch, 'data'),
    WEB_DIST: dist,
    ADMIN_PASSWORD,
    CAPTCHA: 'off',
    DEMO: 'off',
    SIMULATOR: 'off',
    MQTT_URL: '',
    MQTT_TCP_PORT: 'off',
    LOG_LEVEL: 'error',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
killAtEnd(server);
const api = client(port);
atEnd(() => api.close());
const deadline = Date.now() + 180_000;
while (!(await api.post('/sysuser/auth', {}).catch(() => null))) {
  if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
  if (Date.now() > deadline) throw new Error('the server did not answer within 3 minutes');
  await new Promise((resolve) => setTimeout(resolve, 250));
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
atEnd(() => browser.close());
const page = await browser.newPage({ baseURL: `http://127.0.0.1:${port}` });
const fetched = new Set();
page.on('response', (response) => {
  const path = new URL(response.url()).pathname;
  if (/\.(js|css)$/.test(path)) fetched.add(path.slice(1));
});
/** The files fetched since `since` was taken, each once (a cached file is not downloaded again). */
const fetchedSince = (since) => [...fetched].filter((file) => !since.has(file));

await page.goto('/login');
await page.getByTestId('login-submit').waitFor();
await page.waitForLoadState('networkidle');
const loginFiles = new Set(fetched);

const login = await page.request.post('/apis/sysuser/login', {
  data: { username: 'admin', password: ADMIN_PASSWORD, code: 'x', codeFill: 'x' },
});
if ((await login.json()).code !== 200) throw new Error(`login: ${await login.text()}`);
await page.goto('/');
await page.getByTestId('header-menu').waitFor();
// The dashboard's own chunk has come once its cards (or its word that there are none) show.
await page.locator('[data-testid^="dashboard-card-"], [data-testid="dashboard-empty"]').first().waitFor();
await page.waitForLoadState('networkidle');
const dashboardFiles = fetchedSince(loginFiles);

const gzipped = (file) => gzipSync(readFileSync(join(dist, file)), { level: GZIP_LEVEL }).length;
const weigh = (files) => {
  let js = 0;
  let css = 0;
  for (const file of files) {
    if (file.endsWith('.css')) css += gzipped(file);
    else js += gzipped(file);
  }
  return { js, css, total: js + css, files: files.length };
};

/** The files of `keys` and of everything they import statically, by manifest key. */
const closure = (keys) => {
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key) || !manifest[key]) return;
    seen.add(key);
    for (const imported of manifest[key].imports ?? []) visit(imported);
  };
  for (const key of keys) visit(key);
  return new Set([...seen].flatMap((key) => [manifest[key].file, ...(manifest[key].css ?? [])]));
};
const manifestKeys = Object.keys(manifest);
// Chart code: the runtime's files that no other chunk fetched for the dashboard needs.
const chartRuntime = closure(manifestKeys.filter((key) => CHART_RUNTIME.test(key)));
const beforeCharts = closure(
  manifestKeys.filter((key) => fetched.has(manifest[key].file) && !chartRuntime.has(manifest[key].file)),
);
const chartFiles = new Set([...chartRuntime].filter((file) => !beforeCharts.has(file)));
const dashboardBeforeCharts = dashboardFiles.filter((file) => !chartFiles.has(file));

const kb = (bytes) => (bytes / 1024).toFixed(1).padStart(8);
const baseline = weigh([entry.file]).total;
const rows = [
  ['entry chunk alone (baseline)', weigh([entry.file])],
  ['login page (first visit)', weigh([...loginFiles])],
  ['dashboard after login (fetched after the login page)', weigh(dashboardFiles)],
  ['login page, then dashboard (all fetched)', weigh([...fetched])],
  ['dashboard before its first chart (charts left out)', weigh(dashboardBeforeCharts)],
  ['chart code (lazy chunks)', weigh([...chartFiles].filter((file) => fetched.has(file)))],
];
console.log(`Scripts and stylesheets the browser fetches, gzipped (zlib level ${GZIP_LEVEL}), from a fresh build`);
console.log(`  ${''.padEnd(54)} ${'JS KB'.padStart(8)} ${'CSS KB'.padStart(8)} ${'KB'.padStart(8)} files`);
for (const [label, w] of rows) {
  console.log(
    `  ${label.padEnd(54)} ${kb(w.js)} ${kb(w.css)} ${kb(w.total)} ${String(w.files).padStart(5)}   ${(w.total / baseline).toFixed(2)}x entry`,
  );
}
const loginKb = rows[1][1].total / 1024;
const dashboardKb = rows[4][1].js / 1024;
console.log(
  `login page ${loginKb < LOGIN_BUDGET_KB ? 'is under' : 'EXCEEDS'} the ${LOGIN_BUDGET_KB} KB budget: ${loginKb.toFixed(1)} KB; ` +
    `dashboard before its first chart ${dashboardKb < DASHBOARD_BUDGET_KB ? 'is under' : 'EXCEEDS'} the ${DASHBOARD_BUDGET_KB} KB budget: ${dashboardKb.toFixed(1)} KB of JavaScript`,
);
await cleanup();
