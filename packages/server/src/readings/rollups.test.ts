import { readFileSync } from 'node:fs';
import { OBIS } from '@meterdesk/contracts';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/rows';
import { meter, meterLastRead, rollupDcuDay, rollupGridDay, rollupMeterDay, rollupPending } from '../db/schema';
import { dcuAt, gridNode, meterAt } from '../test/archive-fixtures';
import { createTestApp, type TestApp } from '../test/harness';
import { runJob } from '../test/jobs';
import { foldPending, READING_ROLLUPS_JOB, rollupDay } from './rollups';
import { dailyRows, meterEventRows, profileRows } from './rows';
import { ReadingWriter } from './writer';

const DAY = '2026-10-14';
const at = (day: string, minutes: number) => new Date(Date.parse(`${day}T00:00:00Z`) + minutes * 60_000).toISOString();
/** A day of 15-minute captures (00:15 … 24:00, each stamped with its interval's end) whose power rises by one watt an interval from `base`. */
const intervals = (day: string, base: number, skip: number[] = []) =>
  Array.from({ length: 96 }, (_, i) => i)
    .filter((i) => !skip.includes(i))
    .map((i) => ({ ts: at(day, (i + 1) * 15), values: { [OBIS.activePower]: base + i } }));
const frozen = (day: string, activeImport: number) => ({
  ts: at(day, 24 * 60),
  values: { [OBIS.activeImport]: activeImport, [OBIS.maxDemand]: 5000 },
});

describe('reading rollups', () => {
  let t: TestApp;
  let writer: ReadingWriter;
  let grid: string;
  let other: string;
  let m1: string;
  let m2: string;
  let dcuA: string;
  let dcuB: string;

  const meterDay = async (meterId: string, day = DAY) => {
    const [row] = await t.db
      .select()
      .from(rollupMeterDay)
      .where(eq(rollupMeterDay.meterId, meterId))
      .then((rows) => rows.filter((r) => r.day === day));
    return row;
  };
  const gridDays = () => t.db.select().from(rollupGridDay).orderBy(asc(rollupGridDay.gridId), asc(rollupGridDay.day));
  const dcuDays = () => t.db.select().from(rollupDcuDay).orderBy(asc(rollupDcuDay.dcuId), asc(rollupDcuDay.day));
  const pending = () => t.db.select().from(rollupPending);

  beforeAll(async () => {
    t = await createTestApp();
    writer = new ReadingWriter(t.database);
    grid = await gridNode(t);
    other = await gridNode(t);
    dcuA = (await dcuAt(t, grid)).id;
    dcuB = (await dcuAt(t, other)).id;
    m1 = (await meterAt(t, grid, undefined, dcuA)).id;
    m2 = (await meterAt(t, grid, undefined, dcuA)).id;
    // Installed: meters a report expects to read (a meter in the warehouse counts apart, below).
    await t.db
      .update(meter)
      .set({ status: 1 })
      .where(inArray(meter.id, [m1, m2]));
  });
  afterAll(() => t.close());

  it('marks the days a write stores rows for, and folds them into meter and grid rows', async () => {
    await writer.write({
      profile: [...profileRows(m1, intervals(DAY, 1000)), ...profileRows(m2, intervals(DAY, 200, [0, 1, 2]))],
      daily: [
        ...dailyRows(m1, [frozen('2026-10-13', 50_000), frozen(DAY, 62_500)]),
        ...dailyRows(m2, [frozen(DAY, 7_000)]),
      ],
      meterEvents: meterEventRows(m1, [
        { code: 1, level: 'severe', time: at(DAY, 100) },
        { code: 2, level: 'regular', time: at(DAY, 105) },
        { code: 2, level: 'regular', time: at(DAY, 700) },
      ]),
    });
    // Each daily row changes its own day and the next one's consumption.
    expect((await pending()).map((p) => `${p.meterId === m1 ? 'm1' : 'm2'} ${p.day}`).sort()).toEqual([
      'm1 2026-10-13',
      'm1 2026-10-14',
      'm1 2026-10-15',
      'm2 2026-10-14',
      'm2 2026-10-15',
    ]);

    expect(await foldPending(t.db)).toBe(5);
    expect(await pending()).toEqual([]);
    expect(await meterDay(m1)).toMatchObject({
      gridId: grid,
      dcuId: dcuA,
      consumption: 12_500,
      intervals: 96,
      demandMin: 1000,
      demandMax: 1095,
      demandAvg: 1048,
      eventsRegular: 2,
      eventsMedium: 0,
      eventsSevere: 1,
    });
    // m2 has no frozen value the day before: its consumption is unknown, not its register.
    expect(await meterDay(m2)).toMatchObject({ consumption: null, intervals: 93, demandMin: 203, demandMax: 295 });
    expect(await meterDay(m1, '2026-10-15')).toMatchObject({ consumption: null, intervals: 0, demandMax: null });
    expect((await gridDays()).find((g) => g.day === DAY)).toMatchObject({
      gridId: grid,
      meters: 2,
      consumption: 12_500,
      metersWithConsumption: 1,
      intervals: 189,
      metersComplete: 1,
      demandMax: 1095,
      eventsRegular: 2,
      eventsSevere: 1,
    });
    expect((await dcuDays()).map((d) => [d.dcuId, d.day, d.meters, d.intervals, d.metersComplete])).toEqual([
      [dcuA, '2026-10-13', 1, 0, 0],
      [dcuA, DAY, 2, 189, 1],
      [dcuA, '2026-10-15', 2, 0, 0],
    ]);
  });

  it('changes nothing when the same rows are written again, and folding a key twice gives the same rows', async () => {
    const before = { m1: await meterDay(m1), grids: await gridDays() };
    expect(
      await writer.write({
        profile: profileRows(m1, intervals(DAY, 1000)),
        daily: dailyRows(m1, [frozen(DAY, 62_500)]),
      }),
    ).toBe(0);
    expect(await pending()).toEqual([]);
    expect(await foldPending(t.db)).toBe(0);
    expect(await meterDay(m1)).toEqual(before.m1);

    await t.db.insert(rollupPending).values({ meterId: m1, day: DAY });
    expect(await foldPending(t.db)).toBe(1);
    await t.db.insert(rollupPending).values({ meterId: m1, day: DAY });
    expect(await foldPending(t.db)).toBe(1);
    const strip = <T extends { updatedAt: Date }>(row: T | undefined) => row && { ...row, updatedAt: null };
    expect(strip(await meterDay(m1))).toEqual(strip(before.m1));
    expect((await gridDays()).map(strip)).toEqual(before.grids.map(strip));
  });

  it("updates a day when a late interval or the day before's frozen value arrives", async () => {
    await writer.write({ profile: profileRows(m2, intervals(DAY, 200).slice(0, 3)) });
    await writer.write({ daily: dailyRows(m2, [frozen('2026-10-13', 6_400)]) });
    // (m2, the 13th) and (m2, the 14th), which both writes marked.
    expect(await foldPending(t.db)).toBe(2);
    expect(await meterDay(m2)).toMatchObject({ intervals: 96, demandMin: 200, consumption: 600 });
    expect((await gridDays()).find((g) => g.day === DAY)).toMatchObject({
      consumption: 13_100,
      metersWithConsumption: 2,
      intervals: 192,
      metersComplete: 2,
    });
    expect((await dcuDays()).find((d) => d.day === DAY)).toMatchObject({
      meters: 2,
      intervals: 192,
      metersComplete: 2,
    });
  });

  it("keeps a meter's days in month partitions, making the month a frozen value's next day opens", async () => {
    const exists = async (relation: string) =>
      (await rowsOf<{ found: boolean }>(t.db, sql`select to_regclass(${relation}) is not null as found`))[0]?.found;
    expect(await exists('rollup_meter_day_p201904')).toBe(false);
    await writer.write({ daily: dailyRows(m1, [frozen('2019-03-31', 1_000)]) });
    expect(await foldPending(t.db)).toBe(2);
    const stored = await rowsOf<{ day: string; partition: string }>(
      t.db,
      sql`select day::text as day, tableoid::regclass::text as partition from rollup_meter_day
        where meter_id = ${m1} and day < '2020-01-01' order by day`,
    );
    expect(stored).toEqual([
      { day: '2019-03-31', partition: 'rollup_meter_day_p201903' },
      { day: '2019-04-01', partition: 'rollup_meter_day_p201904' },
    ]);
  });

  it("moves a meter's day to its new grid node when it is recomputed, and a day rolls up from raw rows at once", async () => {
    await t.db.update(meter).set({ gridId: other, dcuId: dcuB }).where(eq(meter.id, m2));
    await t.db.insert(rollupPending).values({ meterId: m2, day: DAY });
    await foldPending(t.db);
    const day = (await gridDays()).filter((g) => g.day === DAY);
    expect(day.map((g) => [g.gridId, g.meters, g.consumption])).toEqual(
      [
        [grid, 1, 12_500],
        [other, 1, 600],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const byDcu = async () =>
      (await dcuDays()).filter((d) => d.day === DAY).map((d) => [d.dcuId, d.meters, d.intervals, d.metersComplete]);
    const moved = [
      [dcuA, 1, 96, 1],
      [dcuB, 1, 96, 1],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(await byDcu()).toEqual(moved);

    await t.db.delete(rollupMeterDay);
    await t.db.delete(rollupGridDay);
    await t.db.delete(rollupDcuDay);
    expect(await rollupDay(t.db, DAY)).toBe(2);
    expect(await meterDay(m1)).toMatchObject({ consumption: 12_500, intervals: 96, eventsSevere: 1 });
    expect((await gridDays()).map((g) => [g.gridId, g.day, g.meters])).toEqual(
      [
        [grid, DAY, 1],
        [other, DAY, 1],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(await byDcu()).toEqual(moved);
  });

  it('leaves a direct meter out of the DCU rows, and empties a DCU row whose meters all moved away', async () => {
    await t.db.update(meter).set({ dcuId: null }).where(eq(meter.id, m2));
    await t.db.insert(rollupPending).values({ meterId: m2, day: DAY });
    await foldPending(t.db);
    expect(await meterDay(m2)).toMatchObject({ dcuId: null, intervals: 96 });
    expect((await dcuDays()).filter((d) => d.day === DAY).map((d) => d.dcuId)).toEqual([dcuA]);
  });

  it('gives, by the backfill of migration 0017, the DCU rows and complete meters the fold gives', async () => {
    await t.db.update(meter).set({ dcuId: dcuB }).where(eq(meter.id, m2));
    await t.db.insert(rollupPending).values({ meterId: m2, day: DAY });
    await foldPending(t.db);
    const folded = { meters: await t.db.select().from(rollupMeterDay), grids: await gridDays(), dcus: await dcuDays() };
    expect(folded.dcus.filter((d) => d.day === DAY)).toHaveLength(2);

    await t.db.update(rollupMeterDay).set({ dcuId: null });
    await t.db.update(rollupGridDay).set({ metersComplete: 0 });
    await t.db.delete(rollupDcuDay);
    const migration = readFileSync(new URL('../db/migrations/0017_collection_report.sql', import.meta.url), 'utf8');
    const backfill = migration
      .split('--> statement-breakpoint')
      .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
      .filter((statement) => /^(UPDATE|INSERT)/.test(statement));
    expect(backfill).toHaveLength(3);
    for (const statement of backfill) await t.db.execute(sql.raw(statement));

    const strip = <T extends { updatedAt: Date }>(rows: T[]) => rows.map((row) => ({ ...row, updatedAt: null }));
    const byKey = <T extends { meterId: string; day: string }>(rows: T[]) =>
      [...rows].sort((a, b) => `${a.meterId}${a.day}`.localeCompare(`${b.meterId}${b.day}`));
    expect(strip(byKey(await t.db.select().from(rollupMeterDay)))).toEqual(strip(byKey(folded.meters)));
    expect(strip(await gridDays())).toEqual(strip(folded.grids));
    expect(strip(await dcuDays())).toEqual(strip(folded.dcus));
  });

  it('counts the intervals of a meter a report does not expect (in maintenance) in its own row only, not in its node’s or DCU’s read success', async () => {
    const day = '2026-10-17';
    const area = await gridNode(t);
    const box = (await dcuAt(t, area)).id;
    const installed = (await meterAt(t, area, undefined, box)).id;
    const serviced = (await meterAt(t, area, undefined, box)).id;
    await t.db.update(meter).set({ status: 1 }).where(eq(meter.id, installed));
    await t.db.update(meter).set({ status: 5 }).where(eq(meter.id, serviced));
    await writer.write({
      profile: [...profileRows(installed, intervals(day, 100, [0, 1])), ...profileRows(serviced, intervals(day, 100))],
    });
    await foldPending(t.db);
    expect(await meterDay(serviced, day)).toMatchObject({ intervals: 96, reporting: false });
    expect(await meterDay(installed, day)).toMatchObject({ intervals: 94, reporting: true });
    const [node] = (await gridDays()).filter((g) => g.gridId === area && g.day === day);
    expect(node).toMatchObject({ meters: 2, intervals: 94, metersComplete: 0 });
    const [unit] = (await dcuDays()).filter((d) => d.dcuId === box && d.day === day);
    expect(unit).toMatchObject({ meters: 2, intervals: 94, metersComplete: 0 });
    // The last day read only moves later: an older day folded after it leaves it.
    await writer.write({ profile: profileRows(installed, intervals('2026-10-16', 100).slice(0, 3)) });
    await foldPending(t.db);
    const lastRead = await t.db
      .select()
      .from(meterLastRead)
      .where(inArray(meterLastRead.meterId, [installed, serviced]));
    expect(lastRead.map((r) => r.lastDay)).toEqual([day, day]);
  });

  // An app of its own: its minutely fold would otherwise race the assertions above on what waits.
  it('is folded by the scheduled job of the app', async () => {
    const withJobs = await createTestApp({}, { jobs: true });
    try {
      const area = await gridNode(withJobs);
      const m3 = (await meterAt(withJobs, area)).id;
      await new ReadingWriter(withJobs.database).write({
        profile: profileRows(m3, intervals('2026-10-20', 300).slice(0, 4)),
      });
      await runJob(withJobs, READING_ROLLUPS_JOB);
      const [row] = await withJobs.db.select().from(rollupMeterDay).where(eq(rollupMeterDay.meterId, m3));
      expect(row).toMatchObject({ day: '2026-10-20', gridId: area, intervals: 4, demandMax: 303 });
    } finally {
      await withJobs.close();
    }
  });
});
