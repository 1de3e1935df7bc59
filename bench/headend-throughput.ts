/*
 * Commands per second through the head-end to the simulator and back, against the broker's raw
 * publish/subscribe round trip measured in the same run with as many messages in flight. On
 * PostgreSQL; run with
 *   node --import tsx bench/headend-throughput.ts        (BENCH_DATABASE_URL names the server, default local;
 *     BENCH_DCUS, BENCH_METERS_PER_DCU, BENCH_ROUNDS, BENCH_RAW_MESSAGES size it)
 * The head-end's path is the whole of it: createplan (checks, plan and commands in one transaction),
 * the ledger's claim before each publish, the simulator's answer, the match by reqId and the result.
 */
import { createServer } from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
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

const DCUS = Number(process.env.BENCH_DCUS ?? 10);
const METERS_PER_DCU = Number(process.env.BENCH_METERS_PER_DCU ?? 100);
const CONCURRENCY = 8;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RAW_MESSAGES = Number(process.env.BENCH_RAW_MESSAGES ?? 5000);

const db = await fleetDatabase('headend', DCUS, METERS_PER_DCU);
const port = await freePort();
const mqttPort = await freePort();
const server = startServer(db, port, mqttPort, { HEADEND_DCU_CONCURRENCY: String(CONCURRENCY) });
const api = apiClient(port);
await ready(api, server);
startSimulatorProcess(db, mqttPort, '0:1:5');
await fleetOnline(db, db.meters.length);
const inFlight = DCUS * CONCURRENCY;

/** The broker alone: a requester keeps `inFlight` messages out, an echo client answers each. */
async function rawRoundTrips(messages: number): Promise<number> {
  const aedes = await Aedes.createBroker();
  const tcp = createServer(aedes.handle);
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const address = tcp.address();
  const url = `mqtt://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const echo = await mqtt.connectAsync(url, { protocolVersion: 4 });
  const requester = await mqtt.connectAsync(url, { protocolVersion: 4 });
  echo.on('message', (_topic, payload) => void echo.publish('raw/reply', payload));
  await echo.subscribeAsync('raw/cmd');
  await requester.subscribeAsync('raw/reply');
  let sent = 0;
  let answered = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const send = () => {
      if (sent >= messages) return;
      sent++;
      requester.publish('raw/cmd', JSON.stringify({ reqId: sent, op: 'action' }));
    };
    requester.on('message', () => {
      answered++;
      if (answered === messages) resolve();
      else send();
    });
    for (let i = 0; i < inFlight; i++) send();
  });
  const rate = messages / ((performance.now() - started) / 1000);
  await requester.endAsync();
  await echo.endAsync();
  await new Promise<void>((resolve) => aedes.close(() => resolve()));
  await new Promise<void>((resolve) => tcp.close(() => resolve()));
  return rate;
}

console.log(`${DCUS} DCUs × ${METERS_PER_DCU} meters, ${CONCURRENCY} commands in flight per DCU (${inFlight} in all)`);
const raw: number[] = [];
const headEnd: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  raw.push(await rawRoundTrips(RAW_MESSAGES));
  const result = await everyMeterOnce(
    api,
    db,
    round % 2 ? 'relayConnect' : 'externalRelayConnect',
    `throughput ${round}`,
  );
  headEnd.push(result.rate);
  console.log(
    `round ${round}: broker round trips ${raw.at(-1)?.toFixed(0)}/s, head-end commands ${result.rate.toFixed(0)}/s (results so far ${result.codes})`,
  );
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
console.log(
  `median: broker ${median(raw).toFixed(0)}/s, head-end ${median(headEnd).toFixed(0)}/s, ratio ${(median(headEnd) / median(raw)).toFixed(3)}`,
);
api.close();
await cleanup();
