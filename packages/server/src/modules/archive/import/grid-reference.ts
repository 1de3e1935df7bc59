import { and, inArray, or, sql } from 'drizzle-orm';
import { powerGrid } from '../../../db/schema';
import { gridScope } from '../../../rbac/scope';
import type { ReferenceColumn, Resolved } from './record-import';

const CHUNK = 1000;

/**
 * Grid nodes by the text of a cell, within the caller's grid scope: a node's code (unique in the
 * archive) or its name (unique only among siblings). A text that names more than one node — two
 * feeders called "F1" under different substations, or one node's code and another's name — is
 * refused as ambiguous, so the user gives the code instead.
 */
export const resolveGrids: ReferenceColumn['resolve'] = async (db, values, scope) => {
  const wanted = [...new Set(values.filter((v) => v !== '').map((v) => v.trim().toLowerCase()))];
  const candidates = new Map<string, Set<string>>();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const chunk = wanted.slice(i, i + CHUNK);
    const asked = new Set(chunk);
    const rows = await db
      .select({
        id: powerGrid.id,
        code: sql<string>`lower(${powerGrid.gridCode})`,
        name: sql<string>`lower(${powerGrid.gridName})`,
      })
      .from(powerGrid)
      .where(
        and(
          or(inArray(sql`lower(${powerGrid.gridCode})`, chunk), inArray(sql`lower(${powerGrid.gridName})`, chunk)),
          gridScope(scope, powerGrid.id),
        ),
      );
    for (const row of rows) {
      for (const text of new Set([row.code, row.name])) {
        if (!asked.has(text)) continue;
        const ids = candidates.get(text) ?? new Set<string>();
        ids.add(row.id);
        candidates.set(text, ids);
      }
    }
  }
  const resolved: Resolved = new Map();
  for (const [text, ids] of candidates) {
    resolved.set(text, ids.size === 1 ? [...ids][0]! : { refused: 'importGridAmbiguous' });
  }
  return resolved;
};

/** The `gridName` column of an archive import: the grid node the record is placed in. */
export const gridColumn = (label: string): ReferenceColumn => ({
  key: 'gridName',
  label,
  required: true,
  by: 'crud.importBy.nameOrCode',
  example: 'TA-01',
  field: 'gridId',
  resolve: resolveGrids,
  notFound: 'gridNotFound',
});
