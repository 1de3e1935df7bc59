/*
 * The head-end's promise under fire: 1,000 relay commands while the server is killed with SIGKILL
 * 20 times at random moments. Nothing may be lost (every command planned is recorded and reaches a
 * final result) and nothing sent twice (the simulator counts each (reqId, attempt) it receives). A
 * device answers a reqId it has executed from its stored reply, so "executed twice" is 0 whatever the
 * head-end does; with --no-dedupe the simulator executes every command it receives, and executed
 * twice counts the commands the head-end sent again (a later attempt) after the device had run them.
 * On PostgreSQL; run with
 *   npm run bench:headend-restart [-- --no-dedupe]
 *   (BENCH_DATABASE_URL names the server, default local; BENCH_DCUS, BENCH_METERS_PER_DCU, BENCH_KILLS,
 *   BENCH_PLAN_EVERY_MS scale it down)
 */
import { MAX_BATCH_DEVICES } from '@meterdesk/contracts';
import { cleanup } from './lib/cleanup.mjs';
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

const KILLS = Number(process.env.BENCH_KILLS ?? 20);
const DCUS = Number(process.env.BENCH_DCUS ?? 10);
const METERS_PER_DCU = Number(process.env.BENCH_METERS_PER_DCU ?? 100);
/** Plans arrive through the kills (one every PLAN_EVERY_MS), so commands are queued, sent and answered across every restart. */
const PLAN_EVERY_MS = Number(process.env.BENCH_PLAN_EVERY_MS ?? 2500);
const DEDUPE = !process.argv.includes('--no-dedupe');
const SEED = Number(process.env.BENCH_SEED ?? 1);

/** Same seed, same kill moments. */
const random = seeded(SEED);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const db = await fleetDatabase('restart', DCUS, METERS_PER_DCU);
const port = await freePort();
const mqttPort = await freePort();
const env = { HEADEND_DCU_CONCURRENCY: '4' };
let server: ServerProcess = startServer(db, port, mqttPort, env);
const api = apiClient(port);
await ready(api, server);
const sim = startSimulatorProcess(db, mqttPort, '50:200:800', ['--stats-reqids', ...(DEDUPE ? [] : ['--no-dedupe'])]);
await fleetOnline(db, db.meters.length);
console.log(
  `fleet online: ${DCUS} DCUs, ${db.meters.length} meters; the simulator ${DEDUPE ? 'answers a reqId asked again from its stored reply' : 'executes every command it receives (--no-dedupe)'}`,
);

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

// Each plan takes meters across every DCU (as an operator's batch by grid node would), so no single
// DCU's slots set the pace.
const planCount = Math.ceil(db.meters.length / MAX_BATCH_DEVICES);
const plans: string[] = [];
for (let i = 0; i < planCount; i++) {
  plans.push(
    await plan(
      db.meters.filter((_, m) => m % planCount === i),
      i,
    ),
  );
  await pause(PLAN_EVERY_MS);
}
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
const stats = sim.stats() as {
  received: number;
  receivedUnique: number;
  duplicateSends: number;
  executedTwice: number;
  replayed: number;
  executions: Record<string, number>;
};

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
const attempts = commands.reduce((n, c) => n + c.attempt, 0);

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
console.log(
  `sent: the head-end recorded ${attempts} attempts; the simulator received ${stats.received} commands, ` +
    `${stats.receivedUnique} distinct (request, attempt)`,
);
console.log(`sent twice (an attempt the simulator received twice): ${stats.duplicateSends}`);
console.log(
  DEDUPE
    ? `a request received again after it ran, answered from the stored reply (not executed): ${stats.replayed}`
    : `executed twice (a request the head-end sent again after the device had run it): ${stats.executedTwice}`,
);
console.log(`answered 00 but never executed by the device: ${successNotExecuted}`);
const { executions: _executions, ...counters } = sim.stats();
console.log(`simulator: ${JSON.stringify(counters)}`);

api.close();
await cleanup();
// With de-duplication off, a command sent again after a kill is run again by design: counted, not a failure.
const executedTwice = DEDUPE ? stats.executedTwice : 0;
process.exit(lost === 0 && stats.duplicateSends === 0 && executedTwice === 0 && successNotExecuted === 0 ? 0 : 1);
