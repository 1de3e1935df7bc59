import { RESULT_CODES } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/driver';
import { deviceCommand, plan } from '../../db/schema';
import type { CommandRow, HeadEnd } from '../../headend/head-end';
import { defineJob } from '../../jobs/job-system';
import { untilDone } from '../../jobs/wait-for-wake';
import { PLAN_RUN_JOB, type PlanService } from './plan.service';

/**
 * Follows a plan's commands and tells the user who started it about each change on
 * `progress/{jobId}` (`PlanProgress`: the records that changed since the last message). The head-end
 * sends and finishes the commands whether or not this runs; after a restart the run resumes and its
 * first message carries every result so far.
 */
export const planRunJob = (db: Db, headEnd: HeadEnd, plans: PlanService) =>
  defineJob<{ planId: string }>({
    name: PLAN_RUN_JOB,
    concurrency: 8,
    retryLimit: 3,
    retryDelaySeconds: 2,
    expireInSeconds: 4 * 3600,
    handler: ({ planId }, context) => {
      const seen = new Map<string, string>();
      return untilDone(
        context.signal,
        (wake) =>
          headEnd.onDone((row) => {
            if (row.planId === planId) wake();
          }),
        async () => {
          const rows = await db.select().from(deviceCommand).where(eq(deviceCommand.planId, planId));
          const changed = rows.filter((row) => seen.get(row.id) !== signature(row));
          const done = rows.filter((row) => row.state === 'done').length;
          if (changed.length || seen.size === 0)
            await context.progress({ done, total: rows.length, planid: planId, results: await plans.records(changed) });
          for (const row of changed) seen.set(row.id, signature(row));
          const [current] = await db.select({ status: plan.planStatus }).from(plan).where(eq(plan.id, planId));
          return !current || current.status === 'deleted' || done === rows.length ? { done: summary(rows) } : 'wait';
        },
      );
    },
  });

const signature = (row: CommandRow) => `${row.state}:${row.attempt}:${row.resultCode ?? ''}`;

function summary(rows: readonly CommandRow[]) {
  const byCode: Record<string, number> = {};
  for (const row of rows) if (row.resultCode) byCode[row.resultCode] = (byCode[row.resultCode] ?? 0) + 1;
  return { total: rows.length, success: byCode[RESULT_CODES.success] ?? 0, byCode };
}
