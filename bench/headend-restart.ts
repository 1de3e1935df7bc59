/*
 * The head-end's promise under fire: 1,000 relay commands while the server is killed with SIGKILL
 * 20 times at random moments. Nothing may be lost (every command planned is recorded and reaches a
 * final result) and nothing sent twice (the simulator counts each (reqId, attempt) it receives and each
 * reqId it executes). On PostgreSQL; run with
 *   node --import tsx bench/headend-restart.ts        (BENCH_DATABASE_URL names the server, default local)
 */
import { MAX_BATCH_DEVICES } from '@meterdesk/contracts';
import {
  apiClient,
  fleetDatabase,
  fleetOnline,
  freePort,
  ready,
  type ServerProcess,
  startServer,
  startSimulatorProcess,
} from './lib/fleet-server';

const KILLS = Number(process.env.BENCH_KILLS ?? 20);
const DCUS = 10;
const METERS_PER_DCU = 100;
const SEED = Number(process.env.BENCH_SEED ?? 1);

/** Same seed, same kill moments. */
let state = SEED;
const random = () => {
  state = (state * 1103515245 + 12345) % 2 ** 31;
  return state / 2 ** 31;
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const db = await fleetDatabase('meterdesk_bench_restart', DCUS, METERS_PER_DCU);
const port = await freePort();
const mqttPort = await freePort();
const env = { HEADEND_DCU_CONCURRENCY: '2' };
let server: ServerProcess = startServer(db, port, mqttPort, env);
const api = apiClient(port);
await ready(api, server);
const sim = startSimulatorProcess(db, mqttPort, '300:1200:4000', ['--stats-reqids']);
await fleetOnline(db, db.meters.length);
console.log(`fleet online: ${DCUS} DCUs, ${db.meters.length} meters`);

let kills = 0;
let restarting: Promise<void> | null = null;
const started = performance.now();

/** Kills the server at random moments and starts it again at once, KILLS times. */
const killer = (async () => {
  while (kills < KILLS) {
    await pause(500 + random() * 3500);
    server.child.kill('SIGKILL');
    await server.exited;
    kills++;
    restarting = (async () => {
      server = startServer(db, port, mqttPort, env);
      await ready(api, server);
    })();
    await restarting;
    restarting = null;
  }
})();

/** Asks for one plan until the server answers; the same reqId makes a repeat return the plan already made. */
async function plan(devList: string[], index: number): Promise<string> {
  for (;;) {
    if (restarting) await restarting;
    const answer = await api
      .post('/plan/createplan', {
        planName: `restart bench ${index}`,
        reqId: `restart-bench-${index}`,
        timeout: 10,
        devs: { itemType: 0, devList },
        orders: [{ cmd: 'relayConnect' }],
      })
      .catch(() => null);
    if (answer?.body.code === 200) return (answer.body.data as { planid: string }).planid;
    if (answer && answer.status !== 401 && answer.status < 500) throw new Error(JSON.stringify(answer.body));
    if (answer?.status === 401) await api.login().catch(() => {});
    await pause(200);
  }
}

const plans: string[] = [];
for (let i = 0; i * MAX_BATCH_DEVICES < db.meters.length; i++)
  plans.push(await plan(db.meters.slice(i * MAX_BATCH_DEVICES, (i + 1) * MAX_BATCH_DEVICES), i));
await killer;

const count = async (where: string) =>
  (await db.sql.query(`select count(*)::int as n from device_command where ${where}`)).rows[0].n as number;
const deadline = Date.now() + 15 * 60_000;
while ((await count(`state <> 'done'`)) > 0) {
  if (Date.now() > deadline) throw new Error('commands still open after 15 minutes');
  await pause(500);
}
const seconds = (performance.now() - started) / 1000;
await pause(1500);
await sim.stop();
const stats = sim.stats() as { duplicateSends: number; executedTwice: number; executions: Record<string, number> };

const commands = (
  await db.sql.query<{ req_id: string; result_code: string; attempt: number }>(
    'select req_id, result_code, attempt from device_command',
  )
).rows;
const byCode: Record<string, number> = {};
for (const c of commands) byCode[c.result_code] = (byCode[c.result_code] ?? 0) + 1;
const successNotExecuted = commands.filter((c) => c.result_code === '00' && !stats.executions[c.req_id]).length;
const planned = db.meters.length;
const lost = planned - commands.length + (await count(`state <> 'done'`));

console.log(`kills: ${kills} (SIGKILL, restarted at once) over ${seconds.toFixed(0)} s`);
console.log(
  `plans: ${plans.length}; commands planned ${planned}, recorded ${commands.length}, finished ${commands.length}`,
);
console.log(
  `results: ${Object.entries(byCode)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ')}`,
);
console.log(`retried (more than one attempt): ${commands.filter((c) => c.attempt > 1).length}`);
console.log(`lost: ${lost}`);
console.log(`sent twice (an attempt the simulator received twice): ${stats.duplicateSends}`);
console.log(`executed twice: ${stats.executedTwice}`);
console.log(`answered 00 but never executed by the device: ${successNotExecuted}`);

server.child.kill('SIGTERM');
await server.exited;
api.close();
await db.drop();
process.exit(lost === 0 && stats.duplicateSends === 0 && stats.executedTwice === 0 && successNotExecuted === 0 ? 0 : 1);
