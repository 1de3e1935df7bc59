import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/rows';
import { readingDaily, readingProfile } from '../db/schema';
import { createTestApp, type TestApp } from '../test/harness';
import { ensurePartitions, ensurePartitionsAround, PARTITIONED, partitionName, partitionStarts } from './partitions';

describe('readings partitions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const partitionsOf = (table: string) =>
    rowsOf<{ name: string }>(
      t.database.db,
      sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
          join pg_class p on p.oid = i.inhparent where p.relname = ${table} order by 1`,
    ).then((rows) => rows.map((r) => r.name));

  it('names a partition after the range it holds and covers a range month by month', () => {
    const from = new Date('2026-11-20T10:00:00Z');
    expect(
      partitionStarts('reading_profile', from, new Date('2027-01-01T00:00:00Z')).map((d) =>
        partitionName('reading_profile', d),
      ),
    ).toEqual(['reading_profile_p202611', 'reading_profile_p202612', 'reading_profile_p202701']);
    expect(
      partitionStarts('reading_monthly', from, new Date('2027-03-01T00:00:00Z')).map((d) =>
        partitionName('reading_monthly', d),
      ),
    ).toEqual(['reading_monthly_p2026', 'reading_monthly_p2027']);
  });

  it('has the months around now ready when the app starts, and makes a missing one once', async () => {
    const now = new Date();
    const current = partitionName('reading_profile', new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)));
    expect(await partitionsOf('reading_profile')).toContain(current);
    expect(await ensurePartitionsAround(t.database.db, now)).toBe(0);

    const old = new Date('2019-03-15T00:00:00Z');
    await expect(
      t.database.db.insert(readingProfile).values({ meterId: 'm'.repeat(32), ts: old, activeImport: 1 }),
    ).rejects.toThrow();
    expect(await ensurePartitions(t.database.db, old, old)).toBe(Object.keys(PARTITIONED).length);
    await t.database.db.insert(readingProfile).values({ meterId: 'm'.repeat(32), ts: old, activeImport: 1 });
    await t.database.db.insert(readingDaily).values({ meterId: 'm'.repeat(32), day: '2019-03-14', activeImport: 1 });
    expect(await partitionsOf('reading_profile')).toContain('reading_profile_p201903');
    expect(await ensurePartitions(t.database.db, old, old)).toBe(0);
  });
});
