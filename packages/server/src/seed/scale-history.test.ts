import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/rows';
import { writeRunKpi } from '../modules/collection/run-kpi';
import { foldOnlinePending } from '../readings/online-rollups';
import { rollupDay } from '../readings/rollups';
import { FRESH_START } from '../test/constants';
import { createTestApp, type TestApp } from '../test/harness';
import { seedScaleArchive } from './scale-archive';

const DAY_MS = 86_400_000;
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

describe('scale seed history (npm run seed -- --days)', FRESH_START, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** The run's meters, grid nodes and DCUs, as conditions on a column. */
  const ofRun = (run: string) => {
    const nodes = sql`(with recursive s(id) as (select id from power_grid where grid_code = ${run}
      union all select g.id from power_grid g join s on g.parent_id = s.id) select id from s)`;
    return {
      meters: (column: SQL) => sql`${column} in (select id from meter where grid_id in ${nodes})`,
      nodes: (column: SQL) => sql`${column} in ${nodes}`,
      dcus: (column: SQL) => sql`${column} in (select id from dcu where grid_id in ${nodes})`,
    };
  };

  const rows = (query: SQL) => rowsOf<Record<string, unknown>>(t.db, query);
  /** A table's rows as JSON without the time each was computed. */
  const stored = (table: string, where: SQL, order: string) =>
    rows(
      sql`select to_jsonb(r) - 'updated_at' as row from ${sql.raw(table)} r where ${where} order by ${sql.raw(order)}`,
    );

  /** Every rollup row of the run's meters, nodes and DCUs, without the time each was computed. */
  const rollups = async (run: string) => {
    const of = ofRun(run);
    return {
      meterDays: await rows(sql`select meter_id, day::text, grid_id, dcu_id, consumption, intervals, reporting,
          demand_min, demand_max, demand_avg, events_regular, events_medium, events_severe
        from rollup_meter_day where ${of.meters(sql`meter_id`)} order by meter_id, day`),
      gridDays: await rows(sql`select grid_id, day::text, meters, consumption, meters_with_consumption, intervals,
          meters_complete, demand_max, events_regular, events_medium, events_severe
        from rollup_grid_day where ${of.nodes(sql`grid_id`)} order by grid_id, day`),
      dcuDays: await rows(sql`select dcu_id, day::text, meters, intervals, meters_complete
        from rollup_dcu_day where ${of.dcus(sql`dcu_id`)} order by dcu_id, day`),
      lastRead: await rows(sql`select meter_id, last_day::text from meter_last_read
        where ${of.meters(sql`meter_id`)} order by meter_id`),
      meterEventDays: await stored('rollup_meter_event_day', of.meters(sql`meter_id`), 'meter_id, day, code'),
      gridEventDays: await stored('rollup_grid_event_day', of.nodes(sql`grid_id`), 'grid_id, dcu_id, day, code'),
      meterMonths: await stored('rollup_meter_month', of.meters(sql`meter_id`), 'meter_id, month'),
      gridMonths: await stored('rollup_grid_month', of.nodes(sql`grid_id`), 'grid_id, month'),
    };
  };

  /** The online-time rollups of the run's devices, nodes and DCUs. */
  const onlineRollups = async (run: string) => {
    const of = ofRun(run);
    const devices = sql`(${of.meters(sql`device_id`)} or ${of.dcus(sql`device_id`)})`;
    return {
      devices: await stored('rollup_online_day', devices, 'device_id, day'),
      nodes: await stored('rollup_online_grid_day', of.nodes(sql`grid_id`), 'grid_id, day, device_kind'),
      dcus: await stored('rollup_online_dcu_day', of.dcus(sql`dcu_id`), 'dcu_id, day'),
    };
  };

  /** The run's task's KPI rows (what task analysis reads), per DCU and code, per code and per DCU, in one order. */
  const runKpis = async (run: string) => {
    const ofTask = sql`join collection_run r on r.id = k.run_id join plan p on p.id = r.plan_id
      where p.plan_name = ${`Scale daily collection ${run}`}`;
    return {
      byDcu: await rowsOf<Record<string, unknown>>(
        t.db,
        sql`select k.run_id, k.grid_id, k.dcu_no, k.code, k.devices, k.expected, k.received, k.first_received, k.failed
          from collection_run_kpi k ${ofTask} order by 1, 2, 3, 4`,
      ),
      byCode: await rowsOf<Record<string, unknown>>(
        t.db,
        sql`select k.run_id, k.code, k.devices, k.expected, k.received, k.first_received, k.failed
          from collection_run_code_kpi k ${ofTask} order by 1, 2`,
      ),
      perDcu: await rowsOf<Record<string, unknown>>(
        t.db,
        sql`select k.run_id, k.dcu_no, k.devices, k.expected, k.received, k.first_received, k.failed
          from collection_run_dcu_kpi k ${ofTask} order by 1, 2`,
      ),
    };
  };

  it('writes the rollups and run KPIs the fold and the runs make of its raw rows, when every raw row is written', async () => {
    const days = 35;
    const { run } = await seedScaleArchive(t.database, {
      meters: 90,
      metersPerArea: 30,
      history: { days, profileDays: days + 1, profileEvery: 0 },
    });
    const seeded = await rollups(run);
    const of = ofRun(run);
    const [counts] = await rowsOf<Record<string, number>>(
      t.db,
      sql`select (select count(*)::int from reading_daily where ${of.meters(sql`meter_id`)}) as daily,
        (select count(*)::int from reading_monthly where ${of.meters(sql`meter_id`)}) as monthly,
        (select count(*)::int from meter_event where ${of.meters(sql`meter_id`)} and code in (1, 2)) as power,
        (select count(*)::int from dcu_event where ${of.dcus(sql`dcu_id`)}) as dcu_events,
        (select count(*)::int from link_change where ${of.meters(sql`device_id`)}) as links,
        (select count(*)::int from device_power where ${of.meters(sql`device_id`)}) as supplies,
        (select count(distinct meter_id)::int from meter_event where ${of.meters(sql`meter_id`)} and code in (1, 2))
          as powered,
        (select count(*)::int from collection_run_kpi k join collection_run r on r.id = k.run_id
          join plan p on p.id = r.plan_id where p.plan_name = ${`Scale daily collection ${run}`}) as kpis`,
    );
    // A month's history holds each kind of row the fold is compared on below.
    for (const kind of ['daily', 'monthly', 'power', 'links', 'kpis']) expect(counts?.[kind], kind).toBeGreaterThan(0);
    // Each meter with power events has its supply, as the readings writer keeps it.
    expect(counts?.supplies).toBe(counts?.powered);
    expect(seeded.meterDays.length).toBeGreaterThan(80 * days);
    expect(seeded.gridDays.length).toBe(3 * (days + 1));
    // Two months at least: a month with its billing freeze and the month it bills.
    for (const kind of ['meterEventDays', 'gridEventDays', 'meterMonths', 'gridMonths'] as const)
      expect(seeded[kind].length, kind).toBeGreaterThan(0);
    expect(seeded.gridMonths.length).toBeGreaterThanOrEqual(2 * 3);

    for (const [table, where] of [
      ['rollup_meter_day', of.meters(sql`meter_id`)],
      ['rollup_grid_day', of.nodes(sql`grid_id`)],
      ['rollup_dcu_day', of.dcus(sql`dcu_id`)],
      ['rollup_meter_event_day', of.meters(sql`meter_id`)],
      ['rollup_grid_event_day', of.nodes(sql`grid_id`)],
      ['rollup_meter_month', of.meters(sql`meter_id`)],
      ['rollup_grid_month', of.nodes(sql`grid_id`)],
    ] as const)
      await t.db.execute(sql`delete from ${sql.raw(table)} where ${where}`);
    // A meter's last-read row lives as long as the meter: the fold only moves its day.
    await t.db.execute(sql`update meter_last_read set last_day = null where ${of.meters(sql`meter_id`)}`);
    const today = Math.floor(Date.now() / DAY_MS);
    for (let day = today - days; day <= today; day++) await rollupDay(t.db, isoDay(day));
    expect(await rollups(run)).toEqual(seeded);

    // Each meter's latest clock check, as the readings writer keeps it.
    const latestClock = (table: string) =>
      rows(sql`select meter_id, checked_at, deviation_seconds from ${sql.raw(table)} c
        where ${of.meters(sql`meter_id`)} order by meter_id`);
    expect(
      await latestClock(
        `(select distinct on (meter_id) meter_id, ts as checked_at, deviation_seconds from clock_check order by meter_id, ts desc)`,
      ),
    ).toEqual(await latestClock('meter_clock'));

    // The devices' online time: what the fold makes of every device's link changes from the first day on.
    const online = await onlineRollups(run);
    expect(online.devices).toHaveLength(93 * (days + 1));
    expect(online.nodes.length).toBe(3 * 2 * (days + 1));
    // Every device of the archive has its rows of those days: the fill has nothing left to write.
    const filled = await rows(sql`select day::text from rollup_online_filled
      where day between ${isoDay(today - days)} and ${isoDay(today)} order by day`);
    expect(filled).toHaveLength(days + 1);
    const devices = sql`select device_id from device_online where ${of.nodes(sql`grid_id`)}`;
    await t.db.execute(sql`delete from rollup_online_day where device_id in (${devices})`);
    await t.db.execute(sql`delete from rollup_online_grid_day where ${of.nodes(sql`grid_id`)}`);
    await t.db.execute(sql`delete from rollup_online_dcu_day where ${of.dcus(sql`dcu_id`)}`);
    await t.db.execute(
      sql`insert into rollup_online_pending (device_id, day) select device_id, ${isoDay(today - days)}::date from (${devices}) d`,
    );
    await foldOnlinePending(t.db);
    expect(await onlineRollups(run)).toEqual(online);

    // The task's runs: what a finished run's chain writes of its device rows.
    const kpis = await runKpis(run);
    expect(kpis.byDcu.length).toBeGreaterThan(days);
    expect(kpis.byCode.length).toBeGreaterThanOrEqual(days);
    expect(kpis.perDcu.length).toBeGreaterThan(days);
    const runs = await rowsOf<{ id: string }>(
      t.db,
      sql`select r.id from collection_run r join plan p on p.id = r.plan_id where p.plan_name = ${`Scale daily collection ${run}`}`,
    );
    expect(runs).toHaveLength(days);
    for (const r of runs) await t.db.transaction((tx) => writeRunKpi(tx, r.id));
    expect(await runKpis(run)).toEqual(kpis);
  });

  it('writes the load profile of every meter on the last days only, and of a sample before', async () => {
    const days = 6;
    const { run } = await seedScaleArchive(t.database, {
      meters: 40,
      metersPerArea: 40,
      history: { days, profileDays: 2, profileEvery: 10 },
    });
    const of = ofRun(run);
    const yesterday = isoDay(Math.floor(Date.now() / DAY_MS) - 1);
    const [profile] = await rowsOf<{ recent: number; older: number; rolled: number }>(
      t.db,
      sql`select
        (select count(distinct meter_id)::int from reading_profile where ${of.meters(sql`meter_id`)}
          and ts > ${yesterday}::date) as recent,
        (select count(distinct meter_id)::int from reading_profile where ${of.meters(sql`meter_id`)}
          and ts <= ${yesterday}::date) as older,
        (select count(distinct meter_id)::int from rollup_meter_day where ${of.meters(sql`meter_id`)}
          and day < ${yesterday}::date and intervals > 0) as rolled`,
    );
    // Every meter that reports has yesterday's and today's rows; before that only every 10th meter.
    expect(profile?.older).toBeLessThanOrEqual(4);
    expect(profile?.older).toBeGreaterThan(0);
    expect(profile?.recent).toBeGreaterThan(30);
    expect(profile?.rolled).toBeGreaterThan(30);
  });
});
