import { type MessageKey, RESULT } from '@meterdesk/contracts';
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/driver';
import { anyRow } from '../../db/rows';
import { powerGrid } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { gridScope, type Scope } from '../../rbac/scope';

/** A column that points at the deleted table, and what the user reads while a row still does. */
export interface Reference {
  column: AnyPgColumn;
  key: MessageKey;
  /** Only the referencing rows this condition selects count (e.g. child grid nodes). */
  where?: SQL;
}

/** The first reference still holding each of `ids`, in the order given. */
export async function inUseBy(tx: Executor, ids: string[], references: Reference[]): Promise<Map<string, MessageKey>> {
  const blocked = new Map<string, MessageKey>();
  if (ids.length === 0) return blocked;
  for (const { column, key, where } of references) {
    const open = ids.filter((id) => !blocked.has(id));
    if (open.length === 0) break;
    const rows = await tx
      .selectDistinct({ id: column })
      .from(column.table)
      .where(and(inArray(column, open), where));
    for (const { id } of rows) if (id !== null) blocked.set(String(id), key);
  }
  return blocked;
}

/** Refuses a grid node that does not exist or lies outside the caller's scope, naming `field`. */
export async function assertGridInScope(tx: Executor, scope: Scope, gridId: string, field = 'gridId'): Promise<void> {
  if (!(await anyRow(tx, powerGrid, and(eq(powerGrid.id, gridId), gridScope(scope, powerGrid.id)))))
    throw fieldError(RESULT.badRequest, field, 'gridNotFound');
}
