import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridScope, type Scope } from '../rbac/scope';
import { consumerAt, dcuAt, gridNode } from '../test/archive-fixtures';
import { createTestApp, type TestApp } from '../test/harness';
import { uniqueName } from '../test/unique';
import { type ArchiveFacet, archiveCounts, compactArchiveCounts } from './archive-counts';
import { newId } from './ids';
import { rowsOf } from './rows';
import { meter } from './schema';

const ALL: Scope = { all: true, orgId: null, gridIds: [] };
const FACETS: ArchiveFacet[] = ['meter', 'virtualMeter', 'dcu', 'consumerType'];

/** The archive's counts (migration 0026's triggers) follow every way rows are written. */
describe('archive counts', () => {
  let t: TestApp;
  let area: string;
  let other: string;
  const counted = async (scope: Scope) => {
    const counts = await archiveCounts(t.db, (grid) => gridScope(scope, grid), FACETS);
    return Object.fromEntries(
      [...counts].flatMap(([facet, values]) =>
        [...values].filter(([, n]) => n !== 0).map(([value, n]) => [`${facet}:${value}`, n]),
      ),
    );
  };
  const scopeOf = (gridId: string): Scope => ({ all: false, orgId: null, gridIds: [gridId] });

  beforeAll(async () => {
    t = await createTestApp();
    area = await gridNode(t);
    other = await gridNode(t);
  });
  afterAll(() => t.close());

  it('counts bulk inserts (COPY on PostgreSQL), updates, moves and deletes at once, per grid node', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => ({
      id: newId(),
      devAddr: uniqueName('CNT'),
      gridId: i < 20 ? area : other,
      status: i % 3,
      virtual: i === 0,
    }));
    expect(await t.database.bulkInsert(meter, rows)).toBe(30);
    await dcuAt(t, area);
    await consumerAt(t, area);
    expect(await counted(scopeOf(area))).toEqual({
      'meter:0': 6,
      'virtualMeter:0': 1,
      'meter:1': 7,
      'meter:2': 6,
      'dcu:': 1,
      'consumerType:residential': 1,
    });

    // One statement changing many rows; a row edited without a counted field changes no count.
    await t.db.update(meter).set({ status: 4 }).where(sql`${meter.gridId} = ${area} and ${meter.status} = 2`);
    await t.db.update(meter).set({ remark: 'seen' }).where(eq(meter.gridId, area));
    await t.db.update(meter).set({ gridId: other }).where(eq(meter.id, rows[1]!.id));
    await t.db.update(meter).set({ virtual: false }).where(eq(meter.id, rows[0]!.id));
    await t.db.delete(meter).where(eq(meter.id, rows[2]!.id));
    expect(await counted(scopeOf(area))).toEqual({
      'meter:0': 7,
      'meter:1': 6,
      'meter:4': 5,
      'dcu:': 1,
      'consumerType:residential': 1,
    });
    expect(await counted(scopeOf(other))).toEqual({ 'meter:0': 3, 'meter:1': 4, 'meter:2': 4 });

    // Adding the appended rows up leaves one row per key and every figure as it was.
    const before = await counted(ALL);
    expect(await compactArchiveCounts(t.db)).toBeGreaterThan(0);
    expect(await counted(ALL)).toEqual(before);
    const spread = await rowsOf<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from (select 1 from archive_count group by grid_id, facet, value having count(*) > 1) s`,
    );
    expect(spread[0]?.n).toBe(0);
    expect(await compactArchiveCounts(t.db)).toBe(0);
  });

  it('forgets the counts of a table emptied by truncate', async () => {
    await t.db.execute(sql`truncate meter cascade`);
    expect(await counted(scopeOf(area))).toEqual({ 'dcu:': 1, 'consumerType:residential': 1 });
  });
});
