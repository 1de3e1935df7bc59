import { type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from './driver';
import { rowsOf } from './rows';
import { archiveCount } from './schema';

/**
 * The facets archive_count keeps, each the field its value names (migration 0026's triggers write
 * them): real and virtual meters by status, consumers by type, payment mode and whether special,
 * modules by device type and working mode, DCUs (one value, '').
 */
export const ARCHIVE_FACETS = [
  'meter',
  'virtualMeter',
  'consumerType',
  'consumerPayment',
  'consumerSpecial',
  'moduleType',
  'moduleMode',
  'dcu',
] as const;
export type ArchiveFacet = (typeof ARCHIVE_FACETS)[number];

/** Counts by facet and value: `counts.get('meter')?.get('2')`. */
export type ArchiveCounts = ReadonlyMap<ArchiveFacet, ReadonlyMap<string, number>>;

/**
 * The records of `facets` placed in the caller's grid scope, counted: the sum of the scope's nodes'
 * rows (a few per node and facet), never a count of the archive itself. `inScope` limits a grid node
 * column to the caller's nodes (rbac's `gridScope`), or answers undefined for every node.
 */
export async function archiveCounts(
  db: Executor,
  inScope: (gridColumn: AnyPgColumn) => SQL | undefined,
  facets: readonly ArchiveFacet[],
): Promise<ArchiveCounts> {
  const rows = await rowsOf<{ facet: ArchiveFacet; value: string; n: number }>(
    db,
    sql`select facet, value, sum(n)::int as n from ${archiveCount}
      where facet in (${sql.join(
        facets.map((f) => sql`${f}`),
        sql`, `,
      )}) and ${inScope(archiveCount.gridId) ?? sql`true`}
      group by facet, value`,
  );
  const counts = new Map<ArchiveFacet, Map<string, number>>(facets.map((f) => [f, new Map()]));
  for (const row of rows) counts.get(row.facet)?.set(row.value, Number(row.n));
  return counts;
}

/** The sum of a facet's counts, of the values `only` names when given. */
export function totalOf(counts: ArchiveCounts, facet: ArchiveFacet, only?: readonly string[]): number {
  let total = 0;
  for (const [value, n] of counts.get(facet) ?? []) if (!only || only.includes(value)) total += n;
  return total;
}

/**
 * Adds up each key's appended rows into one (dropping those that came to 0), so a figure reads a row
 * per node, facet and value. Rows a transaction appends meanwhile are simply left for the next time.
 */
export async function compactArchiveCounts(db: Executor): Promise<number> {
  const merged = await rowsOf<{ n: number }>(
    db,
    sql`with spread as (select grid_id, facet, value from archive_count group by 1, 2, 3 having count(*) > 1),
      gone as (delete from archive_count c using spread s
        where c.grid_id = s.grid_id and c.facet = s.facet and c.value = s.value returning c.*),
      kept as (insert into archive_count (grid_id, facet, value, n)
        select grid_id, facet, value, sum(n) from gone group by 1, 2, 3 having sum(n) <> 0 returning 1)
      select count(*)::int as n from gone`,
  );
  return Number(merged[0]?.n ?? 0);
}
