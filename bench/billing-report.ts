/*
 * The billing reports on PostgreSQL (lib/readings-db.ts, 10,000 meters unless BENCH_METERS says
 * otherwise, their daily frozen registers rolled up for the fleet day, and a rollup row of 24 kWh for
 * each of the 29 days before it written straight into rollup_meter_day): a monthly report (the 30 days
 * ending on the fleet day, every one known for every meter) built the way the build job builds it:
 * - the general report over every meter of the grid (the 10,000-meter case: a shopping-mall rule names
 *   at most MAX_RULE_METERS meters, so the fleet-wide build is the general report's, on the same reads);
 * - a shopping-mall report of a rule with a main meter and the most tenants a rule holds.
 * Run with `npm run bench:billing-report` (BENCH_DATABASE_URL names the server).
 * issue 20 target: a monthly report over 10,000 meters builds in ≤ 60 s.
 */
import { MAX_RULE_METERS } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../packages/server/src/db/driver';
import { billingRule, billingRuleMeter, tariff } from '../packages/server/src/db/schema';
import { buildRows } from '../packages/server/src/modules/payment/billing-report-content';
import { ensurePartitions } from '../packages/server/src/readings/partitions';
import { rollupDay } from '../packages/server/src/readings/rollups';
import { cleanup } from './lib/cleanup.mjs';

process.env.BENCH_METERS ??= '10000';
const { DAY, METERS, readingsDatabase } = await import('./lib/readings-db');
const TARGET_S = 60;
const DAY_MS = 86_400_000;

const url = await readingsDatabase();
const database = await openDatabase({ databaseUrl: url });
const db = database.db;
try {
  await rollupDay(db, DAY);
  const monthStart = new Date(Date.parse(DAY) - 29 * DAY_MS);
  await ensurePartitions(db, monthStart, new Date(`${DAY}T00:00:00Z`), ['rollup_meter_day']);
  await db.execute(sql`insert into rollup_meter_day (meter_id, day, grid_id, consumption, intervals)
    select m.id, ${DAY}::date - d, m.grid_id, 24000, 96 from meter m cross join generate_series(1, 29) d
    on conflict do nothing`);
  const tariffId = 'b111ec0000000000000000000000000a';
  const ruleId = 'b111ec0000000000000000000000000b';
  await db
    .insert(tariff)
    .values({
      id: tariffId,
      tariffName: 'Bench billing',
      calendar: {
        seasons: [{ start: '01-01', weekId: 1 }],
        weeks: [{ weekId: 1, days: [1, 1, 1, 1, 1, 1, 1] }],
        days: [{ dayId: 1, switches: [{ time: '00:00', rate: 1 }] }],
        specialDays: [],
      },
      price1: 0.5,
    })
    .onConflictDoNothing();
  await db.execute(sql`update meter set tariff_id = ${tariffId} where tariff_id is null`);
  await db
    .insert(billingRule)
    .values({
      id: ruleId,
      ruleNo: 'BENCH',
      ruleName: 'Bench mall',
      gridId: sql`md5('bench region')`,
      handlingFee: 2.5,
      taxes: 10,
      roundingBase: 0.1,
      chargeMode: 'percentage',
      percentage: 5,
    })
    .onConflictDoNothing();
  await db.execute(sql`delete from billing_rule_meter where rule_id = ${ruleId}`);
  await db.execute(sql`insert into ${billingRuleMeter} (rule_id, role, position, meter_id)
    select ${ruleId}, case when i = 0 then 'main' else 'tenant' end, i, md5('bench meter ' || i)
    from generate_series(0, ${Math.min(MAX_RULE_METERS, METERS - 1)}) i`);

  const endDay = DAY;
  const startDay = monthStart.toISOString().slice(0, 10);
  const conditions = { startDay, endDay, gridId: null, gridName: null, ruleId: null, ruleName: null };
  const noProgress = async () => {};
  const timed = async (build: () => Promise<unknown[]>) => {
    const started = performance.now();
    const rows = await build();
    return { seconds: (performance.now() - started) / 1000, rows: rows.length };
  };
  const [region] = await db.execute<{ id: string }>(sql`select md5('bench region') as id`).then((r) => r.rows);
  const general = await timed(() =>
    buildRows(db, 'general', { ...conditions, gridId: region?.id ?? null }, noProgress),
  );
  const mall = await timed(() => buildRows(db, 'shoppingMall', { ...conditions, ruleId }, noProgress));

  console.log(`\nMonthly billing reports, ${startDay} – ${endDay}, from the rollups:`);
  console.log(
    `  general report, ${METERS.toLocaleString('en-US')} meters: ${general.rows} rows in ${general.seconds.toFixed(2)} s`,
  );
  console.log(
    `  shopping-mall report, main + ${MAX_RULE_METERS} tenants: ${mall.rows} rows in ${mall.seconds.toFixed(2)} s`,
  );
  const [read] = await db
    .execute<{ n: number }>(
      sql`select count(*)::int as n from rollup_meter_day where day between ${startDay} and ${endDay}`,
    )
    .then((r) => r.rows);
  console.log(`  (${read?.n.toLocaleString('en-US')} meter-days read)`);
  console.log(
    `\nTarget: ${METERS.toLocaleString('en-US')} meters in ≤ ${TARGET_S} s: ${general.seconds.toFixed(2)} s, ` +
      `${(TARGET_S / general.seconds).toFixed(1)} × under the target: ${general.seconds <= TARGET_S ? 'met' : 'missed'}`,
  );
  if (general.rows !== METERS) {
    console.log(`the general report holds ${general.rows} rows, not ${METERS}`);
    process.exitCode = 1;
  }
} finally {
  await database.close();
}
await cleanup();
