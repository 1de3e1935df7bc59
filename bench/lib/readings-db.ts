/**
 * The readings benchmarks' database on PostgreSQL, the run's own and dropped at its end (with
 * `BENCH_REUSE=1`, `meterdesk_bench_readings`, built once and reused; `BENCH_RESEED=1` builds it
 * again): a grid of 1 region → 10 substations → 100 feeders → 1,000 transformer areas, 100,000 meters
 * (BENCH_METERS)
 * spread over the areas, and generated with generate_series straight into the tables (the writer's
 * path is the ingest benchmark's business):
 * - the load profile of every meter for DAY (96 intervals each, 9.6 M rows) and of the first
 *   HISTORY_METERS meters for HISTORY_DAYS more days, so the table holds over 10 M rows;
 * - the daily frozen registers of every meter for DAY and the day before.
 */
import pg from 'pg';
import { openDatabase } from '../../packages/server/src/db/driver';
import { ensurePartitions } from '../../packages/server/src/readings/partitions';
import { seed } from '../../packages/server/src/seed/seed';
import { runDatabase } from './scale-db.mjs';
import { ADMIN_PASSWORD } from './server.mjs';

export const METERS = Number(process.env.BENCH_METERS ?? 100_000);
export const HISTORY_METERS = Math.min(3_500, METERS);
export const HISTORY_DAYS = 5;
const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const todayMs = Date.parse(`${isoDay(Date.now())}T00:00:00Z`);
/** The fleet day: yesterday, a day the API may be asked for. */
export const DAY = isoDay(todayMs - DAY_MS);
/** The days of the history meters, DAY among them. */
export const HISTORY = Array.from({ length: HISTORY_DAYS + 1 }, (_, i) => isoDay(todayMs - (i + 1) * DAY_MS));

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
let NAME = 'meterdesk_bench_readings';

const readingsUrl = () => {
  const url = new URL(adminUrl);
  url.pathname = `/${NAME}`;
  return url.toString();
};

/** Meter i's id: 32 hex characters, as record ids are. */
const meterId = (i: string) => `md5('bench meter ' || ${i})`;

/** The database, built when missing or when it holds another day's readings; answers its URL. */
export async function readingsDatabase(): Promise<string> {
  const own = await runDatabase('readings');
  if (own) NAME = own;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const found = (await admin.query('select 1 from pg_database where datname = $1', [NAME])).rowCount === 1;
  let fresh = own !== null || !found || process.env.BENCH_RESEED === '1';
  if (!fresh) {
    const c = new pg.Client({ connectionString: readingsUrl() });
    await c.connect();
    const { rows } = await c
      .query(`select count(*)::int as n from reading_daily where day = $1`, [DAY])
      .catch(() => ({ rows: [{ n: 0 }] }));
    await c.end();
    fresh = rows[0].n !== METERS;
    if (fresh) console.log(`${NAME} holds another day's readings: building it again`);
  }
  if (fresh && !own) {
    await admin.query(`drop database if exists ${NAME} with (force)`);
    await admin.query(`create database ${NAME}`);
  }
  await admin.end();
  if (!fresh) return readingsUrl();

  const started = performance.now();
  console.log(`Building ${NAME}…`);
  const database = await openDatabase({ databaseUrl: readingsUrl() });
  await database.migrate();
  await seed(database.db, { adminPassword: ADMIN_PASSWORD });
  // Up to the fleet day's end: its last interval is stamped 24:00, which may open the next month.
  await ensurePartitions(
    database.db,
    new Date(`${HISTORY.at(-1)}T00:00:00Z`),
    new Date(Date.parse(`${DAY}T00:00:00Z`) + 86_400_000),
  );
  await database.close();

  const c = new pg.Client({ connectionString: readingsUrl() });
  await c.connect();
  const step = async (what: string, text: string, values: unknown[] = []) => {
    const t0 = performance.now();
    const r = await c.query(text, values);
    console.log(
      `  ${what}: ${(r.rowCount ?? 0).toLocaleString('en-US')} rows, ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  };
  const node = (kind: string, i: string) => `md5('bench ${kind} ' || ${i})`;
  await step(
    'grid',
    `insert into power_grid (id, grid_code, grid_name, grid_type, parent_id)
     select md5('bench region'), 'BR', 'Bench region', 0, '0'
     union all select ${node('substation', 's')}, 'BS' || s, 'Substation ' || s, 1, md5('bench region') from generate_series(0, 9) s
     union all select ${node('feeder', 'f')}, 'BF' || f, 'Feeder ' || f, 2, ${node('substation', 'f / 10')} from generate_series(0, 99) f
     union all select ${node('area', 'a')}, 'BA' || a, 'Area ' || a, 3, ${node('feeder', 'a / 10')} from generate_series(0, 999) a`,
  );
  await step(
    'meters',
    // Running meters (status 2): the ones reports and the grid rollups' intervals count.
    `insert into meter (id, dev_addr, grid_id, status)
     select ${meterId('i')}, 'BM' || lpad(i::text, 8, '0'), ${node('area', 'i % 1000')}, 2 from generate_series(0, $1::int - 1) i`,
    [METERS],
  );
  // A meter's power wanders with the time of day; its energy register is the running sum. A row is
  // stamped with its interval's end, so a day's 96 are 00:15 … 24:00.
  const profile = (meters: string, days: string) =>
    `insert into reading_profile (meter_id, ts, active_import, active_export, reactive_import, reactive_export, active_power, voltage_l1, current_l1)
     select ${meterId('i')}, d::timestamp at time zone 'UTC' + (n + 1) * interval '15 minutes',
       1000000 + (extract(epoch from d) / 86400)::bigint * 24000 + n * 250 + i % 97, 0, 100 + n, 0,
       800 + (n * 37 + i) % 1200, 2300 + (i + n) % 60, 3000 + (i * 7 + n) % 2000
     from ${days} cross join ${meters} cross join generate_series(0, 95) n
     order by 1, 2`;
  await step(
    'profile, every meter on the fleet day',
    profile(`generate_series(0, ${METERS - 1}) i`, `(select '${DAY}'::date) t(d)`),
  );
  await step(
    `profile, ${HISTORY_METERS.toLocaleString('en-US')} meters × ${HISTORY_DAYS} more days`,
    profile(`generate_series(0, ${HISTORY_METERS - 1}) i`, `unnest('{${HISTORY.slice(1).join(',')}}'::date[]) t(d)`),
  );
  await step(
    'daily frozen, the fleet day and the day before',
    `insert into reading_daily (meter_id, day, active_import, max_demand)
     select ${meterId('i')}, d, 1000000 + (extract(epoch from d) / 86400)::bigint * 24000 + i % 97 + 24000, 2000 + i % 500
     from unnest('{${HISTORY[1]},${DAY}}'::date[]) d cross join generate_series(0, ${METERS - 1}) i`,
  );
  await step('vacuum analyze', 'vacuum analyze');
  await c.end();
  console.log(`Built in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return readingsUrl();
}
