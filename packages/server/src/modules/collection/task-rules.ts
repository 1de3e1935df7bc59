import {
  COLLECTION_PROFILE_OBIS,
  MIN_TASK_PERIOD_MINUTES,
  type PlanCrontabSchema,
  periodMinutes,
  RESULT,
  repairSpanMinutes,
} from '@meterdesk/contracts';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Executor } from '../../db/driver';
import { obisItem, powerGrid } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { gridScope, type Scope } from '../../rbac/scope';

export type Crontab = z.output<typeof PlanCrontabSchema>;

/**
 * Spec §3/§4: every collection item is the cgName of an OBIS item flagged read periodically, and one
 * of the profiles a run reads (COLLECTION_PROFILE_OBIS: a register would be accepted and never read);
 * the first that is not is refused naming its place (`orders.2.cgcode`, `items.2`).
 */
export async function checkCollectItems(
  db: Executor,
  items: readonly string[],
  field: string,
  suffix = '',
): Promise<void> {
  const wanted = [...new Set(items.map((i) => i.toLowerCase()))];
  const rows = wanted.length
    ? await db
        .select({ cg: sql<string>`lower(${obisItem.cgName})`, obis: obisItem.obis })
        .from(obisItem)
        .where(and(inArray(sql`lower(${obisItem.cgName})`, wanted), eq(obisItem.readPeriodically, true)))
    : [];
  const known = new Map(rows.map((r) => [r.cg, r.obis]));
  for (const [i, item] of items.entries()) {
    const obis = known.get(item.toLowerCase());
    if (obis === undefined) throw fieldError(RESULT.badRequest, `${field}.${i}${suffix}`, 'collectItemUnknown');
    if (!COLLECTION_PROFILE_OBIS.includes(obis))
      throw fieldError(RESULT.badRequest, `${field}.${i}${suffix}`, 'collectItemNotProfile');
  }
}

/** Grid nodes a filter names exist and lie within the caller's scope (`gridNotFound` otherwise). */
export async function checkGridIds(
  db: Executor,
  scope: Scope,
  ids: readonly string[] | undefined,
  field: string,
): Promise<void> {
  if (!ids?.length) return;
  const rows = await db
    .select({ id: powerGrid.id })
    .from(powerGrid)
    .where(and(inArray(powerGrid.id, [...ids]), gridScope(scope, powerGrid.id)));
  if (rows.length !== new Set(ids).size) throw fieldError(RESULT.badRequest, field, 'gridNotFound');
}

/**
 * Spec §5 schedule rules. A task runs `count` times every `freq` `unit` from `starttime`; one run
 * (count 1) needs no frequency. `changedStart` says whether the start time is new (always on
 * creation): only then must it lie ahead, since a task that has run keeps its first start.
 */
export function checkSchedule(crontab: Crontab, opts: { now: Date; changedStart: boolean; executed: number }): void {
  if (opts.changedStart && crontab.starttime * 1000 <= opts.now.getTime())
    throw fieldError(RESULT.badRequest, 'crontab.starttime', 'startTimeNotFuture');
  const recurring = crontab.count > 1 || crontab.freq > 0;
  if (recurring && periodMinutes(crontab) < MIN_TASK_PERIOD_MINUTES)
    throw fieldError(RESULT.badRequest, 'crontab.freq', 'taskFrequencyTooShort');
  if (crontab.repairConf && recurring && repairSpanMinutes(crontab.repairConf) > periodMinutes(crontab))
    throw fieldError(RESULT.badRequest, 'crontab.repairConf', 'repairSpanTooLong');
  if (crontab.count < opts.executed) throw fieldError(RESULT.badRequest, 'crontab.count', 'expectedBelowExecuted');
}
