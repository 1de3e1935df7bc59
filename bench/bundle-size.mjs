#!/usr/bin/env node
/**
 * Weighs the JavaScript each route makes the browser download, gzipped, from the Vite manifest
 * of packages/web/dist. Ratios are against the entry chunk of the same build, so numbers from
 * different machines or versions compare.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const LOGIN_BUDGET_KB = 250;
const ROUTES = {
  login: ['src/pages/login/login.page.tsx'],
  dashboard: ['src/app/shell/shell.tsx', 'src/pages/dashboard/dashboard.page.tsx'],
};

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'packages/web/dist');
const manifestPath = join(dist, '.vite/manifest.json');

if (!existsSync(manifestPath)) {
  console.warn('packages/web/dist is missing; building it first');
  const build = spawnSync('npm', ['run', 'build', '--workspace', '@meterdesk/web'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
if (!entryKey) throw new Error('The manifest has no entry chunk');

/** The chunks and everything they import statically (what loads before the code runs). */
function closure(keys) {
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`The manifest has no chunk for ${key}; did a page move?`);
    seen.add(key);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const key of keys) visit(key);
  return seen;
}

const gzipCache = new Map();
function gzippedBytes(keys) {
  let total = 0;
  for (const key of keys) {
    const file = manifest[key].file;
    if (!file.endsWith('.js')) continue;
    if (!gzipCache.has(file)) gzipCache.set(file, gzipSync(readFileSync(join(dist, file)), { level: 9 }).length);
    total += gzipCache.get(file);
  }
  return total;
}

const kb = (bytes) => bytes / 1024;
const baseline = gzippedBytes([entryKey]);
const rows = [['entry chunk alone (baseline)', baseline]];
for (const [name, keys] of Object.entries(ROUTES)) {
  rows.push([`${name} route (entry + static imports + page chunks)`, gzippedBytes(closure([entryKey, ...keys]))]);
}

console.log('JavaScript per route, gzipped (zlib level 9)');
for (const [label, bytes] of rows) {
  console.log(`  ${label.padEnd(58)} ${kb(bytes).toFixed(1).padStart(8)} KB   ${(bytes / baseline).toFixed(2)}x entry`);
}
const login = rows[1][1];
console.log(
  `login page ${kb(login) < LOGIN_BUDGET_KB ? 'is under' : 'EXCEEDS'} the ${LOGIN_BUDGET_KB} KB budget: ${kb(login).toFixed(1)} KB`,
);
