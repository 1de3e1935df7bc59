import { and, eq } from 'drizzle-orm';
import type { Executor } from './driver';
import { plan } from './schema';

/**
 * The plan (one-shot or collection task) its creator already made for this request id: a create sent
 * again after a lost answer answers that plan instead of making a second. Nothing without a request id.
 */
export async function planOfRequest(db: Executor, createdBy: string, reqId: string) {
  if (!reqId) return undefined;
  const [known] = await db
    .select()
    .from(plan)
    .where(and(eq(plan.createdBy, createdBy), eq(plan.reqId, reqId)));
  return known;
}
