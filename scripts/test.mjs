// `npm test`: the whole suite, as CI runs it, in two lanes side by side. The tests lane: contracts and simulator
// tests, the server tests on PostgreSQL / Mosquitto when they answer locally with those of the embedded path again on
// PGlite + the embedded broker (all of them there when neither answers), web tests. The system lane: lint, the
// production dependencies' licences, type check, import layers, the production build (web app and compiled server),
// the benchmarks' smoke runs, then the Playwright journeys in Debian's Chromium (the static checks sit there because
// the tests lane is the longer one). Each lane waits on its own steps' clients, servers and browser a good part of
// the time (a lane alone left a third of two cores idle), so side by side they take little more than the longer
// one; the system lane's output follows the tests lane's.
// Ends with a plain `N passed, N failed` line.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EMBEDDED_PATH_TESTS } from '../packages/server/src/test/embedded-path.mjs';

const root = path.resolve(import.meta.dirname, '..');
// The machine-readable reports are read here and nowhere else: they go when the run ends.
const reports = mkdtempSync(path.join(tmpdir(), 'meterdesk-reports-'));
process.on('exit', () => rmSync(reports, { recursive: true, force: true }));

let passed = 0;
let failed = 0;

/**
 * A lane's steps run one after the other; its summary lines keep the lane's order. `output` is where its
 * steps print: the terminal, or a file the lane's output is printed from when it ends.
 */
class Lane {
  summary = [];
  constructor(output) {
    this.output = output;
  }

  log(text) {
    if (this.output === 'inherit') console.log(text);
    else this.output.write(`${text}\n`);
  }

  run(title, command, args, env = {}) {
    this.log(`\n=== ${title}`);
    const started = Date.now();
    const childEnv = { ...process.env, ...env };
    for (const [key, value] of Object.entries(env)) if (value === undefined) delete childEnv[key];
    const toFile = this.output !== 'inherit';
    const child = spawn(command, args, {
      cwd: root,
      stdio: toFile ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: childEnv,
    });
    if (toFile) {
      child.stdout.pipe(this.output, { end: false });
      child.stderr.pipe(this.output, { end: false });
    }
    return new Promise((resolve) => {
      child.on('close', (status) => {
        const ok = status === 0;
        this.summary.push(`${ok ? 'ok  ' : 'FAIL'} ${title} (${Math.round((Date.now() - started) / 1000)} s)`);
        resolve(ok);
      });
    });
  }
}

/** How many of a step's slowest files or journeys the summary names, so CI's tail says where the time went. */
const SLOWEST = 6;

/** `     slowest: a 12 s, b 9 s, …` of `[name, seconds]` pairs, largest first. */
function slowest(timings) {
  const named = [...timings]
    .sort((a, b) => b[1] - a[1])
    .slice(0, SLOWEST)
    .map(([name, seconds]) => `${name} ${Math.round(seconds)} s`);
  return `     slowest: ${named.join(', ')}`;
}

/** A step without test cases of its own (lint, type check, build) counts as one. */
async function step(lane, title, command, args, env) {
  if (await lane.run(title, command, args, env)) passed++;
  else failed++;
}

async function vitest(lane, title, projects, reportName, env, files = []) {
  const outputFile = path.join(reports, `${reportName}.json`);
  const projectArgs = projects.flatMap((p) => ['--project', p]);
  const ok = await lane.run(
    title,
    'npx',
    [
      'vitest',
      'run',
      ...projectArgs,
      ...files,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${outputFile}`,
    ],
    env,
  );
  if (!existsSync(outputFile)) {
    failed++;
    return;
  }
  const report = JSON.parse(readFileSync(outputFile, 'utf8'));
  lane.summary.push(
    slowest(report.testResults.map((file) => [path.relative(root, file.name), (file.endTime - file.startTime) / 1000])),
  );
  // CI keeps only the end of the output: the failed tests are named again in the summary.
  for (const file of report.testResults) {
    const where = path.relative(root, file.name);
    const tests = file.assertionResults.filter((test) => test.status === 'failed');
    for (const test of tests) lane.summary.push(`     failed: ${where} › ${test.fullName}`);
    if (file.status === 'failed' && tests.length === 0)
      lane.summary.push(`     failed: ${where} (${file.message.split('\n')[0]})`);
  }
  passed += report.numPassedTests;
  failed += report.numFailedTests + (ok || report.numFailedTests > 0 ? 0 : 1);
}

/** Whether something listens where the URL points (its host, its port or the scheme's default). */
function answers(url, defaultPort) {
  const { hostname, port } = new URL(url);
  // A bracketed IPv6 literal in a URL is a plain address to the socket.
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: Number(port || defaultPort), timeout: 1000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Every Playwright test of the report, with how it ended: expected, skipped, unexpected or flaky. */
function journeys(suites, found = []) {
  for (const suite of suites ?? []) {
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests ?? []) found.push({ title: `${spec.file} › ${spec.title}`, ...test });
    journeys(suite.suites, found);
  }
  return found;
}

/** Why a journey counts as failed: the first attempt's end, and whether a retry passed. */
function howItFailed(test) {
  const [first] = test.results;
  if (first?.status === 'timedOut') return 'ran into its time limit (not retried)';
  return test.status === 'flaky' ? 'passed only on its retry (flaky)' : 'failed';
}

const CHROMIUM = '/usr/bin/chromium';

/** Whether fontconfig knows a font with Chinese glyphs (fc-list comes with chromium's fontconfig). */
function hasChineseFont() {
  const found = spawnSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() !== '';
}

/**
 * Debian's chromium, never a downloaded browser, and a Chinese font: without one Chromium draws Chinese as
 * narrow boxes, and the Chinese journeys would measure a layout no user sees (the header menu fitted at
 * 900 px). Needs root (or password-less sudo) when either is missing.
 */
function ensureChromium() {
  if (existsSync(CHROMIUM) && hasChineseFont()) return true;
  console.log('\n=== Installing Debian chromium and a Chinese font for the browser tests');
  const asRoot = process.getuid?.() === 0;
  const apt = (args) =>
    spawnSync(asRoot ? 'apt-get' : 'sudo', asRoot ? args : ['-n', 'apt-get', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  return (
    apt(['update', '-qq']) &&
    apt(['install', '-y', '-qq', 'chromium', 'fonts-noto-cjk']) &&
    existsSync(CHROMIUM) &&
    hasChineseFont()
  );
}

async function testsLane(lane) {
  await vitest(lane, 'contracts and simulator tests', ['contracts', 'simulator'], 'packages');

  const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const mosquittoUrl = process.env.TEST_MQTT_URL ?? 'mqtt://127.0.0.1:1883';
  const [hasPostgres, hasMosquitto] = await Promise.all([answers(postgresUrl, 5432), answers(mosquittoUrl, 1883)]);
  // A URL given on purpose that does not answer is a broken setup, not a reason to skip quietly.
  for (const [name, url, answered] of [
    ['TEST_DATABASE_URL', postgresUrl, hasPostgres],
    ['TEST_MQTT_URL', mosquittoUrl, hasMosquitto],
  ]) {
    if (process.env[name] && !answered) {
      lane.summary.push(`FAIL ${name}=${url} does not answer`);
      failed++;
    }
  }
  const embedded = { TEST_DATABASE_URL: undefined, TEST_MQTT_URL: undefined };
  if (hasPostgres || hasMosquitto) {
    // The whole server suite once, on the production path; on the embedded defaults again only the tests
    // of what differs between the two (packages/server/src/test/embedded-path.mjs says which).
    const env = {};
    if (hasPostgres) env.TEST_DATABASE_URL = postgresUrl;
    if (hasMosquitto) env.TEST_MQTT_URL = mosquittoUrl;
    const against = [hasPostgres && 'PostgreSQL', hasMosquitto && 'Mosquitto'].filter(Boolean).join(' + ');
    await vitest(lane, `server tests on ${against}`, ['server'], 'server-external', env);
    await vitest(
      lane,
      'server tests of the embedded path on PGlite + embedded broker',
      ['server'],
      'server-embedded',
      embedded,
      EMBEDDED_PATH_TESTS,
    );
  } else {
    lane.summary.push(
      `server tests on PGlite + embedded broker only: neither ${postgresUrl} nor ${mosquittoUrl} answers`,
    );
    await vitest(lane, 'server tests on PGlite + embedded broker', ['server'], 'server-embedded', embedded);
  }

  await vitest(lane, 'web tests', ['web*'], 'web');
}

async function systemLane(lane, hasChromium) {
  await step(lane, 'lint (biome)', 'npx', ['biome', 'check', '.']);
  await step(lane, 'licences of the production dependencies', 'node', ['scripts/check-licences.mjs']);
  await step(lane, 'type check', 'npm', ['run', 'typecheck']);
  // The server's layers and no import cycle anywhere (.dependency-cruiser.cjs; docs/architecture.md, "Layers").
  await step(lane, 'import layers and cycles (dependency-cruiser)', 'npx', [
    'depcruise',
    '--config',
    '.dependency-cruiser.cjs',
    '--output-type',
    'err-long',
    'packages',
    'e2e',
    'bench',
    'scripts',
  ]);
  // The web app and the compiled server, which the benchmarks and the journeys then run.
  if (!(await lane.run('production build (web app and server)', 'npm', ['run', 'build']))) {
    failed++;
    lane.summary.push('     the benchmarks and the journeys need the build: not run');
    return;
  }
  passed++;
  // Every benchmark at a tiny size: one that no longer starts or measures fails here, not in a release.
  await step(lane, 'benchmark smoke runs', 'node', ['bench/run.mjs', '--smoke']);

  if (!hasChromium) {
    lane.summary.push(
      'FAIL end-to-end journeys: Debian chromium or a Chinese font is missing and could not be installed',
    );
    failed++;
    return;
  }
  const outputFile = path.join(reports, 'e2e.json');
  const ok = await lane.run('end-to-end journeys (Playwright, Chromium)', 'npx', ['playwright', 'test'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: outputFile,
  });
  const results = path.join(root, '.tmp/e2e-results');
  if (!existsSync(outputFile)) {
    failed++;
    return;
  }
  const report = JSON.parse(readFileSync(outputFile, 'utf8'));
  let failedJourneys = 0;
  const all = journeys(report.suites);
  lane.summary.push(
    slowest(
      all.map((test) => [
        test.title.length > 70 ? `${test.title.slice(0, 69)}…` : test.title,
        test.results.reduce((sum, result) => sum + result.duration, 0) / 1000,
      ]),
    ),
  );
  // A journey that passed only on its retry is a failure: the retry is there so the flake is seen, not hidden.
  for (const test of all) {
    if (test.status === 'expected') passed++;
    else if (test.status !== 'skipped') {
      failedJourneys++;
      lane.summary.push(`     failed: ${test.title}: ${howItFailed(test)}`);
    }
  }
  failed += failedJourneys + (ok || failedJourneys > 0 ? 0 : 1);
  // Traces stay only when there is something to look at.
  if (failedJourneys === 0) rmSync(results, { recursive: true, force: true });
  else lane.summary.push(`     traces of the failed journeys: ${path.relative(root, results)}`);
}

// Installing the browser (apt) first: it blocks, and the lanes' bookkeeping must not wait on it.
const hasChromium = ensureChromium();
const systemLog = path.join(reports, 'system-lane.log');
const systemOutput = createWriteStream(systemLog);
const tests = new Lane('inherit');
const system = new Lane(systemOutput);
console.log(
  '\nThe system lane (lint, licences, type check, layers, build, benchmark smoke runs, journeys) runs beside these tests; its output follows them.',
);
await Promise.all([testsLane(tests), systemLane(system, hasChromium)]);
await new Promise((resolve) => systemOutput.end(resolve));
console.log(`\n=== output of the system lane\n${readFileSync(systemLog, 'utf8')}`);

const scratch = path.join(root, '.tmp');
if (existsSync(scratch) && readdirSync(scratch).length === 0) rmdirSync(scratch);

console.log(`\n${[...tests.summary, ...system.summary].join('\n')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
