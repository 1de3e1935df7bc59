import { inArray, or, sql } from 'drizzle-orm';
import { tariff } from '../../../db/schema';
import type { ReferenceColumn, Resolved } from './record-import';

const CHUNK = 1000;

/**
 * Tariffs by the text of a cell: a tariff's name or its id, in any case. Tariffs are shared by every
 * user, so no scope applies; a name never equals another tariff's id (ids are 32 hex characters).
 */
export const resolveTariffs: ReferenceColumn['resolve'] = async (db, values) => {
  const wanted = [...new Set(values.filter((v) => v.trim() !== '').map((v) => v.trim().toLowerCase()))];
  const found: Resolved = new Map();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const chunk = wanted.slice(i, i + CHUNK);
    const rows = await db
      .select({ id: tariff.id, name: sql<string>`lower(${tariff.tariffName})` })
      .from(tariff)
      .where(or(inArray(sql`lower(${tariff.tariffName})`, chunk), inArray(tariff.id, chunk)));
    for (const row of rows) {
      found.set(row.name, row.id);
      found.set(row.id, row.id);
    }
  }
  return found;
};
