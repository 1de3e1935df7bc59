/*
 * A tariff pushed to every meter of a simulated fleet (10,000 by default) through
 * `/tariffitem/createtariffplan`, in batches of 30 sent all at once: the time until every meter has
 * answered and the result codes, against the head-end's raw command throughput (a relay command to
 * every meter through createplan) measured in the same run. On PostgreSQL; run with
 *   node --import tsx bench/tariff-push.ts      (BENCH_DATABASE_URL names the server, default local;
 *     BENCH_DCUS, BENCH_METERS_PER_DCU size it)
 * A push is an operation's path with a bigger command (the calendar and special days in one set) and
 * the push's own rows: its meters' events written with the commands, each answer closing its event.
 */
import { cleanup } from './lib/cleanup.mjs';
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

const DCUS = Number(process.env.BENCH_DCUS ?? 50);
const METERS_PER_DCU = Number(process.env.BENCH_METERS_PER_DCU ?? 200);
const CONCURRENCY = 8;

const db = await fleetDatabase('tariff', DCUS, METERS_PER_DCU);
const port = await freePort();
const mqttPort = await freePort();
const server = startServer(db, port, mqttPort, { HEADEND_DCU_CONCURRENCY: String(CONCURRENCY) });
const api = apiClient(port);
await ready(api, server);
startSimulatorProcess(db, mqttPort, '0:1:5');
await fleetOnline(db, db.meters.length, 600_000);

// The scale seed's residential tariff: three rates, three seasons.
const { rows } = await db.sql.query(`select id, tariff_name from tariff where tariff_name like '% Residential TOU'`);
const tariff = rows[0] as { id: string; tariff_name: string } | undefined;
if (!tariff) throw new Error('the scale seed made no tariff');

console.log(
  `${DCUS} DCUs × ${METERS_PER_DCU} meters, ${CONCURRENCY} commands in flight per DCU; tariff "${tariff.tariff_name}"`,
);
const raw = await everyMeterOnce(db, (devList, i) =>
  api.post('/plan/createplan', {
    planName: `baseline ${i}`,
    devs: { itemType: 0, devList },
    orders: [{ cmd: 'relayConnect' }],
  }),
);
console.log(`head-end commands (relay connect): ${raw.seconds.toFixed(1)} s, ${raw.rate.toFixed(0)} meters/s`);

const activationTime = new Date(Date.now() + 3600_000).toISOString();
const started = performance.now();
const push = await everyMeterOnce(db, (devList) =>
  api.post('/tariffitem/createtariffplan', { tariffId: tariff.id, devList, activationTime }),
);
// A push is over when each meter's event has closed with its command's answer.
for (let waited = 0; ; waited += 20) {
  const open = await db.sql.query(`select count(*)::int as n from tariff_event where state = 'waiting'`);
  if (open.rows[0].n === 0) break;
  if (waited > 60_000) throw new Error(`${open.rows[0].n} meters' events never closed`);
  await new Promise((resolve) => setTimeout(resolve, 20));
}
const seconds = (performance.now() - started) / 1000;
const codes = await db.sql.query(
  `select coalesce(result_code, 'waiting') as code, count(*)::int as n from tariff_event group by 1 order by 1`,
);
const taken = await db.sql.query(`select count(*)::int as n from meter_tariff where tariff_id = $1`, [tariff.id]);
console.log(
  `tariff push: commands answered in ${push.seconds.toFixed(1)} s, every event closed in ${seconds.toFixed(1)} s (${(
    db.meters.length / seconds
  ).toFixed(0)} meters/s); results ${codes.rows
    .map((r: { code: string; n: number }) => `${r.code}: ${r.n}`)
    .join(', ')}; meters holding the tariff ${taken.rows[0].n}`,
);
console.log(`ratio push / head-end commands: ${(db.meters.length / seconds / raw.rate).toFixed(3)}`);
api.close();
await cleanup();
