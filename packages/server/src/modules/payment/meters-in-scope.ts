import { RESULT } from '@meterdesk/contracts';
import { and, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { meter } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { gridScope, type Scope } from '../../rbac/scope';

/**
 * The meters of `refs` the caller reaches, read in one query, with whether each is virtual. The first
 * one outside the caller's grid scope (or unknown) is refused naming its field, as one that does not
 * exist (400 `meterNotFound`).
 */
export async function metersInScope(
  tx: Executor,
  scope: Scope,
  refs: readonly { id: string; field: string }[],
): Promise<Map<string, { virtual: boolean }>> {
  const ids = [...new Set(refs.map((r) => r.id))];
  const found = ids.length
    ? await tx
        .select({ id: meter.id, virtual: meter.virtual })
        .from(meter)
        .where(and(inArray(meter.id, ids), gridScope(scope, meter.gridId)))
    : [];
  const reached = new Map(found.map((m) => [m.id, { virtual: m.virtual }]));
  const outside = refs.find((r) => !reached.has(r.id));
  if (outside) throw fieldError(RESULT.badRequest, outside.field, 'meterNotFound');
  return reached;
}
