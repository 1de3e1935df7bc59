import { readFileSync } from 'node:fs';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/rows';
import { meter, meterEvent, rollupGridEventDay, rollupMeterEventDay, rollupPending } from '../db/schema';
import { dcuAt, gridNode, meterAt } from '../test/archive-fixtures';
import { createTestApp, type TestApp } from '../test/harness';
import { foldPending, rollupDay } from './rollups';
import { meterEventRows } from './rows';
import { ReadingWriter } from './writer';

const DAY = '2026-10-14';
const at = (day: string, minutes: number) => new Date(Date.parse(`${day}T00:00:00Z`) + minutes * 60_000).toISOString();
const powerDown = (minutes: number, day = DAY) => ({ code: 1, level: 'severe' as const, time: at(day, minutes) });
const powerUp = (minutes: number, day = DAY) => ({ code: 2, level: 'regular' as const, time: at(day, minutes) });

describe('event rollups (events per meter and day by code)', () => {
  let t: TestApp;
  let writer: ReadingWriter;
  let grid: string;
  let other: string;
  let dcu: string;
  let m1: string;
  let m2: string;

  const meterRows = (meterId: string) =>
    t.db
      .select()
      .from(rollupMeterEventDay)
      .where(eq(rollupMeterEventDay.meterId, meterId))
      .orderBy(asc(rollupMeterEventDay.day), asc(rollupMeterEventDay.code));
  const gridRows = (gridId: string) =>
    t.db
      .select()
      .from(rollupGridEventDay)
      .where(eq(rollupGridEventDay.gridId, gridId))
      .orderBy(asc(rollupGridEventDay.day), asc(rollupGridEventDay.code));
  const figures = (rows: { day: string; code: number; level: number; events: number; dcuId: string | null }[]) =>
    rows.map((r) => [r.day, r.dcuId, r.code, r.level, r.events]);

  beforeAll(async () => {
    t = await createTestApp();
    writer = new ReadingWriter(t.database);
    grid = await gridNode(t);
    other = await gridNode(t);
    dcu = (await dcuAt(t, grid)).id;
    m1 = (await meterAt(t, grid, undefined, dcu)).id;
    m2 = (await meterAt(t, grid)).id;
  });
  afterAll(() => t.close());

  it('stores an event delivered twice once, and counts it once per meter, day and code', async () => {
    expect(
      await writer.write({
        meterEvents: [
          ...meterEventRows(m1, [powerDown(100), powerUp(130), powerDown(600), powerUp(640)]),
          // The same event twice in one delivery: one row.
          ...meterEventRows(m2, [powerDown(100), powerDown(100)]),
        ],
      }),
    ).toBe(5);
    // Delivered again (a device that lost the acknowledgement), and a day later one more.
    expect(await writer.write({ meterEvents: meterEventRows(m1, [powerDown(100), powerUp(130)]) })).toBe(0);
    expect(await writer.write({ meterEvents: meterEventRows(m1, [powerDown(10, '2026-10-15')]) })).toBe(1);
    const [{ stored }] = (await rowsOf<{ stored: number }>(
      t.db,
      sql`select count(*)::int as stored from meter_event where meter_id in (${m1}, ${m2})`,
    )) as [{ stored: number }];
    expect(stored).toBe(6);

    expect(await foldPending(t.db)).toBe(3);
    const rows = await meterRows(m1);
    expect(figures(rows)).toEqual([
      [DAY, dcu, 1, 2, 2],
      [DAY, dcu, 2, 0, 2],
      ['2026-10-15', dcu, 1, 2, 1],
    ]);
    expect(rows[0]).toMatchObject({
      gridId: grid,
      acknowledged: 0,
      firstTs: new Date(at(DAY, 100)),
      lastTs: new Date(at(DAY, 600)),
    });
    // The node's rows: one per DCU (a direct meter's under none) and code.
    expect(figures(await gridRows(grid))).toEqual([
      [DAY, dcu, 1, 2, 2],
      [DAY, null, 1, 2, 1],
      [DAY, dcu, 2, 0, 2],
      ['2026-10-15', dcu, 1, 2, 1],
    ]);
  });

  it('recomputes a key folded again to the same rows, and moves a meter to its new node and DCU', async () => {
    const before = { meter: await meterRows(m1), grid: await gridRows(grid) };
    await t.db.insert(rollupPending).values({ meterId: m1, day: DAY });
    expect(await foldPending(t.db)).toBe(1);
    const strip = <T extends { updatedAt: Date }>(rows: T[]) => rows.map((r) => ({ ...r, updatedAt: null }));
    expect(strip(await meterRows(m1))).toEqual(strip(before.meter));
    expect(strip(await gridRows(grid))).toEqual(strip(before.grid));

    await t.db.update(meter).set({ gridId: other, dcuId: null }).where(eq(meter.id, m2));
    await t.db.insert(rollupPending).values({ meterId: m2, day: DAY });
    await foldPending(t.db);
    expect(figures(await gridRows(grid))).not.toContainEqual([DAY, null, 1, 2, 1]);
    expect(figures(await gridRows(other))).toEqual([[DAY, null, 1, 2, 1]]);
  });

  it('rolls a whole day up from raw rows at once, as the fold does', async () => {
    const folded = { m1: await meterRows(m1), grid: await gridRows(grid), other: await gridRows(other) };
    await t.db.delete(rollupMeterEventDay).where(eq(rollupMeterEventDay.day, DAY));
    await t.db.delete(rollupGridEventDay).where(eq(rollupGridEventDay.day, DAY));
    await rollupDay(t.db, DAY);
    const strip = <T extends { updatedAt: Date }>(rows: T[]) => rows.map((r) => ({ ...r, updatedAt: null }));
    expect(strip(await meterRows(m1))).toEqual(strip(folded.m1));
    expect(strip(await gridRows(grid))).toEqual(strip(folded.grid));
    expect(strip(await gridRows(other))).toEqual(strip(folded.other));
  });

  it('keeps the rows in month partitions, and a write of an older month makes its partition', async () => {
    await writer.write({ meterEvents: meterEventRows(m1, [powerDown(5, '2019-05-02')]) });
    await foldPending(t.db);
    const stored = await rowsOf<{ partition: string }>(
      t.db,
      sql`select tableoid::regclass::text as partition from rollup_meter_event_day
        where meter_id = ${m1} and day = '2019-05-02'`,
    );
    expect(stored).toEqual([{ partition: 'rollup_meter_event_day_p201905' }]);
  });

  it('gives, by the backfill of migration 0027, the rows the fold gives', async () => {
    await t.db.update(meterEvent).set({ ackAt: new Date(), ackBy: 'x' }).where(eq(meterEvent.meterId, m2));
    await t.db.insert(rollupPending).values({ meterId: m2, day: DAY });
    await foldPending(t.db);
    const folded = {
      meters: await t.db.select().from(rollupMeterEventDay),
      grids: await t.db.select().from(rollupGridEventDay),
    };
    // Events stored before the migration had no acknowledgement.
    await t.db.update(meterEvent).set({ ackAt: null, ackBy: null }).where(eq(meterEvent.meterId, m2));
    await t.db.delete(rollupMeterEventDay);
    await t.db.delete(rollupGridEventDay);
    const migration = readFileSync(new URL('../db/migrations/0027_meter_event_rollups.sql', import.meta.url), 'utf8');
    const backfill = migration
      .split('--> statement-breakpoint')
      .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
      .filter((statement) => /^INSERT/.test(statement));
    expect(backfill).toHaveLength(2);
    for (const statement of backfill) await t.db.execute(sql.raw(statement));

    const key = (r: { meterId?: string; gridId: string; day: string; code: number; dcuId: string | null }) =>
      `${r.meterId ?? ''} ${r.gridId} ${r.day} ${r.dcuId} ${r.code}`;
    const strip = <T extends { updatedAt: Date; acknowledged: number }>(rows: T[]) =>
      rows.map((r) => ({ ...r, updatedAt: null, acknowledged: 0 })).sort((a, b) => key(a).localeCompare(key(b)));
    expect(strip(await t.db.select().from(rollupMeterEventDay))).toEqual(strip(folded.meters));
    expect(strip(await t.db.select().from(rollupGridEventDay))).toEqual(strip(folded.grids));
    expect(folded.grids.find((g) => g.gridId === other)).toMatchObject({ events: 1, acknowledged: 1 });
  });
});
