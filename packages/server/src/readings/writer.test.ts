import { OBIS } from '@meterdesk/contracts';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readingDaily, readingProfile } from '../db/schema';
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
