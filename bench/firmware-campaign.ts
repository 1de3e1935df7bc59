/*
 * A firmware campaign at fleet scale: 1,000 meters behind 20 DCUs take a 256 KB image (blocks of
 * 1 KB, 64 to a command), peer to peer and then by broadcast, through the head-end with its per-DCU
 * limit. The same run measures the head-end's raw command throughput on the same fleet (every meter
 * once through createplan), so the campaign's time reads against what its commands would cost at that
 * rate; the routes' commands in flight are sampled throughout, to show the limit held. On PostgreSQL:
 *   npm run bench:firmware        (BENCH_DATABASE_URL names the server, default local;
 *     BENCH_DCUS, BENCH_METERS_PER_DCU, BENCH_IMAGE_KB, BENCH_SPLIT size it)
 */
import { cleanup } from './lib/cleanup.mjs';
import { saveFirmware, startCampaign, stepSummary, storeImage, untilFinished } from './lib/firmware-campaign';
import {
  apiClient,
  everyMeterOnce,
  fleetDatabase,
  fleetOnline,
  freePort,
  ready,
  startServer,
  startSimulatorProcess,
} from './lib/fleet-server';

const DCUS = Number(process.env.BENCH_DCUS ?? 20);
const METERS_PER_DCU = Number(process.env.BENCH_METERS_PER_DCU ?? 50);
const IMAGE_KB = Number(process.env.BENCH_IMAGE_KB ?? 256);
const SPLIT = Number(process.env.BENCH_SPLIT ?? 1024);
const CONCURRENCY = 4;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const db = await fleetDatabase('firmware', DCUS, METERS_PER_DCU);
const port = await freePort();
const mqttPort = await freePort();
const server = startServer(db, port, mqttPort, { HEADEND_DCU_CONCURRENCY: String(CONCURRENCY) });
const api = apiClient(port);
await ready(api, server);
const sim = startSimulatorProcess(db, mqttPort, '5:20:100', ['--activation-reboot', '1']);
await fleetOnline(db, db.meters.length);
console.log(
  `${DCUS} DCUs × ${METERS_PER_DCU} meters, ${IMAGE_KB} KB image in blocks of ${SPLIT} B, ` +
    `HEADEND_DCU_CONCURRENCY ${CONCURRENCY} (a campaign's commands take ${CONCURRENCY - 1}, the last slot stays with one-off commands)`,
);

/** The most commands in flight on one route (a DCU) at any sample while `work` runs. */
async function sampleRoutes<T>(work: Promise<T>): Promise<{ result: T; maxPerRoute: number; samples: number }> {
  let done = false;
  let maxPerRoute = 0;
  let samples = 0;
  const sampler = (async () => {
    while (!done) {
      const { rows } = await db.sql.query(
        `select coalesce(max(n), 0)::int as m from (select count(*) as n from device_command where state = 'sent' group by route) r`,
      );
      maxPerRoute = Math.max(maxPerRoute, rows[0].m);
      samples++;
      await pause(50);
    }
  })();
  const result = await work;
  done = true;
  await sampler;
  return { result, maxPerRoute, samples };
}

const { rate: raw } = await everyMeterOnce(db, (devList, i) =>
  api.post('/plan/createplan', {
    planName: `raw ${i}`,
    devs: { itemType: 0, devList },
    orders: [{ cmd: 'relayConnect' }],
  }),
);
console.log(`head-end raw throughput: ${raw.toFixed(0)} commands/s (a relay command to every meter)`);
// Answers lost or late come back within seconds, not the default 30.
await api.post('/obis/datatype/updatetimeout', { timeout: 10 });

for (const method of ['p2p', 'broadcast'] as const) {
  const version = `BENCH-${method}-${Date.now()}`;
  const imageId = await storeImage(db, IMAGE_KB * 1024);
  const firmwareId = await saveFirmware(api, imageId, {
    name: version,
    targetVersion: version,
    splitSize: SPLIT,
    upgradeMethod: method,
  });
  const since = (await db.sql.query('select now() as t')).rows[0].t as Date;
  const started = performance.now();
  const { result, maxPerRoute, samples } = await sampleRoutes(
    (async () => {
      const campaignId = await startCampaign(api, firmwareId, db.meters, { canaryPercent: 10, maxFailurePercent: 10 });
      return { campaignId, row: await untilFinished(api, db, campaignId, 30 * 60_000) };
    })(),
  );
  const seconds = (performance.now() - started) / 1000;
  const { rows } = await db.sql.query(
    `select count(*)::int as n, count(*) filter (where device_kind = 'dcu')::int as dcu,
       coalesce(sum(attempt), 0)::int as attempts
     from device_command where operation = 'firmwareUpgrade' and create_time >= $1`,
    [since],
  );
  const commands = rows[0].n as number;
  const atRaw = commands / raw;
  console.log(
    `${method}: ${db.meters.length} meters in ${seconds.toFixed(1)} s (${stepSummary(result.row.steps)}); ` +
      `${commands} commands (${rows[0].dcu} to DCUs), ${rows[0].attempts} attempts, ` +
      `${(commands / seconds).toFixed(0)} commands/s = ${((commands / seconds / raw) * 100).toFixed(0)} % of the raw rate; ` +
      `the same commands at the raw rate: ${atRaw.toFixed(1)} s, ratio ${(seconds / atRaw).toFixed(2)}; ` +
      `most in flight on one DCU: ${maxPerRoute} (limit ${CONCURRENCY - 1} for a campaign, ${samples} samples)`,
  );
}
await pause(1500);
const stats = sim.stats() as { executedTwice: number; image: Record<string, number> };
console.log(`simulator: executed twice ${stats.executedTwice}, image ${JSON.stringify(stats.image)}`);
await sim.stop();
api.close();
await cleanup();
process.exit(stats.executedTwice === 0 && stats.image.activateRepeated === 0 ? 0 : 1);
