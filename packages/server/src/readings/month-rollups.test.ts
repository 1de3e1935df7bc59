import { readFileSync } from 'node:fs';
import { OBIS } from '@meterdesk/contracts';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meter, rollupGridDay, rollupGridMonth, rollupMeterDay, rollupMeterMonth } from '../db/schema';
import { gridNode, meterAt } from '../test/archive-fixtures';
import { createTestApp, type TestApp } from '../test/harness';
import { foldPending, rollupDay, rollupMonths } from './rollups';
import { dailyRows, monthlyRows, profileRows } from './rows';
import { ReadingWriter } from './writer';

const at = (day: string, minutes = 0) => new Date(Date.parse(`${day}T00:00:00Z`) + minutes * 60_000).toISOString();
const frozen = (day: string, activeImport: number) => ({
  ts: at(day, 24 * 60),
  values: { [OBIS.activeImport]: activeImport },
});
/** The billing freeze of `month` (its first day), captured at the midnight that ends it. */
const billing = (month: string, activeImport: number, t1: number) => {
  const next = new Date(`${month}T00:00:00Z`);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return {
    ts: next.toISOString(),
    values: { [OBIS.activeImport]: activeImport, '1-0:1.8.1.255': t1, [OBIS.maxDemand]: 4000 },
  };
};

// Months well in the past and within the default retention: September and October 2026's boundary.
const SEP = '2026-09-01';
const OCT = '2026-10-01';

describe('month rollups', () => {
  let t: TestApp;
  let writer: ReadingWriter;
  let grid: string;
  let other: string;
  let a: string;
  let b: string;

  const months = () =>
    t.db.select().from(rollupMeterMonth).orderBy(asc(rollupMeterMonth.meterId), asc(rollupMeterMonth.month));
  const gridMonths = () =>
    t.db.select().from(rollupGridMonth).orderBy(asc(rollupGridMonth.gridId), asc(rollupGridMonth.month));
  const monthOf = async (meterId: string, month: string) =>
    (await months()).find((r) => r.meterId === meterId && r.month === month);
  const strip = <T extends { updatedAt: Date }>(rows: T[]) => rows.map(({ updatedAt: _, ...row }) => row);

  beforeAll(async () => {
    t = await createTestApp();
    writer = new ReadingWriter(t.database);
    grid = await gridNode(t);
    other = await gridNode(t);
    a = (await meterAt(t, grid)).id;
    b = (await meterAt(t, grid)).id;
    await t.db.update(meter).set({ status: 2 }).where(eq(meter.id, a));
    await writer.write({
      daily: [
        // a: Sept 30th 2 kWh; Oct 1st 1 kWh (across the boundary), 2nd 2.5 kWh, 3rd missing, 5th 0.5 kWh.
        ...dailyRows(a, [
          frozen('2026-09-29', 1000),
          frozen('2026-09-30', 3000),
          frozen('2026-10-01', 4000),
          frozen('2026-10-02', 6500),
          frozen('2026-10-04', 9000),
          frozen('2026-10-05', 9500),
        ]),
        ...dailyRows(b, [frozen('2026-10-01', 100), frozen('2026-10-02', 1100)]),
      ],
      // a's freezes of August and September; b's of September only.
      monthly: [
        ...monthlyRows(a, [billing('2026-08-01', 10_000, 6000), billing(SEP, 13_000, 7500)]),
        ...monthlyRows(b, [billing(SEP, 5000, 2000)]),
      ],
      profile: profileRows(a, [{ ts: at('2026-10-02', 15), values: { [OBIS.activePower]: 1500 } }]),
    });
    await foldPending(t.db);
  });
  afterAll(() => t.close());

  it("sums a meter's known days into its month, the day after a month's last counting in the next, with its billing freeze", async () => {
    expect(await monthOf(a, SEP)).toMatchObject({
      gridId: grid,
      consumption: 2000,
      daysKnown: 1,
      frozen: true,
      energy: 3000,
      energyT1: 1500,
      maxDemand: 4000,
    });
    // October: the 1st's consumption is the 1st's freeze less September 30th's; the 4th is unknown while the 3rd is missing.
    expect(await monthOf(a, OCT)).toMatchObject({
      consumption: 4000,
      daysKnown: 3,
      intervals: 1,
      demandMax: 1500,
      frozen: false,
      energy: null,
    });
    // b's September is frozen without an August freeze: no energy to bill.
    expect(await monthOf(b, SEP)).toMatchObject({ frozen: true, energy: null, consumption: null, daysKnown: 0 });
    expect((await gridMonths()).map((g) => [g.gridId, g.month, g.meters, g.consumption, g.frozen, g.energy])).toEqual([
      [grid, '2026-08-01', 1, 0, 1, null],
      [grid, SEP, 2, 2000, 2, 3000],
      [grid, OCT, 2, 5000, 0, null],
    ]);
  });

  it('updates a month when a missing day arrives late', async () => {
    await writer.write({ daily: dailyRows(a, [frozen('2026-10-03', 7000)]) });
    await foldPending(t.db);
    // The 3rd (0.5 kWh) and the 4th (2 kWh) are known now.
    expect(await monthOf(a, OCT)).toMatchObject({ consumption: 6500, daysKnown: 5 });
    expect((await gridMonths()).find((g) => g.month === OCT)).toMatchObject({ consumption: 7500 });
  });

  it('moves a month to the grid node its meter moved to when it is recomputed, emptying the old one', async () => {
    await t.db.update(meter).set({ gridId: other }).where(eq(meter.id, b));
    await t.db.execute(
      sql`insert into rollup_pending (meter_id, day) values (${b}, '2026-10-02') on conflict do nothing`,
    );
    await foldPending(t.db);
    const october = (await gridMonths()).filter((g) => g.month === OCT).map((g) => [g.gridId, g.meters]);
    expect(october).toEqual(
      [
        [grid, 1],
        [other, 1],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
    await t.db.update(meter).set({ gridId: grid }).where(eq(meter.id, b));
    await t.db.execute(
      sql`insert into rollup_pending (meter_id, day) values (${b}, '2026-10-02') on conflict do nothing`,
    );
    await foldPending(t.db);
  });

  it('gives the same month rows from whole months (a bulk load, a day rolled up at once) and from the migration', async () => {
    const folded = { meters: await months(), grids: await gridMonths() };

    await t.db.delete(rollupMeterMonth);
    await t.db.delete(rollupGridMonth);
    await t.db.transaction((tx) => rollupMonths(tx, ['2026-08-01', SEP, OCT]));
    expect(strip(await months())).toEqual(strip(folded.meters));
    expect(strip(await gridMonths())).toEqual(strip(folded.grids));

    await t.db.delete(rollupMeterMonth);
    await t.db.delete(rollupGridMonth);
    await rollupDay(t.db, '2026-10-01');
    // The first of October recomputes October and September, whose freeze it captures.
    expect(strip(await months()).map((r) => [r.meterId, r.month])).toEqual(
      strip(folded.meters)
        .filter((r) => r.month !== '2026-08-01')
        .map((r) => [r.meterId, r.month]),
    );

    await t.db.delete(rollupMeterMonth);
    await t.db.delete(rollupGridMonth);
    await t.db.update(rollupGridDay).set({ metersRead: 0 });
    const migration = readFileSync(new URL('../db/migrations/0030_rollup_months.sql', import.meta.url), 'utf8');
    const backfill = migration
      .split('--> statement-breakpoint')
      .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
      .filter((statement) => /^(UPDATE|INSERT)/.test(statement));
    expect(backfill).toHaveLength(3);
    for (const statement of backfill) await t.db.execute(sql.raw(statement));
    expect(strip(await months())).toEqual(strip(folded.meters));
    expect(strip(await gridMonths())).toEqual(strip(folded.grids));
    // a (activated) read an interval on October 2nd; b (in the warehouse) is not a meter a report expects.
    const day = await t.db.select().from(rollupGridDay).where(eq(rollupGridDay.day, '2026-10-02'));
    expect(day.map((g) => g.metersRead)).toEqual([1]);
    expect((await t.db.select().from(rollupMeterDay)).length).toBeGreaterThan(0);
  });
});
