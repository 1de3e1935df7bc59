/*
 * The fleet simulator at 10,000 meters (100 DCUs × 100 meters) on an in-process Aedes:
 *   npm run bench:simulator          (BENCH_DCUS, BENCH_METERS_PER_DCU, BENCH_ROUNDS, BENCH_IDLE_MS change the size)
 * The bare broker: 100 echo clients subscribed like DCUs to their meters' command topics answer each
 * command at once; the simulator, with no added latency, answers the same bursts (one `get` of a
 * register and the clock per meter, then one relay command per meter), in alternating rounds. Prints commands answered
 * per second for both and their ratio, the event-loop delay (p99) while the fleet idles and during
 * the bursts, and the simulator's counters (executedTwice must be 0).
 */
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { OBIS } from '@meterdesk/contracts';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { fleetFromFlags, startSimulator } from '../packages/simulator/src/index';

const DCUS = Number(process.env.BENCH_DCUS ?? 100);
const PER_DCU = Number(process.env.BENCH_METERS_PER_DCU ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5000);
/** issue 8: one process plays 10,000 meters without falling behind. */
const TARGET_LAG_P99_MS = 100;

const aedes = await Aedes.createBroker();
const server = createServer(aedes.handle);
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`;
const fleet = fleetFromFlags({ dcus: DCUS, metersPerDcu: PER_DCU, seed: 1, prefix: 'BENCH' });
const meters = fleet.dcus.flatMap((d) => d.meters.map((m) => m.devAddr));

const head: MqttClient = await mqtt.connectAsync(url, { protocolVersion: 4, clientId: 'bench-head-end' });
const waiting = new Map<string, () => void>();
head.on('message', (_topic, payload) => {
  const { reqId } = JSON.parse(payload.toString()) as { reqId: string };
  const done = waiting.get(reqId);
  waiting.delete(reqId);
  done?.();
});
await head.subscribeAsync(['ami/+/+/reply', 'echo/+/reply'], { qos: 1 });

let sequence = 0;
/** Sends one command to every meter at once; answers commands per second once all are answered. */
async function burst(topicOf: (addr: string) => string, body: () => Record<string, unknown>): Promise<number> {
  const started = performance.now();
  await Promise.all(
    meters.map((addr) => {
      const reqId = `b${++sequence}`;
      return new Promise<void>((resolve) => {
        waiting.set(reqId, resolve);
        head.publish(topicOf(addr), JSON.stringify({ reqId, ...body() }), { qos: 1 });
      });
    }),
  );
  return meters.length / ((performance.now() - started) / 1000);
}

const lag = monitorEventLoopDelay({ resolution: 5 });
const lagP99 = () => lag.percentile(99) / 1e6;
const ms = (n: number) => n.toFixed(1).padStart(8);
const rate = (n: number) => Math.round(n).toLocaleString('en').padStart(8);
const best = (xs: number[]) => Math.max(...xs);

// The bare broker: as many connections as DCUs, each answering its meters' commands at once.
const echoes = await Promise.all(
  fleet.dcus.map(async (dcu, i) => {
    const client = await mqtt.connectAsync(url, { protocolVersion: 4, clientId: `echo-${i}` });
    client.on('message', (_topic, payload) => {
      const { reqId } = JSON.parse(payload.toString()) as { reqId: string };
      client.publish('echo/x/reply', JSON.stringify({ reqId, code: '00' }), { qos: 1 });
    });
    await client.subscribeAsync(
      dcu.meters.map((m) => `echo/${m.devAddr}/cmd`),
      { qos: 1 },
    );
    return client;
  }),
);

const startedAt = performance.now();
const sim = startSimulator({
  url,
  fleet,
  seed: 1,
  knobs: { latency: { min: 0, median: 0, max: 0 } },
});
await sim.ready;
const startup = performance.now() - startedAt;

lag.enable();
await new Promise((r) => setTimeout(r, IDLE_MS));
const idleLag = lagP99();
lag.reset();

const deadline = () => new Date(Date.now() + 120_000).toISOString();
const read = () => ({
  op: 'get',
  deadline: deadline(),
  items: [
    { obis: OBIS.activeImport, classId: 3, attribute: 2 },
    { obis: OBIS.clock, classId: 8, attribute: 2 },
  ],
});
let relayMethod = 1;
const relay = () => ({
  op: 'action',
  deadline: deadline(),
  items: [{ obis: OBIS.mainRelay, classId: 70, attribute: relayMethod }],
});
const cmdTopic = (addr: string) => `ami/meter/${addr}/cmd`;
const echoTopic = (addr: string) => `echo/${addr}/cmd`;
await burst(echoTopic, () => ({}));
await burst(cmdTopic, read);
lag.reset();
// Rounds alternate, so the broker and the simulator see the same moments of a shared machine.
const bare: number[] = [];
const reads: number[] = [];
const relays: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  bare.push(await burst(echoTopic, () => ({})));
  reads.push(await burst(cmdTopic, read));
  relays.push(await burst(cmdTopic, relay));
  relayMethod = relayMethod === 1 ? 2 : 1;
}
const burstLag = lagP99();
lag.disable();
const stats = sim.stats();
await Promise.all(echoes.map((c) => c.endAsync()));

console.log(
  `\nSimulator fleet: ${DCUS} DCUs × ${PER_DCU} meters = ${meters.length.toLocaleString('en')} meters, in-process Aedes`,
);
console.log(`  start-up (all connected, statuses out)    ${ms(startup)} ms`);
console.log(`  event-loop delay p99, fleet idle (${(IDLE_MS / 1000).toFixed(0)} s)    ${ms(idleLag)} ms`);
console.log(`  event-loop delay p99, during the bursts   ${ms(burstLag)} ms   (target < ${TARGET_LAG_P99_MS} ms)`);
console.log(`  commands answered per second, best of ${ROUNDS} bursts of ${meters.length.toLocaleString('en')}:`);
console.log(`    bare broker echo                         ${rate(best(bare))}`);
console.log(
  `    simulator, get register + clock          ${rate(best(reads))}   ratio ${(best(reads) / best(bare)).toFixed(2)}`,
);
console.log(
  `    simulator, relay action                  ${rate(best(relays))}   ratio ${(best(relays) / best(bare)).toFixed(2)}`,
);
console.log(
  `  counters: received ${stats.received}, executed ${stats.executed}, executedTwice ${stats.executedTwice}, ` +
    `duplicateSends ${stats.duplicateSends}, busy ${stats.busy}, replies ${stats.repliesSent}, events ${stats.events}`,
);

await sim.stop();
await head.endAsync();
await new Promise<void>((resolve) => aedes.close(() => resolve()));
await new Promise<void>((resolve) => server.close(() => resolve()));
if (stats.executedTwice !== 0) process.exitCode = 1;
