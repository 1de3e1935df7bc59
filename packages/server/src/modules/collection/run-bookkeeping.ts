import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/driver';
import { collectionRun, collectionRunDevice, plan } from '../../db/schema';
import { captureTimes, MAX_PROFILE_SPAN_MS, type Period, type RunItem } from './run-items';
import { writeRunKpi } from './run-kpi';
import { storedCounts } from './stored-readings';

export type RunRow = typeof collectionRun.$inferSelect;

export interface RunProgress {
  runId: string;
  done: number;
  total: number;
  expected: number;
  received: number;
  [detail: string]: unknown;
}

/** Devices expanded, readings stored and counted per statement. */
export const DEVICES_PER_STATEMENT = 500;

/** A run's devices asked for a read whose answer is not counted yet. */
export const unanswered = (runId: string) =>
  and(
    eq(collectionRunDevice.runId, runId),
    eq(collectionRunDevice.requested, true),
    isNull(collectionRunDevice.resultCode),
  );

/**
 * A run's counts: what each of its meters has received (from the store, so a value the device pushed
 * counts too), its progress, and its close with its totals, its occurrence's KPI rows and its task's state.
 */
export class RunBookkeeping {
  constructor(
    private readonly db: Db,
    /** Asks for the rollups to fold what a finished run stored (readings/rollups.ts foldSoon). */
    private readonly foldSoon: () => void,
  ) {}

  /** Each meter's received count per item from the store, so a value the device pushed counts too. */
  async recount(run: RunRow, meterIds: string[], codes: Map<string, string> = new Map()): Promise<void> {
    const items = run.items as RunItem[];
    const period = readPeriod(run, items);
    const perItem = new Map<string, Map<string, number>>();
    for (const item of items) {
      if (item.kind === 'events') continue;
      const expected = captureTimes(item.kind, period);
      perItem.set(
        item.cgcode,
        expected.length ? await storedCounts(this.db, item.kind, meterIds, expected) : new Map(),
      );
    }
    const rows = meterIds.map((meterId) => {
      const counted = items.map((item) => ({
        cgcode: item.cgcode,
        expected: item.kind === 'events' ? 0 : captureTimes(item.kind, period).length,
        received: perItem.get(item.cgcode)?.get(meterId) ?? 0,
      }));
      return {
        meter_id: meterId,
        received: counted.reduce((sum, c) => sum + c.received, 0),
        items: counted,
        code: codes.get(meterId) ?? null,
      };
    });
    await this.db.execute(sql`
      update ${collectionRunDevice} d
      set received = v.received, items = v.items, result_code = coalesce(v.code, d.result_code)
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(meter_id text, received int, items jsonb, code text)
      where d.run_id = ${run.id} and d.meter_id = v.meter_id`);
  }

  /** How far a run is: its devices answered of those asked, and the readings received. */
  async progress(run: RunRow): Promise<RunProgress> {
    const [counts] = await this.db
      .select({
        total: sql<number>`count(*) filter (where ${collectionRunDevice.requested})::int`,
        done: sql<number>`count(*) filter (where ${collectionRunDevice.requested} and ${collectionRunDevice.resultCode} is not null)::int`,
        received: sql<number>`coalesce(sum(${collectionRunDevice.received}), 0)::int`,
      })
      .from(collectionRunDevice)
      .where(eq(collectionRunDevice.runId, run.id));
    return {
      runId: run.id,
      done: counts?.done ?? 0,
      total: counts?.total ?? 0,
      expected: run.expected,
      received: counts?.received ?? 0,
    };
  }

  /** Counts every device again (readings pushed meanwhile count), closes the run and settles its task's state. */
  async finish(run: RunRow): Promise<RunRow> {
    for (let offset = 0; ; offset += DEVICES_PER_STATEMENT) {
      const page = await this.db
        .select({ meterId: collectionRunDevice.meterId })
        .from(collectionRunDevice)
        .where(eq(collectionRunDevice.runId, run.id))
        .orderBy(collectionRunDevice.meterId)
        .limit(DEVICES_PER_STATEMENT)
        .offset(offset);
      if (!page.length) break;
      await this.recount(
        run,
        page.map((p) => p.meterId),
      );
    }
    const codes = await this.db
      .select({ code: collectionRunDevice.resultCode, n: sql<number>`count(*)::int` })
      .from(collectionRunDevice)
      .where(and(eq(collectionRunDevice.runId, run.id), eq(collectionRunDevice.requested, true)))
      .groupBy(collectionRunDevice.resultCode);
    const [totals] = await this.db
      .select({ received: sql<number>`coalesce(sum(${collectionRunDevice.received}), 0)::int` })
      .from(collectionRunDevice)
      .where(eq(collectionRunDevice.runId, run.id));
    const [finished] = await this.db
      .update(collectionRun)
      .set({
        status: 'finished',
        finishedAt: sql`now()`,
        received: totals?.received ?? 0,
        byCode: Object.fromEntries(codes.map((c) => [c.code ?? '', Number(c.n)])),
      })
      .where(and(eq(collectionRun.id, run.id), eq(collectionRun.status, 'running')))
      .returning();
    // A task's occurrence: what task analysis reads of it, now with this run's reads.
    if (finished && run.planId) await this.db.transaction((tx) => writeRunKpi(tx, run.parentRunId ?? run.id));
    if (finished) this.foldSoon();
    if (run.planId)
      await this.db.execute(sql`
        update ${plan} set plan_status = case
            when ${plan.nextRunAt} is null and ${plan.executedCount} >= coalesce((${plan.crontab} ->> 'count')::int, 0)
            then 'finished' else 'waiting' end,
          update_time = now()
        where ${plan.id} = ${run.planId} and ${plan.planStatus} = 'executing'
          and not exists (select 1 from ${collectionRun} r where r.plan_id = ${run.planId} and r.status = 'running')`);
    return finished ?? run;
  }
}

/** The period a run reads, intervals limited to the last 31 days of it (what one read may ask). */
export function readPeriod(run: RunRow, items: RunItem[]): Period {
  const to = run.periodTo;
  const span = to.getTime() - run.periodFrom.getTime();
  if (items.some((i) => i.kind === 'profile') && span > MAX_PROFILE_SPAN_MS)
    return { from: new Date(to.getTime() - MAX_PROFILE_SPAN_MS), to };
  return { from: run.periodFrom, to };
}

export function expectedCount(items: RunItem[], period: Period): number {
  return items.reduce((sum, item) => sum + (item.kind === 'events' ? 0 : captureTimes(item.kind, period).length), 0);
}
