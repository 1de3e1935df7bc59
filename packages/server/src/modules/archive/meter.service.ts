import {
  METER_STATUS_TRANSITIONS,
  type MeterMaintain,
  type MeterStatus,
  type MeterStatusChange,
  RESULT,
  type ValidationIssue,
} from '@meterdesk/contracts';
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { anyRow, iso } from '../../db/rows';
import { meter, meterStatusHistory } from '../../db/schema';
import { ApiError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { translator } from '../../i18n/labels';
import { gridScope, resolveScope, type Scope } from '../../rbac/scope';

/** 400 naming both statuses, in English for API clients; `data.from`/`data.to` let the web say it in its language. */
function transitionRefused(from: MeterStatus, to: MeterStatus): ApiError {
  const t = translator(1);
  const issue: ValidationIssue = {
    field: 'toStatus',
    key: 'statusTransitionRefused',
    message: `A meter cannot go from ${t(`meter.statuses.${from}`)} to ${t(`meter.statuses.${to}`)}`,
  };
  return new ApiError(RESULT.badRequest, 'statusTransitionRefused', { issues: [issue], from, to });
}

/** What the meter page does beyond the archive kit: its life cycle and its history. */
export class MeterService {
  constructor(private readonly db: Db) {}

  private inScope(scope: Scope, id: string) {
    return and(eq(meter.id, id), gridScope(scope, meter.gridId));
  }

  /** Moves the meter to `toStatus` if its life cycle allows it, and keeps the change in one transaction. */
  async maintain({ id, toStatus, reason }: MeterMaintain, session: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const scope = await resolveScope(tx, session.userId);
      const [row] = await tx.select({ status: meter.status }).from(meter).where(this.inScope(scope, id)).for('update');
      if (!row) throw notFound();
      const from = row.status as MeterStatus;
      if (!METER_STATUS_TRANSITIONS[from].includes(toStatus)) throw transitionRefused(from, toStatus);
      await tx.update(meter).set({ status: toStatus, updateTime: new Date() }).where(eq(meter.id, id));
      await tx
        .insert(meterStatusHistory)
        .values({ id: newId(), meterId: id, fromStatus: from, toStatus, reason, username: session.username });
    });
  }

  /** The meter's status changes, newest first; 404 when the meter lies outside the caller's scope. */
  async history(id: string, session: SessionContext): Promise<MeterStatusChange[]> {
    const scope = await resolveScope(this.db, session.userId);
    if (!(await anyRow(this.db, meter, this.inScope(scope, id)))) throw notFound();
    const rows = await this.db
      .select()
      .from(meterStatusHistory)
      .where(eq(meterStatusHistory.meterId, id))
      .orderBy(desc(meterStatusHistory.time), desc(meterStatusHistory.id));
    return rows.map((r) => ({
      id: r.id,
      fromStatus: r.fromStatus as MeterStatus,
      toStatus: r.toStatus as MeterStatus,
      reason: r.reason,
      username: r.username,
      time: iso(r.time),
    }));
  }
}
