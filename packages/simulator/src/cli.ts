/*
 * npm run simulator -- --url mqtt://127.0.0.1:1884 (--fleet FILE | --dcus 100 --meters-per-dcu 100 [--direct 10])
 *   [--seed 1] [--prefix SIM] [--offline 0.02] [--flapping 0.01] [--flap-period 300] [--loss 0.01]
 *   [--latency 200:800:3000] [--drift 2] [--clock-limit 60] [--busy 0.01] [--heartbeat 60] [--reboot 5]
 *   [--outages 0.02] [--cover-opens 0.005] [--no-dedupe] [--stats-file FILE [--stats-reqids] [--stats-readings]]
 *   [--fail-image-verify REGEX] [--fail-calendar-once REGEX] [--broadcast-loss 0] [--activation-reboot 2]
 *
 * --fail-image-verify makes the devices whose key matches the regular expression fail firmware image
 * verification (class 18 method 3 answers 02, so they never activate): a campaign's failure on demand.
 * --fail-calendar-once makes the meters whose serial matches fail their first calendar write (02): a tariff
 * push's failure that a re-send repairs.
 * --broadcast-loss is the share of a DCU's broadcast image blocks each meter misses; --activation-reboot
 * how long a device stays away after activating an image (0: it stays online).
 * Runs until SIGTERM or SIGINT. With --stats-file the counters (SimulatorStats, JSON) are rewritten
 * every second and once more at exit, replaced in one rename so a reader never sees half a file;
 * --stats-reqids adds `executions`: every remembered reqId with how many times it was executed.
 * --stats-readings counts the readings sent by key (readingsSent, readingsSentAgain).
 * --no-dedupe executes a reqId asked again instead of answering its stored reply (Knobs.dedupe).
 *
 * Standard input takes control lines (contracts SimulatorControl), one JSON object per line, e.g.
 *   {"op":"power","powered":false,"devices":["31000101","M0001"]}
 * blacks those devices out (meters send their last gasp) and `"powered":true` restores them; the
 * server writes these when an administrator calls /simulator/power.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { type Fleet, FleetSchema, SimulatorControlSchema } from '@meterdesk/contracts';
import { fleetFromFlags } from './flags';
import { DEFAULT_KNOBS, type Knobs, parseLatency } from './knobs';
import { type Simulator, startSimulator } from './simulator';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    fleet: { type: 'string' },
    dcus: { type: 'string' },
    'meters-per-dcu': { type: 'string' },
    direct: { type: 'string' },
    seed: { type: 'string' },
    prefix: { type: 'string' },
    offline: { type: 'string' },
    flapping: { type: 'string' },
    'flap-period': { type: 'string' },
    loss: { type: 'string' },
    latency: { type: 'string' },
    drift: { type: 'string' },
    'clock-limit': { type: 'string' },
    busy: { type: 'string' },
    heartbeat: { type: 'string' },
    reboot: { type: 'string' },
    outages: { type: 'string' },
    'cover-opens': { type: 'string' },
    'stats-file': { type: 'string' },
    'stats-reqids': { type: 'boolean' },
    'stats-readings': { type: 'boolean' },
    'no-dedupe': { type: 'boolean' },
    'fail-image-verify': { type: 'string' },
    'fail-calendar-once': { type: 'string' },
    'broadcast-loss': { type: 'string' },
    'activation-reboot': { type: 'string' },
  },
  strict: true,
});

function fail(message: string): never {
  console.error(`simulator: ${message}`);
  process.exit(2);
}

function number(name: keyof typeof values, fallback: number, { min = 0, max = Number.POSITIVE_INFINITY } = {}) {
  const text = values[name];
  if (text === undefined) return fallback;
  const n = Number(text);
  if (typeof text !== 'string' || !Number.isFinite(n) || n < min || n > max) {
    fail(`--${name} must be a number from ${min} to ${max}, not ${String(text)}`);
  }
  return n;
}
const share = (name: keyof typeof values, fallback: number) => number(name, fallback, { max: 1 });
const count = (name: keyof typeof values, fallback: number) => {
  const n = number(name, fallback);
  if (!Number.isInteger(n)) fail(`--${name} must be a whole number`);
  return n;
};

const url = values.url ?? fail('--url is required (e.g. mqtt://127.0.0.1:1884)');
const seed = count('seed', 1);

function loadFleet(): Fleet {
  if (values.fleet) {
    try {
      return FleetSchema.parse(JSON.parse(readFileSync(values.fleet, 'utf8')));
    } catch (err) {
      fail(`cannot read the fleet file ${values.fleet}: ${(err as Error).message}`);
    }
  }
  if (values.dcus === undefined) fail('give --fleet FILE, or --dcus N --meters-per-dcu M');
  return fleetFromFlags({
    dcus: count('dcus', 0),
    metersPerDcu: count('meters-per-dcu', 100),
    direct: count('direct', 0),
    seed,
    ...(values.prefix ? { prefix: values.prefix } : {}),
  });
}

const fleet = loadFleet();
let latency = DEFAULT_KNOBS.latency;
try {
  if (values.latency) latency = parseLatency(values.latency);
} catch (err) {
  fail((err as Error).message);
}
const knobs: Knobs = {
  ...DEFAULT_KNOBS,
  offline: share('offline', DEFAULT_KNOBS.offline),
  flapping: share('flapping', DEFAULT_KNOBS.flapping),
  flapPeriodSec: number('flap-period', DEFAULT_KNOBS.flapPeriodSec, { min: 1 }),
  loss: share('loss', DEFAULT_KNOBS.loss),
  latency,
  driftSecPerDay: number('drift', DEFAULT_KNOBS.driftSecPerDay),
  clockLimitSec: number('clock-limit', DEFAULT_KNOBS.clockLimitSec, { min: 1 }),
  busy: share('busy', DEFAULT_KNOBS.busy),
  heartbeatSec: number('heartbeat', DEFAULT_KNOBS.heartbeatSec, { min: 0.1 }),
  rebootSec: number('reboot', DEFAULT_KNOBS.rebootSec),
  powerOutagesPerDay: number('outages', DEFAULT_KNOBS.powerOutagesPerDay),
  coverOpensPerDay: number('cover-opens', DEFAULT_KNOBS.coverOpensPerDay),
  dedupe: !values['no-dedupe'],
  imageVerifyFails: values['fail-image-verify'] ?? DEFAULT_KNOBS.imageVerifyFails,
  calendarFailsOnce: values['fail-calendar-once'] ?? DEFAULT_KNOBS.calendarFailsOnce,
  imageBroadcastLoss: share('broadcast-loss', DEFAULT_KNOBS.imageBroadcastLoss),
  activationRebootSec: number('activation-reboot', DEFAULT_KNOBS.activationRebootSec),
};
for (const [flag, pattern] of [
  ['fail-image-verify', knobs.imageVerifyFails],
  ['fail-calendar-once', knobs.calendarFailsOnce],
] as const) {
  try {
    new RegExp(pattern);
  } catch {
    fail(`--${flag} must be a regular expression, not ${pattern}`);
  }
}

const meters = fleet.dcus.reduce((n, d) => n + d.meters.length, 0) + fleet.direct.length;
const say = (line: string) => process.stdout.write(`simulator: ${line}\n`);
say(`${fleet.dcus.length} DCUs, ${meters} meters (${fleet.direct.length} direct) on ${url}, seed ${seed}`);

let sim: Simulator;
try {
  sim = startSimulator({
    url,
    fleet,
    seed,
    knobs,
    countReadings: values['stats-readings'] === true,
    log: (level, message) => (level === 'warn' ? console.warn(`simulator: ${message}`) : say(message)),
  });
} catch (err) {
  fail((err as Error).message);
}
const started = Date.now();
void sim.ready.then(() => say(`every online device connected in ${Date.now() - started} ms`));

/** A control line: applied, and said in the output (a line it cannot read is said too, and ignored). */
function control(line: string) {
  if (!line.trim()) return;
  let parsed: ReturnType<typeof SimulatorControlSchema.safeParse>;
  try {
    parsed = SimulatorControlSchema.safeParse(JSON.parse(line));
  } catch {
    parsed = SimulatorControlSchema.safeParse(undefined);
  }
  if (!parsed.success) {
    console.warn(`simulator: ignored a control line that is not {"op":"power","powered":…,"devices":[…]}`);
    return;
  }
  const { powered, devices } = parsed.data;
  const { changed, unknown } = sim.setPower(devices, powered);
  say(
    `power ${powered ? 'restored to' : 'cut from'} ${changed} devices${unknown ? ` (${unknown} not in the fleet)` : ''}`,
  );
}
createInterface({ input: process.stdin }).on('line', control);

const statsFile = values['stats-file'];
function writeStats() {
  if (!statsFile) return;
  const temporary = `${statsFile}.${process.pid}.tmp`;
  const detail = values['stats-reqids'] ? { executions: sim.executedReqIds() } : {};
  writeFileSync(temporary, `${JSON.stringify({ time: new Date().toISOString(), ...sim.stats(), ...detail })}\n`);
  renameSync(temporary, statsFile);
}
writeStats();
const statsTimer = statsFile ? setInterval(writeStats, 1000) : null;

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) process.exit(1);
  stopping = true;
  say(`${signal}: stopping`);
  if (statsTimer) clearInterval(statsTimer);
  await sim.stop();
  writeStats();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
