/**
 * `npm run bench` measures the bundle size, as it always has; `npm run bench -- NAME` runs another
 * benchmark by name (`field`: the collection field run).
 *
 * `node bench/run.mjs --smoke` runs every benchmark at a tiny size, two at a time: each must start,
 * measure and print its figures, so a change that breaks one fails; no timing decides anything. Where
 * PostgreSQL does not answer, a benchmark that needs it is skipped (saying so) unless it runs on PGlite.
 * Ends with `N passed, N failed` and exits non-zero when any failed.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { postgresAnswers } from './lib/scale-db.mjs';

const TSX = ['--import', 'tsx'];
const BUILT = fileURLToPath(new URL('../packages/web/dist', import.meta.url));
const tiny = { BENCH_DCUS: '2', BENCH_METERS_PER_DCU: '5' };

/**
 * Each benchmark: its script, the size its smoke run takes, and whether it needs PostgreSQL (the ones
 * that replay statements bare or count rows beside the server need a second connection, which the
 * server's own PGlite does not give).
 */
const BENCHES = {
  'bundle-size': {
    args: ['bench/bundle-size.mjs'],
    // The production build `npm test` has just made, when there is one: building again is a minute's work.
    smoke: existsSync(`${BUILT}/.vite/manifest.json`) ? { BENCH_WEB_DIST: BUILT } : {},
    postgres: false,
  },
  simulator: {
    args: [...TSX, 'bench/simulator-fleet.ts'],
    smoke: { ...tiny, BENCH_ROUNDS: '1', BENCH_IDLE_MS: '200' },
    postgres: false,
  },
  import: {
    args: ['bench/meter-import.mjs'],
    smokeArgs: ['--rows', '200', '--baseline-rows', '100'],
    smoke: {},
    postgres: false,
  },
  pickers: { args: [...TSX, 'bench/archive-pickers.ts'], smoke: { BENCH_METERS: '1000', BENCH_RUNS: '2' } },
  meters: {
    args: ['bench/meter-list.mjs'],
    smoke: { BENCH_SMALL_METERS: '500', BENCH_METERS: '1000', BENCH_CALLS: '8' },
  },
  gis: { args: ['bench/gis-viewport.mjs'], smoke: { BENCH_METERS: '1000', BENCH_CALLS: '8' } },
  'profile-read': {
    args: [...TSX, 'bench/profile-read.ts'],
    smoke: { BENCH_METERS: '500', BENCH_CALLS: '20', BENCH_CLIENTS: '2' },
  },
  rollups: { args: [...TSX, 'bench/rollups.ts'], smoke: { BENCH_METERS: '500', BENCH_RUNS: '1' } },
  'billing-report': { args: [...TSX, 'bench/billing-report.ts'], smoke: { BENCH_METERS: '500' } },
  analytics: {
    args: [...TSX, 'bench/analytics.ts'],
    smoke: { BENCH_METERS: '300', BENCH_DAYS: '3', BENCH_SECONDS: '0.01', BENCH_RAW_RUNS: '1' },
  },
  headend: {
    args: [...TSX, 'bench/headend-throughput.ts'],
    smoke: { ...tiny, BENCH_ROUNDS: '1', BENCH_RAW_MESSAGES: '200' },
  },
  'tariff-push': {
    args: [...TSX, 'bench/tariff-push.ts'],
    smoke: tiny,
  },
  'headend-restart': {
    args: [...TSX, 'bench/headend-restart.ts'],
    smoke: { ...tiny, BENCH_KILLS: '1', BENCH_PLAN_EVERY_MS: '200' },
  },
  firmware: {
    args: [...TSX, 'bench/firmware-campaign.ts'],
    smoke: { ...tiny, BENCH_IMAGE_KB: '8' },
  },
  'firmware-restart': {
    args: [...TSX, 'bench/firmware-restart.ts'],
    smoke: { ...tiny, BENCH_KILLS: '1', BENCH_IMAGE_KB: '8' },
  },
  ingest: {
    args: [...TSX, 'bench/readings-ingest.ts'],
    smoke: { ...tiny, BENCH_DAYS: '1', BENCH_ROUNDS: '1' },
  },
  field: {
    args: [...TSX, 'bench/collection-field.ts'],
    smoke: { ...tiny, BENCH_REPAIRS: '0', BENCH_RUN_NOW: '1', BENCH_FLAPPING: '0', BENCH_LOSS: '0' },
  },
};
/** A smoke run that has not ended by then hangs: it is stopped and fails. */
const SMOKE_TIMEOUT_MS = 10 * 60_000;

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs `args` with `env` added; answers the exit code (1 for a signal or a time-out). With `output`, the
 * child's output is collected there instead of shown as it comes.
 */
function run(args, env = {}, timeoutMs = 0, output = null) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: output ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: { ...process.env, ...env },
    });
    if (output) {
      child.stdout.on('data', (chunk) => output.push(chunk));
      child.stderr.on('data', (chunk) => output.push(chunk));
    }
    // SIGTERM lets the bench stop its servers and drop its databases (lib/cleanup.mjs).
    const timer = timeoutMs ? setTimeout(() => child.kill('SIGTERM'), timeoutMs) : null;
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve(signal ? 1 : (code ?? 1));
    });
  });
}

/**
 * Smoke runs side by side: most of a smoke run's time is a server starting or a database being made,
 * not CPU, and no figure of a smoke run decides anything. Each run's output is shown whole when it ends.
 */
const SMOKE_LANES = Number(process.env.BENCH_SMOKE_LANES ?? 2);
/** The longest smoke run goes first, so the other lane takes the short ones meanwhile. */
const SMOKE_FIRST = 'analytics';

async function smoke() {
  const postgres = await postgresAnswers();
  if (!postgres) console.log('PostgreSQL does not answer: benchmarks that need it are skipped');
  const results = [];
  const started = performance.now();
  const queue = Object.entries(BENCHES).sort(([a], [b]) => Number(b === SMOKE_FIRST) - Number(a === SMOKE_FIRST));
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [name, bench] = next;
      if (bench.postgres !== false && !postgres) {
        results.push({ name, outcome: 'skipped', note: 'needs PostgreSQL, which does not answer' });
        continue;
      }
      const output = [];
      const t0 = performance.now();
      const code = await run([...bench.args, ...(bench.smokeArgs ?? [])], bench.smoke, SMOKE_TIMEOUT_MS, output);
      const seconds = ((performance.now() - t0) / 1000).toFixed(1);
      console.log(`\n── ${name} (smoke, ${seconds} s) ──`);
      process.stdout.write(Buffer.concat(output));
      results.push({ name, outcome: code === 0 ? 'passed' : 'failed', note: `${seconds} s` });
    }
  };
  await Promise.all(Array.from({ length: SMOKE_LANES }, lane));
  console.log(
    `\nSmoke run of every benchmark, ${SMOKE_LANES} at a time, ${((performance.now() - started) / 1000).toFixed(0)} s:`,
  );
  for (const r of results) console.log(`${r.outcome.padEnd(8)} ${r.name.padEnd(16)} ${r.note}`);
  const count = (outcome) => results.filter((r) => r.outcome === outcome).length;
  const skipped = count('skipped');
  console.log(`${count('passed')} passed, ${count('failed')} failed${skipped ? `, ${skipped} skipped` : ''}`);
  return count('failed') ? 1 : 0;
}

const [name = 'bundle-size', ...rest] = process.argv.slice(2);
if (name === '--smoke') process.exit(await smoke());
const bench = BENCHES[name];
if (!bench) {
  console.error(`unknown benchmark "${name}"; one of: ${Object.keys(BENCHES).join(', ')}, or --smoke for all`);
  process.exit(2);
}
process.exit(await run([...bench.args, ...rest]));
