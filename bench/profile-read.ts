/*
 * One meter's day of load profile through the API (`/readings/profile`, the real server, logged in)
 * against the very statement it sends run bare through `pg`, in the same run, 10 concurrent clients
 * each side, on a reading_profile of over 10 M rows (lib/readings-db.ts). Prints p50/p95 and the
 * throughput of both, and their ratios. Run with
 *   npm run bench:profile-read      (BENCH_DATABASE_URL names the PostgreSQL server; BENCH_METERS the archive; BENCH_CALLS the calls;
 *                                    BENCH_CLIENTS the clients, e.g. 1 to see a call's cost without waiting)
 * issue 9 target: p95 ≤ 10 ms and the API's throughput ≥ 0.8 × the bare query's.
 * A third side measures HTTP alone (lib/http-floor.mjs: a server answering the same body, doing
 * nothing else): an API pays at least that per call on top of the query, on the same cores as the
 * database, so 1 / (1/bare + 1/HTTP) is the most any API over HTTP could reach on this machine.
 */
import { cleanup } from './lib/cleanup.mjs';
import { startHttpFloor } from './lib/http-floor.mjs';
import { bareTwin, closedLoop, ms, summary } from './lib/measure.mjs';
import { HISTORY, HISTORY_METERS, readingsDatabase } from './lib/readings-db';
import { pg } from './lib/scale-db.mjs';
import { startServer } from './lib/server.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 10);
const ROUNDS = 4;
const PAIRS = 50;
const TARGET_P95_MS = 10;
const TARGET_THROUGHPUT = 0.8;

const url = await readingsDatabase();
const pool = new pg.Pool({ connectionString: url, max: CLIENTS });
const { rows: counted } = await pool.query(
  `select reltuples::bigint as n from pg_class where relname = 'reading_profile_p' || to_char($1::date, 'YYYYMM')`,
  [HISTORY[0]],
);
const { rows: total } = await pool.query('select count(*)::bigint as n from reading_profile');
const server = await startServer(url, { logLevel: 'warn' });
let floor: Awaited<ReturnType<typeof startHttpFloor>> | null = null;

try {
  // The same (meter, day) pairs on both sides, so both read the same pages.
  const { rows: meters } = await pool.query(`select id from meter order by id limit $1`, [HISTORY_METERS]);
  const pairs: { meterId: string; day: string }[] = [];
  const withHistory = new Set(
    (
      await pool.query(`select distinct meter_id from reading_profile where ts > $1::date and ts <= $1::date + 1`, [
        HISTORY.at(-1),
      ])
    ).rows.map((r: { meter_id: string }) => r.meter_id),
  );
  const candidates = meters.map((m: { id: string }) => m.id).filter((id: string) => withHistory.has(id));
  for (let i = 0; i < PAIRS; i++)
    pairs.push({ meterId: candidates[(i * 7919) % candidates.length], day: HISTORY[i % HISTORY.length] as string });

  const first = await server.call('/readings/profile', pairs[0]);
  if (first.body.data.rows.length !== 96) throw new Error(`expected 96 intervals, got ${first.body.data.rows.length}`);
  // The capture takes every statement the server sends meanwhile: a background job's (the rollup
  // fold's, each minute) may fall in, so a call seen sending more than one is caught again.
  const capture = async (pair: (typeof pairs)[number]) => {
    for (let attempt = 1; ; attempt++) {
      const twin = bareTwin(pool, await server.capture(() => server.call('/readings/profile', pair)));
      if (twin.statements.length === 1 || attempt === 3) return twin;
    }
  };
  const twins = [];
  for (const pair of pairs) {
    const twin = await capture(pair);
    if (twin.statements.length !== 1) throw new Error(`the call sent ${twin.statements.length} statements, not 1`);
    twins.push(twin);
  }

  floor = await startHttpFloor(JSON.stringify(first.body));
  const floorServer = floor;
  let nextApi = 0;
  let nextBare = 0;
  let nextFloor = 0;
  const api = () => server.call('/readings/profile', pairs[nextApi++ % PAIRS]);
  const bare = () => twins[nextBare++ % PAIRS].once();
  const http = () => floorServer.call('/readings/profile', pairs[nextFloor++ % PAIRS]);

  const sides = { api, bare, http } as const;
  const samples: Record<string, number[]> = { api: [], bare: [], http: [] };
  const seconds: Record<string, number> = { api: 0, bare: 0, http: 0 };
  for (const once of Object.values(sides)) await closedLoop(once, { clients: CLIENTS, calls: CLIENTS * 20 });
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, once] of Object.entries(sides)) {
      const started = performance.now();
      samples[name]?.push(...(await closedLoop(once, { clients: CLIENTS, calls: Math.ceil(CALLS / ROUNDS) })));
      seconds[name] = (seconds[name] ?? 0) + (performance.now() - started) / 1000;
    }
  const a = summary(samples.api);
  const b = summary(samples.bare);
  const rateA = (samples.api?.length ?? 0) / (seconds.api ?? 1);
  const rateB = (samples.bare?.length ?? 0) / (seconds.bare ?? 1);
  const h = summary(samples.http);
  const rateH = (samples.http?.length ?? 0) / (seconds.http ?? 1);
  const ceiling = 1 / (1 / rateB + 1 / rateH);
  console.log(
    `\nOne meter's day of load profile (96 rows), reading_profile ${Number(total[0].n).toLocaleString('en-US')} rows ` +
      `(the day's month partition ~${Number(counted[0]?.n ?? 0).toLocaleString('en-US')}), ${CLIENTS} clients, ${a.n} calls a side`,
  );
  console.log(`          p50      p95   calls/s`);
  console.log(`API   ${ms(a.p50)}  ${ms(a.p95)}  ${rateA.toFixed(0).padStart(8)}`);
  console.log(`bare  ${ms(b.p50)}  ${ms(b.p95)}  ${rateB.toFixed(0).padStart(8)}`);
  console.log(
    `HTTP  ${ms(h.p50)}  ${ms(h.p95)}  ${rateH.toFixed(0).padStart(8)}   (the same body, no work: HTTP's own cost)`,
  );
  console.log(
    `The most an API over HTTP reaches here, 1 / (1/bare + 1/HTTP): ${ceiling.toFixed(0)} calls/s = ${(ceiling / rateB).toFixed(2)} × bare`,
  );
  const ratio = rateA / rateB;
  console.log(`API throughput ÷ bare: ${ratio.toFixed(2)}; API p95 ÷ bare p95: ${(a.p95 / b.p95).toFixed(2)}`);
  const met = a.p95 <= TARGET_P95_MS && ratio >= TARGET_THROUGHPUT;
  console.log(
    `Target: p95 ${a.p95.toFixed(2)} ms (≤ ${TARGET_P95_MS}), throughput ${ratio.toFixed(2)} × bare (≥ ${TARGET_THROUGHPUT}): ${met ? 'met' : 'missed'}`,
  );
} finally {
  await pool.end();
  await server.stop();
  await floor?.stop();
}
await cleanup();
