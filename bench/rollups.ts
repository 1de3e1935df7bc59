/*
 * The rollups on PostgreSQL (lib/readings-db.ts: 100,000 meters, each with its day of load profile
 * and the daily frozen values of that day and the day before):
 * - the daily rollup of those 100,000 meters (`rollupDay`, the statements the incremental fold runs);
 * - a fleet-day total (meters, consumption, intervals received) read from the grid rollups against
 *   the same figures computed from raw rows, in the same run.
 * Run with `npm run bench:rollups` (BENCH_DATABASE_URL names the server; BENCH_METERS and BENCH_RUNS size it).
 * issue 9 targets: the rollup of 100,000 meters ≤ 5 s; the total from rollups ≥ 40 × faster than from raw rows.
 */
import { openDatabase } from '../packages/server/src/db/driver';
import { rollupDay } from '../packages/server/src/readings/rollups';
import { cleanup } from './lib/cleanup.mjs';
import { ms, summary } from './lib/measure.mjs';
import { DAY, METERS, readingsDatabase } from './lib/readings-db';
import { pg } from './lib/scale-db.mjs';

const TARGET_ROLLUP_S = 5;
const TARGET_SPEEDUP = 40;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const url = await readingsDatabase();
const database = await openDatabase({ databaseUrl: url });
const client = new pg.Client({ connectionString: url });
await client.connect();

try {
  await client.query('truncate rollup_meter_day, rollup_grid_day, rollup_pending');
  const timings: number[] = [];
  for (let run = 0; run < 2; run++) {
    const started = performance.now();
    const meters = await rollupDay(database.db, DAY);
    timings.push((performance.now() - started) / 1000);
    if (meters !== METERS) throw new Error(`rolled up ${meters} meters, not ${METERS}`);
  }
  console.log(`\nDaily rollup of ${METERS.toLocaleString('en-US')} meters (${DAY}), from raw rows:`);
  console.log(
    `  first ${timings[0]?.toFixed(2)} s (rows made), again ${timings[1]?.toFixed(2)} s (rows recomputed in place)`,
  );

  const fromRollups = `select sum(meters)::int as meters, sum(consumption)::bigint as consumption, sum(intervals)::bigint as intervals
    from rollup_grid_day where day = $1`;
  const fromRaw = `select
      (select count(*)::int from meter m where exists (select 1 from reading_daily d where d.meter_id = m.id and d.day = $1)
        or exists (select 1 from reading_profile p where p.meter_id = m.id and p.ts > $1::date::timestamp at time zone 'UTC'
          and p.ts <= ($1::date + 1)::timestamp at time zone 'UTC')) as meters,
      (select sum(d.active_import - b.active_import)::bigint from reading_daily d
        join reading_daily b on b.meter_id = d.meter_id and b.day = d.day - 1 where d.day = $1) as consumption,
      (select count(*)::bigint from reading_profile p where p.ts > $1::date::timestamp at time zone 'UTC'
        and p.ts <= ($1::date + 1)::timestamp at time zone 'UTC') as intervals`;
  const time = async (text: string) => {
    const samples: number[] = [];
    let result: unknown;
    await client.query(text, [DAY]);
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      result = (await client.query(text, [DAY])).rows[0];
      samples.push(performance.now() - started);
    }
    return { samples, result };
  };
  const rolled = await time(fromRollups);
  const raw = await time(fromRaw);
  const same = JSON.stringify(rolled.result) === JSON.stringify(raw.result);
  console.log(
    `\nFleet-day total (${DAY}): ${JSON.stringify(rolled.result)}; from raw rows ${same ? 'the same' : `DIFFERS: ${JSON.stringify(raw.result)}`}`,
  );
  const r = summary(rolled.samples);
  const w = summary(raw.samples);
  console.log(`                 p50 ms`);
  console.log(`from rollups  ${ms(r.p50)}`);
  console.log(`from raw rows ${ms(w.p50)}`);
  const speedup = w.p50 / r.p50;
  console.log(
    `\nTargets: rollup ${timings[0]?.toFixed(2)} s (≤ ${TARGET_ROLLUP_S}): ${(timings[0] ?? 99) <= TARGET_ROLLUP_S ? 'met' : 'missed'}; ` +
      `total ${speedup.toFixed(0)} × faster from rollups (≥ ${TARGET_SPEEDUP}): ${speedup >= TARGET_SPEEDUP ? 'met' : 'missed'}`,
  );
  if (!same) process.exitCode = 1;
} finally {
  await client.end();
  await database.close();
}
await cleanup();
