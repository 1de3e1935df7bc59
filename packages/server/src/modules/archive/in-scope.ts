import { type MessageKey, RESULT } from '@meterdesk/contracts';
import { and, eq } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/driver';
import { anyRow } from '../../db/rows';
import { powerGrid } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { gridScope, type Scope } from '../../rbac/scope';

/** A table an archive record points at: its id and the grid column its data scope goes by. */
export interface ScopedTable {
  table: PgTable;
  id: AnyPgColumn;
  grid: AnyPgColumn;
}

export const GRID: ScopedTable = { table: powerGrid, id: powerGrid.id, grid: powerGrid.id };

/**
 * A reference the caller may make: `id` names a record of `target` within their grid scope. One
 * outside the scope is refused exactly like one that does not exist (400 naming the field).
 */
export async function requireInScope(
  tx: Executor,
  scope: Scope,
  target: ScopedTable,
  id: string,
  field: string,
  key: MessageKey,
): Promise<void> {
  if (!(await anyRow(tx, target.table, and(eq(target.id, id), gridScope(scope, target.grid))))) {
    throw fieldError(RESULT.badRequest, field, key);
  }
}
