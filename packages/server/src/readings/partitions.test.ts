import { readFileSync } from 'node:fs';
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

  it('moves the rows of the unpartitioned meter-day rollup into month partitions (migration 0022)', async () => {
    const db = t.database.db;
    // The table as migration 0021 left it: the same columns, unpartitioned, with rows of two months.
    await db.execute(sql`create table rollup_meter_day_before (like rollup_meter_day including defaults)`);
    await db.execute(sql`drop table rollup_meter_day`);
    await db.execute(sql`alter table rollup_meter_day_before rename to rollup_meter_day`);
    await db.execute(
      sql`alter table rollup_meter_day add constraint rollup_meter_day_meter_id_day_pk primary key (meter_id, day)`,
    );
    await db.execute(sql`create index rollup_meter_day_grid_idx on rollup_meter_day (grid_id, day)`);
    await db.execute(sql`insert into rollup_meter_day (meter_id, day, grid_id, intervals, consumption) values
      ('m1', '2026-09-30', 'g1', 96, 1200), ('m1', '2026-10-01', 'g1', 95, null), ('m2', '2026-10-31', 'g2', 3, 7)`);

    const migration = readFileSync(
      new URL('../db/migrations/0022_rollup_meter_day_partitioned.sql', import.meta.url),
      'utf8',
    );
    await db.transaction(async (tx) => {
      for (const statement of migration.split('--> statement-breakpoint')) await tx.execute(sql.raw(statement));
    });

    expect(await partitionsOf('rollup_meter_day')).toEqual(['rollup_meter_day_p202609', 'rollup_meter_day_p202610']);
    expect(
      await rowsOf(
        db,
        sql`select meter_id, day::text as day, grid_id, intervals, consumption::int as consumption,
          tableoid::regclass::text as partition from rollup_meter_day order by meter_id, day`,
      ),
    ).toEqual([
      {
        meter_id: 'm1',
        day: '2026-09-30',
        grid_id: 'g1',
        intervals: 96,
        consumption: 1200,
        partition: 'rollup_meter_day_p202609',
      },
      {
        meter_id: 'm1',
        day: '2026-10-01',
        grid_id: 'g1',
        intervals: 95,
        consumption: null,
        partition: 'rollup_meter_day_p202610',
      },
      {
        meter_id: 'm2',
        day: '2026-10-31',
        grid_id: 'g2',
        intervals: 3,
        consumption: 7,
        partition: 'rollup_meter_day_p202610',
      },
    ]);
    await expect(
      db.execute(sql`insert into rollup_meter_day (meter_id, day, grid_id) values ('m1', '2026-10-01', 'g1')`),
    ).rejects.toThrow();
    expect(await rowsOf(db, sql`select to_regclass('rollup_meter_day_unpartitioned') as left_over`)).toEqual([
      { left_over: null },
    ]);
  });
});
