/*
 * A firmware campaign under fire: 200 meters take a 256 KB image while the server is killed with
 * SIGKILL 10 times at random moments and started again at once. Every device must end on the target
 * version or in a listed failure (two meters are made to fail verification), none may be told to
 * activate twice (the simulator counts each device's activations and each request's executions), and
 * nothing may be left half-written: no device between steps, no command of the campaign still open, no
 * device done without the version read back. On PostgreSQL:
 *   npm run bench:firmware-restart      (BENCH_DATABASE_URL names the server, default local;
 *     BENCH_DCUS, BENCH_METERS_PER_DCU, BENCH_KILLS, BENCH_IMAGE_KB scale it)
 */
import { cleanup } from './lib/cleanup.mjs';
import {
  call,
  campaignState,
  saveFirmware,
  startCampaign,
  stepSummary,
  storeImage,
  untilFinished,
} from './lib/firmware-campaign';
import {
  apiClient,
  fleetDatabase,
  fleetOnline,
  freePort,
  ready,
  type ServerProcess,
  seeded,
  startServer,
  startSimulatorProcess,
} from './lib/fleet-server';

const KILLS = Number(process.env.BENCH_KILLS ?? 10);
const DCUS = Number(process.env.BENCH_DCUS ?? 10);
const METERS_PER_DCU = Number(process.env.BENCH_METERS_PER_DCU ?? 20);
const IMAGE_KB = Number(process.env.BENCH_IMAGE_KB ?? 256);
const SEED = Number(process.env.BENCH_SEED ?? 1);

const random = seeded(SEED);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const db = await fleetDatabase('fwrestart', DCUS, METERS_PER_DCU);
const failing = [db.meters[3], db.meters[db.meters.length - 2]].filter((m): m is string => !!m);
const port = await freePort();
const mqttPort = await freePort();
let server: ServerProcess = startServer(db, port, mqttPort);
const api = apiClient(port);
await ready(api, server);
const sim = startSimulatorProcess(db, mqttPort, '20:60:300', [
  '--stats-reqids',
  '--activation-reboot',
  '1',
  '--fail-image-verify',
  `^(${failing.join('|')})$`,
]);
await fleetOnline(db, db.meters.length);
// An answer lost with a killed server is asked again after 5 s, not the default 30.
await call(api, '/obis/datatype/updatetimeout', { timeout: 5 });
console.log(
  `${DCUS} DCUs × ${METERS_PER_DCU} meters, ${IMAGE_KB} KB image; ${failing.length} meters fail verification (${failing.join(', ')})`,
);

let restarting: Promise<void> | null = null;
const waitFor = async () => {
  if (restarting) await restarting;
};
const version = `RESTART-${Date.now()}`;
const firmwareId = await saveFirmware(api, await storeImage(db, IMAGE_KB * 1024), {
  name: version,
  targetVersion: version,
  splitSize: 512,
  upgradeMethod: 'p2p',
});
const started = performance.now();
// A high threshold: the two failures are listed, not a reason to stop.
const campaignId = await startCampaign(
  api,
  firmwareId,
  db.meters,
  { canaryPercent: 5, maxFailurePercent: 50 },
  waitFor,
);

let kills = 0;
const killedAt: string[] = [];
while (kills < KILLS) {
  await pause(1500 + random() * 4000);
  const row = await campaignState(db, campaignId);
  if (row.state === 'finished') break;
  server.child.kill('SIGKILL');
  await server.exited;
  kills++;
  killedAt.push(stepSummary(row.steps));
  restarting = (async () => {
    server = startServer(db, port, mqttPort);
    await ready(api, server);
  })();
  await restarting;
  restarting = null;
}
const row = await untilFinished(api, db, campaignId, 30 * 60_000, waitFor);
const seconds = (performance.now() - started) / 1000;
await pause(1500);
const stats = sim.stats() as {
  executedTwice: number;
  duplicateSends: number;
  image: { activations: number; activatedTwice: number; activateRepeated: number };
};

const devices = (
  await db.sql.query<{
    device_key: string;
    step: string;
    reason: string | null;
    current_version: string;
    command_id: string | null;
  }>(
    'select device_key, step, reason, current_version, command_id from firmware_campaign_device where campaign_id = $1',
    [campaignId],
  )
).rows;
const done = devices.filter((d) => d.step === 'done');
const failed = devices.filter((d) => d.step === 'failed');
const halfWritten = devices.filter(
  (d) =>
    !['done', 'failed'].includes(d.step) ||
    d.command_id !== null ||
    (d.step === 'done' && d.current_version !== version) ||
    (d.step === 'failed' && !d.reason),
);
const open = (
  await db.sql.query(
    `select count(*)::int as n from device_command where operation = 'firmwareUpgrade' and state <> 'done'`,
  )
).rows[0].n as number;
const activations = (
  await db.sql.query<{ device_key: string; n: number }>(
    `select device_key, count(*)::int as n from device_command where operation = 'firmwareUpgrade'
       and command->'items'->0->>'attribute' = '4' and command->>'op' = 'action' group by device_key having count(*) > 1`,
  )
).rows;

for (const [i, at] of killedAt.entries()) console.log(`kill ${i + 1}: devices were at ${at}`);
console.log(
  `kills: ${kills} (SIGKILL, restarted at once); the campaign finished after ${seconds.toFixed(0)} s: ${stepSummary(row.steps)}`,
);
console.log(
  `failures listed: ${failed.map((d) => `${d.device_key} ${d.reason}`).join(', ') || 'none'}; ` +
    `on the target version: ${done.length} of ${devices.length}`,
);
console.log(
  `activations: the simulator's devices activated ${stats.image.activations} images; a device told to activate the same image twice: ${stats.image.activateRepeated}; ` +
    `an image activated twice: ${stats.image.activatedTwice}; activation commands queued twice for a device: ${activations.length}; ` +
    `requests executed twice: ${stats.executedTwice}; attempts the simulator received twice: ${stats.duplicateSends}`,
);
console.log(
  `half-written: devices between steps or without their version ${halfWritten.length}, campaign commands still open ${open}`,
);
await sim.stop();
api.close();
await cleanup();
const ok =
  done.length + failed.length === devices.length &&
  failed.every((d) => failing.includes(d.device_key)) &&
  stats.image.activateRepeated === 0 &&
  stats.image.activatedTwice === 0 &&
  activations.length === 0 &&
  stats.executedTwice === 0 &&
  halfWritten.length === 0 &&
  open === 0;
process.exit(ok ? 0 : 1);
