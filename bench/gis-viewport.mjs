#!/usr/bin/env node
/**
 * The map's viewport query at 1,000,000 meters on PostgreSQL, with a viewport holding about
 * 100,000 of them (a tenth): the API call against the same SQL run bare through `pg` in the same run,
 * with 1 and 10 concurrent clients. Prints p50/p95 and the ratios.
 *
 *   npm run bench:gis          (BENCH_DATABASE_URL picks the PostgreSQL server; BENCH_CALLS the calls;
 *                               BENCH_METERS the archive's size; BENCH_REUSE=1 keeps its database, lib/scale-db.mjs)
 */
import { cleanup } from './lib/cleanup.mjs';
import { alternate, bareTwin, ms, summary } from './lib/measure.mjs';
import { onDatabase, pg, scaleDatabase } from './lib/scale-db.mjs';
import { startServer } from './lib/server.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const METERS = Number(process.env.BENCH_METERS ?? 1_000_000);
const IN_VIEW = METERS / 10;
/** issue 7: the viewport query at 100,000 meters, p95 under 50 ms. */
const TARGET_P95_MS = 50;
/** The map's width on a large screen, which sets the zoom of the viewport. */
const MAP_PX = 1400;

/** A square viewport around the meters' centre holding about `IN_VIEW` of them. */
const viewport = (url) =>
  onDatabase(url, async (c) => {
    const { rows } = await c.query('select avg(latitude) as lat, avg(longitude) as lng from meter');
    const lat = Number(rows[0].lat);
    const lng = Number(rows[0].lng);
    const box = (half) => ({ west: lng - half, south: lat - half, east: lng + half, north: lat + half });
    const inBox = async (half) => {
      const b = box(half);
      const found = await c.query(
        'select count(*)::int as n from meter where point(longitude, latitude) <@ box(point($1, $2), point($3, $4))',
        [b.west, b.south, b.east, b.north],
      );
      return found.rows[0].n;
    };
    let [low, high] = [0, 1];
    for (let i = 0; i < 30; i++) {
      const half = (low + high) / 2;
      if ((await inBox(half)) < IN_VIEW) low = half;
      else high = half;
    }
    const b = box(high);
    const zoom = Math.floor(Math.log2((360 * MAP_PX) / 256 / (b.east - b.west)));
    return { ...b, zoom, meters: await inBox(high) };
  });

const url = await scaleDatabase(METERS);
const server = await startServer(url);
const pool = new pg.Pool({ connectionString: url, max: 10 });
const results = [];
try {
  const view = await viewport(url);
  const { meters, ...bounds } = view;
  const scenarios = [
    { name: `meters, ${meters.toLocaleString('en-US')} in view`, body: { ...bounds, kinds: ['meter'] } },
    {
      name: `meters, consumers and DCUs in view`,
      body: { ...bounds, kinds: ['meter', 'consumer', 'dcu'] },
    },
  ];
  console.log(
    `\nGIS viewport, ${METERS.toLocaleString('en-US')} meters on PostgreSQL (zoom ${bounds.zoom}, ${(bounds.east - bounds.west).toFixed(3)}° wide): API vs the same SQL bare`,
  );
  console.log(`${'scenario'.padEnd(44)} clients │ API p50     p95 │ bare p50     p95 │ p95 ratio`);
  for (const scenario of scenarios) {
    const statements = await server.capture(() => server.call('/gis/points', scenario.body));
    const bare = bareTwin(pool, statements);
    for (const clients of [1, 10]) {
      const samples = await alternate(
        { api: () => server.call('/gis/points', scenario.body), bare: bare.once },
        { clients, calls: clients === 1 ? CALLS / 2 : CALLS },
      );
      const api = summary(samples.api);
      const sql = summary(samples.bare);
      results.push({ scenario: scenario.name, clients, api, sql });
      console.log(
        `${scenario.name.padEnd(44)} ${String(clients).padStart(7)} │ ${ms(api.p50)} ${ms(api.p95)} │  ${ms(sql.p50)} ${ms(sql.p95)} │ ${(api.p95 / sql.p95).toFixed(2).padStart(6)}`,
      );
    }
  }
} finally {
  await pool.end();
  await server.stop();
}
await cleanup();
const target = results.find((r) => r.scenario.startsWith('meters,') && r.clients === 1);
console.log(
  `\nTarget (about ${IN_VIEW.toLocaleString('en-US')} meters in view, 1 client): p95 ${target.api.p95.toFixed(2)} ms (< ${TARGET_P95_MS}): ${target.api.p95 < TARGET_P95_MS ? 'met' : 'missed'}`,
);
