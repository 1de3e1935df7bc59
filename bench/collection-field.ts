/*
 * The collection field run: the simulator plays 10,000 meters (100 DCUs × 100) of which 5 % flap
 * offline and back, with 1 % of messages lost; a daily collection task (load profile and daily frozen
 * values, two repairs a minute apart) runs through the server's own scheduler. Prints the read success
 * before and after repair, the time from the occurrence to the last repair's end, and the reads the
 * repairs sent against re-reading every meter's whole day, the readings the devices sent again and
 * whether any stored reading was written again. On PostgreSQL:
 *   npm run bench -- field        (BENCH_DATABASE_URL names the server; BENCH_DCUS, BENCH_METERS_PER_DCU scale it;
 *                                  BENCH_REPAIRS=0 BENCH_RUN_NOW=1 run the task at once, without repairs;
 *                                  BENCH_FLAPPING and BENCH_LOSS set the faults, 0.05 and 0.01 by default)
 */
import { newId } from '../packages/server/src/db/ids';
import { cleanup } from './lib/cleanup.mjs';
import {
  apiClient,
  fleetDatabase,
  fleetOnline,
  freePort,
  ready,
  startServer,
  startSimulatorProcess,
} from './lib/fleet-server';

const DCUS = Number(process.env.BENCH_DCUS ?? 100);
const METERS_PER_DCU = Number(process.env.BENCH_METERS_PER_DCU ?? 100);
const REPAIRS = Number(process.env.BENCH_REPAIRS ?? 2);
/** Runs the task through "run now" instead of waiting for the scheduler's next minute. */
const RUN_NOW = process.env.BENCH_RUN_NOW === '1';
const QUARTER_MS = 900_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const db = await fleetDatabase('field', DCUS, METERS_PER_DCU);
const port = await freePort();
const mqttPort = await freePort();
const server = startServer(db, port, mqttPort, { HEADEND_DCU_CONCURRENCY: '4' });
const api = apiClient(port);
await ready(api, server);
// A smoke run turns the faults off (BENCH_FLAPPING=0 BENCH_LOSS=0): a lost answer waits out its command's
// time-out, a minute and more of a run that only has to show the bench still works.
const FLAPPING = Number(process.env.BENCH_FLAPPING ?? 0.05);
const LOSS = Number(process.env.BENCH_LOSS ?? 0.01);
const sim = startSimulatorProcess(db, mqttPort, '50:200:800', [
  '--flapping',
  String(FLAPPING),
  '--flap-period',
  '30',
  '--loss',
  String(LOSS),
  '--stats-readings',
]);
// Flapping meters come and go: most of the fleet online is enough to start.
await fleetOnline(db, Math.floor(db.meters.length * 0.9));
console.log(
  `fleet online: ${DCUS} DCUs, ${db.meters.length} meters, ${FLAPPING * 100} % flapping, ${LOSS * 100} % message loss`,
);

const anchor = Math.floor(Date.now() / QUARTER_MS) * QUARTER_MS;
const planId = newId();
await db.sql.query(
  `insert into plan (id, plan_name, kind, plan_status, enabled, devs, crontab, orders, pri, timeout, concurrent, created_by, next_run_at)
   values ($1, 'field run', 'collection', 'waiting', true, $2, $3, $4, 3, 10, 3, 'admin', $5)`,
  [
    planId,
    JSON.stringify({ itemType: 1, devList: db.dcus }),
    JSON.stringify({
      starttime: anchor / 1000,
      freq: 1,
      unit: 'day',
      count: 1,
      repairConf: { repairFreq: 1, repairUnit: 'minute', repairCount: REPAIRS },
    }),
    JSON.stringify([
      { cgcode: 'loadProfile', cmd: 'collect', params: {}, isCyclePlan: false },
      { cgcode: 'dailyFrozen', cmd: 'collect', params: {}, isCyclePlan: false },
    ]),
    new Date(RUN_NOW ? anchor + 86_400_000 : anchor),
  ],
);
if (RUN_NOW) {
  const answer = await api.post('/plan/runnow', { planid: planId });
  if (answer.body.code !== 200) throw new Error(`runnow: ${JSON.stringify(answer.body)}`);
  console.log('task run now');
} else console.log('task due; the scheduler picks it up at its next minute');

interface RunRow {
  id: string;
  kind: string;
  status: string;
  expected: number;
  received: number;
  requests: number;
  ranges: number;
  devices: number;
  create_time: Date;
  started_at: Date | null;
  finished_at: Date | null;
}
const runs = async (): Promise<RunRow[]> =>
  (
    await db.sql.query(
      `select id, kind, status, expected, received, requests, ranges, devices, create_time, started_at, finished_at, period_from, period_to
       from collection_run where plan_id = $1 order by due_at`,
      [planId],
    )
  ).rows;

/**
 * Readings at home over time: what the store holds of the scheduled run's period, sampled while the
 * runs go (a run's end is bookkeeping; its last reads may wait long for a meter that stays offline).
 */
const stored: { at: number; readings: number }[] = [];
const countStored = async (run: RunRow & { period_from: Date; period_to: Date }) => {
  const { rows } = await db.sql.query(
    `select (select count(*) from reading_profile where ts > $1 and ts <= $2)
          + (select count(*) from reading_daily where day >= ($1 at time zone 'UTC')::date and day < ($2 at time zone 'UTC')::date) as n`,
    [run.period_from, run.period_to],
  );
  stored.push({ at: Date.now(), readings: Number(rows[0].n) });
};
const deadline = Date.now() + 20 * 60_000;
for (;;) {
  const all = await runs();
  if (all[0]?.started_at) await countStored(all[0] as RunRow & { period_from: Date; period_to: Date });
  if (all.length === 1 + REPAIRS && all.every((r) => r.status === 'finished')) break;
  if (Date.now() > deadline) throw new Error(`runs not finished: ${JSON.stringify(all.map((r) => r.status))}`);
  await pause(1000);
}
const [scheduled, ...repairs] = await runs();
if (!scheduled) throw new Error('no scheduled run');
const rate = (r: RunRow) => ((100 * r.received) / Math.max(1, r.expected)).toFixed(2);
const last = repairs.at(-1) ?? scheduled;
const seconds = ((last.finished_at?.getTime() ?? 0) - scheduled.create_time.getTime()) / 1000;
const { rows: asked } = await db.sql.query(
  `select count(*)::int as reads, coalesce(sum(jsonb_array_length(command->'items')), 0)::int as ranges
   from device_command where run_id = any($1)`,
  [repairs.map((r) => r.id)],
);
/** When a run ended, in seconds from the occurrence. */
const endedAfter = (r: RunRow) => ((r.finished_at?.getTime() ?? 0) - scheduled.create_time.getTime()) / 1000;
const TARGET = 99.5;

console.log(`meters: ${scheduled.devices}, readings expected: ${scheduled.expected}`);
console.log(
  `before repair: ${rate(scheduled)} % (${scheduled.received} of ${scheduled.expected}), run closed at ${endedAfter(scheduled).toFixed(1)} s`,
);
for (const [i, r] of repairs.entries())
  console.log(
    `after repair ${i + 1}: ${rate(r)} % (${r.requests} reads, ${r.ranges} ranges), run closed at ${endedAfter(r).toFixed(1)} s`,
  );
console.log(`after repair: ${rate(last)} %`);
/**
 * Meters no read could reach in the first 2 minutes, as the head-end recorded the links
 * (link_change): offline, or behind a DCU offline, from the occurrence to the window's end. The
 * simulator's flapping takes DCUs down too, each with its hundred meters, for 30-second spells that
 * can follow each other for minutes.
 */
const windowStart = scheduled.create_time;
const windowEnd = new Date(windowStart.getTime() + 120_000);
const { rows: unreachable } = await db.sql.query(
  `with down as (
     select d.id from (select id from dcu union all select id from meter) d
     where coalesce((select l.online from link_change l where l.device_id = d.id and l.ts <= $1
                     order by l.ts desc limit 1), false) = false
       and not exists (select 1 from link_change l where l.device_id = d.id and l.ts > $1 and l.ts <= $2 and l.online))
   select count(*)::int as meters from meter m where m.id in (select id from down) or m.dcu_id in (select id from down)`,
  [windowStart, windowEnd],
);
const perMeter = scheduled.expected / Math.max(1, scheduled.devices);
const reachableExpected = scheduled.expected - unreachable[0].meters * perMeter;
const storedBy = stored.filter((s) => s.at <= windowEnd.getTime()).at(-1)?.readings ?? 0;
console.log(
  `meters unreachable through the first 120 s (offline, or behind a DCU offline, as the head-end saw them): ${unreachable[0].meters}`,
);
console.log(
  `readings stored 120 s after the occurrence: ${((100 * storedBy) / scheduled.expected).toFixed(2)} % of all meters', ${(
    (100 * storedBy) / Math.max(1, reachableExpected)
  ).toFixed(2)} % of the reachable meters' (target ≥ ${TARGET} %)`,
);
const storedAt = (share: number) => stored.find((s) => s.readings >= (share / 100) * scheduled.expected)?.at;
for (const share of [99, TARGET, 99.9]) {
  const at = storedAt(share);
  console.log(
    at
      ? `${share} % of the readings stored ${((at - scheduled.create_time.getTime()) / 1000).toFixed(1)} s after the occurrence${share === TARGET ? ' (target: within 120 s)' : ''}`
      : `${share} % of the readings never stored while the runs went`,
  );
}
console.log(`time from the occurrence to the last repair's end: ${seconds.toFixed(1)} s`);
console.log(
  `repair reads: ${asked[0].reads} (${asked[0].ranges} ranges) vs ${scheduled.devices} to re-read every meter's whole day: ${(
    scheduled.devices / Math.max(1, asked[0].reads)
  ).toFixed(1)}× fewer`,
);

await sim.stop();
const sent = sim.stats() as { readingsSent: number; readingsSentAgain: number };
// A stopped server's database sessions have ended, so their table statistics are all counted.
server.child.kill('SIGTERM');
await server.exited;
/**
 * The key (meter, time) refuses a second row, so "stored twice" can only mean a stored reading written
 * again: an update, or a delete and insert.
 */
const { rows: rewritten } = await db.sql.query(
  `select coalesce(sum(n_tup_upd + n_tup_del), 0)::int as n from pg_stat_user_tables
   where relname like 'reading_profile%' or relname like 'reading_daily%'`,
);
console.log(
  `readings the devices sent again (profile and daily rows whose meter and time they had sent before): ${sent.readingsSentAgain} of ${sent.readingsSent}`,
);
console.log(`stored readings written again (updated or deleted, pg_stat_user_tables): ${rewritten[0].n}`);
api.close();
await cleanup();
if (rewritten[0].n > 0) process.exitCode = 1;
