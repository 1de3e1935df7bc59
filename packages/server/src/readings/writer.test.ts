import { OBIS } from '@meterdesk/contracts';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readingDaily, readingProfile, rollupPending } from '../db/schema';
import { createTestApp, type TestApp } from '../test/harness';
import { dailyRows, profileRows } from './rows';
import { ReadingWriter } from './writer';

const METER = 'a'.repeat(32);

describe('reading writer', () => {
  let t: TestApp;
  let writer: ReadingWriter;
  beforeAll(async () => {
    t = await createTestApp();
    writer = new ReadingWriter(t.database);
  });
  afterAll(() => t.close());

  it('stores a re-delivered batch once, and places old rows in a partition it makes', async () => {
    const rows = profileRows(METER, [
      { ts: '2018-06-30T23:45:00.000Z', values: { [OBIS.activeImport]: 1000, [OBIS.activePower]: 400 } },
      { ts: '2018-07-01T00:00:00.000Z', values: { [OBIS.activeImport]: 1100, [OBIS.activePower]: 400 } },
    ]);
    expect(await writer.write({ profile: rows })).toBe(2);
    expect(await writer.write({ profile: rows })).toBe(0);
    const [stored] = await t.db.select({ n: count() }).from(readingProfile);
    expect(stored?.n).toBe(2);
  });

  it('stores only the new rows of a batch that meets rows stored already, and marks only their days for the rollups', async () => {
    const meter = 'b'.repeat(32);
    const day = (ts: string, activeImport: number) => ({ ts, values: { [OBIS.activeImport]: activeImport } });
    expect(await writer.write({ profile: profileRows(meter, [day('2026-11-02T00:15:00.000Z', 1)]) })).toBe(1);
    await t.db.delete(rollupPending);
    const overlapping = profileRows(meter, [
      day('2026-11-03T00:15:00.000Z', 3),
      day('2026-11-02T00:15:00.000Z', 9),
      day('2026-11-02T00:30:00.000Z', 2),
    ]);
    expect(await writer.write({ profile: overlapping })).toBe(2);
    const stored = await t.db
      .select({ ts: readingProfile.ts, activeImport: readingProfile.activeImport })
      .from(readingProfile)
      .where(eq(readingProfile.meterId, meter))
      .orderBy(readingProfile.ts);
    expect(stored.map((r) => [r.ts.toISOString(), r.activeImport])).toEqual([
      ['2026-11-02T00:15:00.000Z', 1],
      ['2026-11-02T00:30:00.000Z', 2],
      ['2026-11-03T00:15:00.000Z', 3],
    ]);
    const marked = await t.db.select({ day: rollupPending.day }).from(rollupPending).orderBy(rollupPending.day);
    expect(marked.map((m) => m.day)).toEqual(['2026-11-02', '2026-11-03']);
    await t.db.delete(rollupPending);
    expect(await writer.write({ profile: overlapping })).toBe(0);
    expect(await t.db.select().from(rollupPending)).toEqual([]);
  });

  it('files a daily frozen row under the day its midnight closes', async () => {
    const rows = dailyRows(METER, [
      { ts: '2026-11-02T00:00:00.000Z', values: { [OBIS.activeImport]: 5, [OBIS.maxDemand]: 900 } },
    ]);
    expect(rows[0]).toMatchObject({ day: '2026-11-01', activeImport: 5, maxDemand: 900, activeExport: null });
    expect(await writer.write({ daily: rows })).toBe(1);
    const [stored] = await t.db.select().from(readingDaily);
    expect(stored).toMatchObject({ meterId: METER, day: '2026-11-01', activeImport: 5 });
  });
});
