#!/usr/bin/env node
/**
 * The meter list at 1,000,000 meters on PostgreSQL: the API call (real server, logged in) against
 * the same SQL run bare through `pg` in the same run, with 1 and 10 concurrent clients; page 1
 * against a deep page; 1,000 against 1,000,000 meters. Prints p50/p95, the ratios, and the CPU the
 * server process spent per call (what the API adds, besides its session query and HTTP).
 *
 *   npm run bench:meters          (BENCH_DATABASE_URL picks the PostgreSQL server; BENCH_CALLS the calls;
 *                                  BENCH_METERS and BENCH_SMALL_METERS the two sizes; BENCH_REUSE=1 keeps
 *                                  their databases, lib/scale-db.mjs)
 */
import { cleanup } from './lib/cleanup.mjs';
import { alternate, bareTwin, ms, summary } from './lib/measure.mjs';
import { onDatabase, pg, scaleDatabase } from './lib/scale-db.mjs';
import { startServer } from './lib/server.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const SIZES = [
  { label: 'small', meters: Number(process.env.BENCH_SMALL_METERS ?? 1_000) },
  { label: 'large', meters: Number(process.env.BENCH_METERS ?? 1_000_000) },
];
/** issue 7: p95 at most 1.5 × the bare SQL, and under 10 ms, at 1,000,000 meters with 10 clients. */
const TARGET_RATIO = 1.5;
const TARGET_P95_MS = 10;

/** The substation (and its count) whose meters come last in the list's order: the far end of the key index. */
const lastSubstation = (url) =>
  onDatabase(url, async (c) => {
    const { rows } = await c.query(`
      with recursive up(id, parent_id, grid_type) as (
        select g.id, g.parent_id, g.grid_type from power_grid g
         where g.id = (select grid_id from meter order by dev_addr desc, id desc limit 1)
        union all
        select g.id, g.parent_id, g.grid_type from power_grid g join up on g.id = up.parent_id)
      select id, grid_type from up where grid_type = 1`);
    const id = rows[0].id;
    const { rows: counted } = await c.query(
      `with recursive sub(id) as (select $1::varchar union select g.id from power_grid g join sub on g.parent_id = sub.id)
       select count(*)::int as n from meter where grid_id in (select id from sub)`,
      [id],
    );
    return { id, meters: counted[0].n };
  });

/** A cursor `depth` rows into the list, reached the way a client does: page after page of 500. */
async function cursorAt(server, body, depth) {
  let after;
  for (let read = 0; read + 500 <= depth; read += 500) {
    const page = await server.call('/meter/list', { ...body, pageSize: 500, ...(after ? { after } : {}) });
    after = page.body.data.nextCursor;
  }
  return after;
}

const results = [];
const line = (text) => console.log(text);

for (const { label, meters } of SIZES) {
  const url = await scaleDatabase(meters);
  const substation = await lastSubstation(url);
  const server = await startServer(url);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  try {
    const filtered = { gridId: substation.id, pageSize: 10 };
    const deep = Math.floor((substation.meters * 0.8) / 500) * 500;
    const scenarios = [
      { name: 'whole archive, page 1', body: { pageSize: 10 } },
      { name: `substation subtree (${substation.meters.toLocaleString('en-US')} meters), page 1`, body: filtered },
      {
        name: `substation subtree, page at row ${deep.toLocaleString('en-US')} (cursor)`,
        body: { ...filtered, after: await cursorAt(server, filtered, deep) },
      },
    ];
    line(`\nMeter list, ${meters.toLocaleString('en-US')} meters on PostgreSQL: API vs the same SQL bare`);
    line(`${'scenario'.padEnd(62)} clients │ API p50     p95 │ bare p50     p95 │ p95 ratio │ server CPU/call`);
    for (const scenario of scenarios) {
      const statements = await server.capture(() => server.call('/meter/list', scenario.body));
      const bare = bareTwin(pool, statements);
      for (const clients of [1, 10]) {
        const cpuBefore = server.cpuMs();
        const samples = await alternate(
          { api: () => server.call('/meter/list', scenario.body), bare: bare.once },
          { clients, calls: clients === 1 ? CALLS / 2 : CALLS },
        );
        // The server works only for the API side (and idles through the bare one).
        const cpu = (server.cpuMs() - cpuBefore) / samples.api.length;
        const api = summary(samples.api);
        const sql = summary(samples.bare);
        const ratio = api.p95 / sql.p95;
        results.push({ label, scenario: scenario.name, clients, api, sql, ratio, cpu });
        line(
          `${scenario.name.padEnd(62)} ${String(clients).padStart(7)} │ ${ms(api.p50)} ${ms(api.p95)} │  ${ms(sql.p50)} ${ms(sql.p95)} │ ${ratio.toFixed(2).padStart(6)} │ ${ms(cpu)}`,
        );
      }
    }
  } finally {
    await pool.end();
    await server.stop();
  }
}

const at = (label, scenario, clients) =>
  results.find((r) => r.label === label && r.scenario.startsWith(scenario) && r.clients === clients);
line('\nDepth and size (API p95, 1 client)');
const [smallSize, largeSize] = SIZES.map((s) => s.meters.toLocaleString('en-US'));
const first = at('large', 'substation subtree (', 1);
const deepPage = at('large', 'substation subtree, page at', 1);
const small = at('small', 'substation subtree (', 1);
line(`  deep page / page 1 at ${largeSize} meters: ${(deepPage.api.p95 / first.api.p95).toFixed(2)}`);
line(`  page 1 at ${largeSize} / at ${smallSize} meters:  ${(first.api.p95 / small.api.p95).toFixed(2)}`);
const target = at('large', 'substation subtree (', 10);
const met = target.ratio <= TARGET_RATIO && target.api.p95 < TARGET_P95_MS;
line(
  `\nTarget (${largeSize} meters, subtree, 10 clients): p95 ${target.api.p95.toFixed(2)} ms (< ${TARGET_P95_MS}), ` +
    `${target.ratio.toFixed(2)} × bare (≤ ${TARGET_RATIO}): ${met ? 'met' : 'missed'}`,
);
await cleanup();
