import {
  type Page,
  type PlanStatus,
  RESULT,
  RESULT_CODES,
  TARIFF_PUSH_CMD,
  type TariffEvent,
  type TariffPush,
  type TariffPushCreate,
  type TariffPushCreated,
} from '@meterdesk/contracts';
import { and, desc, eq, exists, inArray, ne, type SQL, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../../db/driver';
import { newId } from '../../db/ids';
import { planOfRequest } from '../../db/plan-request';
import { countAll, iso, qualified } from '../../db/rows';
import { deviceCommand, meter, meterTariff, poc, tariff, tariffEvent, tariffPush } from '../../db/schema';
import { ApiError, fieldError, notFound } from '../../errors/api-error';
import { tariffCommand } from '../../headend/commands';
import type { CommandRow } from '../../headend/head-end';
import type { SessionContext } from '../../http/operation';
import { gridScope, type Scope, scopeOf } from '../../rbac/scope';
import type { PlanRow, PlanService } from './plan.service';

const SYNCHRONIZED = 1;
/** Spec's default priority of an operator's plan; a push is one. */
const PUSH_PRIORITY = 5;
const PUSH_CONCURRENCY = 4;

type PushRow = typeof tariffPush.$inferSelect;
type EventRow = typeof tariffEvent.$inferSelect;

/** What one send of a push carries: a new push, or a re-send of one to some of its meters. */
interface Send {
  push: Pick<PushRow, 'id' | 'tariffId' | 'tariffName' | 'revision' | 'calendar' | 'activationTime'>;
  /** The push is stored with this send (its first). */
  first: boolean;
  devList: string[];
  timeout?: number | undefined;
  reqId: string;
}

const failed = and(eq(tariffEvent.state, 'done'), ne(tariffEvent.resultCode, RESULT_CODES.success));

/**
 * Tariff configuration: a tariff's calendar written to meters (`/tariffitem/createtariffplan`) as a
 * one-shot plan of the plan service (the same checks, ledger, throttling and progress as an operation),
 * with the push and each meter's row (`tariff_event`) stored in the plan's transaction. Each answer
 * closes its meter's row; a meter that took the tariff records it (`meter_tariff`) and its POC, when
 * the POC's tariff is that tariff at that revision, becomes synchronized. A re-send goes to failed
 * meters only and updates their rows.
 */
export class TariffPushService {
  constructor(
    private readonly db: Db,
    private readonly plans: PlanService,
  ) {}

  async create(body: TariffPushCreate, session: SessionContext): Promise<TariffPushCreated> {
    const known = await planOfRequest(this.db, session.username, body.reqId);
    if (known) return this.createdOf(known);
    const [found] = await this.db.select().from(tariff).where(eq(tariff.id, body.tariffId));
    if (!found) throw fieldError(RESULT.badRequest, 'tariffId', 'tariffNotFound');
    const activationTime = new Date(body.activationTime);
    if (activationTime.getTime() <= Date.now())
      throw fieldError(RESULT.badRequest, 'activationTime', 'activationTimeNotFuture');
    return this.send(
      {
        push: {
          id: newId(),
          tariffId: found.id,
          tariffName: found.tariffName,
          revision: found.revision,
          calendar: found.calendar,
          activationTime,
        },
        first: true,
        devList: body.devList,
        timeout: body.timeout,
        reqId: body.reqId,
      },
      session,
    );
  }

  /**
   * The push again to its failed meters (or those of `ids` that failed), with the same calendar and
   * activation time: a time passed by then makes the meters activate it at once.
   */
  async restart(body: { pushId: string; ids?: string[] | undefined }, session: SessionContext) {
    const scope = await scopeOf(this.db, session);
    const push = await this.pushInScope(body.pushId, scope);
    await this.reconcile(push.id);
    const rows = await this.db
      .select({ devAddr: meter.devAddr })
      .from(tariffEvent)
      .innerJoin(meter, eq(meter.id, tariffEvent.meterId))
      .where(
        and(
          eq(tariffEvent.pushId, push.id),
          failed,
          body.ids ? inArray(tariffEvent.id, body.ids) : undefined,
          gridScope(scope, meter.gridId),
        ),
      )
      .orderBy(meter.devAddr);
    if (!rows.length) throw new ApiError(RESULT.badRequest, 'nothingToRetry');
    return this.send({ push, first: false, devList: rows.map((r) => r.devAddr), reqId: '' }, session);
  }

  private async send(s: Send, session: SessionContext): Promise<TariffPushCreated> {
    const { push } = s;
    const { row } = await this.plans.launch(
      {
        planName: `Tariff push: ${push.tariffName}`.slice(0, 100),
        planTempName: '',
        pushType: 2,
        pri: PUSH_PRIORITY,
        timeout: s.timeout,
        devs: { itemType: 0, devList: s.devList },
        eventCode: '',
        reqId: s.reqId,
        concurrent: PUSH_CONCURRENCY,
        target: 'meter',
        order: {
          cgcode: '',
          cmd: TARIFF_PUSH_CMD,
          params: { pushId: push.id, tariffId: push.tariffId, activationTime: push.activationTime.toISOString() },
          isCyclePlan: false,
        },
        operation: TARIFF_PUSH_CMD,
        command: async () => tariffCommand(push.tariffName, push.calendar, push.activationTime),
        withCommands: (tx, planId, commands) => this.record(tx, s, planId, commands, session),
      },
      session,
    );
    return { pushId: push.id, planid: row.id, planStatus: row.planStatus as PlanStatus, jobId: row.jobId };
  }

  /** The push (on its first send) and each meter's row, pointing at this send's command. */
  private async record(tx: Tx, s: Send, planId: string, commands: readonly CommandRow[], session: SessionContext) {
    if (s.first)
      await tx.insert(tariffPush).values({
        ...s.push,
        createdBy: session.username,
      });
    for (const c of commands) {
      if (!c.meterId) continue;
      await tx
        .insert(tariffEvent)
        .values({
          id: newId(),
          pushId: s.push.id,
          meterId: c.meterId,
          devAddr: c.deviceKey,
          planId,
          commandId: c.id,
        })
        .onConflictDoUpdate({
          target: [tariffEvent.pushId, tariffEvent.meterId],
          set: {
            devAddr: c.deviceKey,
            planId,
            commandId: c.id,
            attempts: sql`${tariffEvent.attempts} + 1`,
            state: 'waiting',
            resultCode: null,
            sendTime: sql`now()`,
            answerTime: null,
          },
        });
    }
  }

  /** A finished ledger command of a push: its meter's row closes, and a success is taken. */
  async commandDone(row: Pick<CommandRow, 'id' | 'operation'>): Promise<void> {
    if (row.operation !== TARIFF_PUSH_CMD) return;
    await this.db.transaction((tx) => this.close(tx, eq(tariffEvent.commandId, row.id)));
  }

  /**
   * Closes the rows whose command finished while no listener heard it (a restart between the answer
   * and its listener): at start for every push, and before a push is read.
   */
  async reconcile(pushId?: string): Promise<void> {
    await this.db.transaction((tx) =>
      this.close(
        tx,
        and(
          pushId ? eq(tariffEvent.pushId, pushId) : undefined,
          eq(tariffEvent.state, 'waiting'),
          exists(
            tx
              .select({ one: sql`1` })
              .from(deviceCommand)
              .where(
                and(
                  sql`${qualified(deviceCommand.id)} = ${qualified(tariffEvent.commandId)}`,
                  eq(deviceCommand.state, 'done'),
                ),
              ),
          ),
        ),
      ),
    );
  }

  private async close(tx: Executor, which: SQL | undefined): Promise<void> {
    const closed = await tx
      .update(tariffEvent)
      .set({
        state: 'done',
        resultCode: sql`(select ${qualified(deviceCommand.resultCode)} from ${deviceCommand} where ${qualified(deviceCommand.id)} = ${qualified(tariffEvent.commandId)})`,
        answerTime: sql`coalesce((select ${qualified(deviceCommand.answerTime)} from ${deviceCommand} where ${qualified(deviceCommand.id)} = ${qualified(tariffEvent.commandId)}), now())`,
      })
      .where(and(which, eq(tariffEvent.state, 'waiting')))
      .returning();
    for (const event of closed) if (event.resultCode === RESULT_CODES.success) await this.taken(tx, event);
  }

  /** The meter holds the push's calendar: recorded, and its POC of that tariff and revision is synchronized. */
  private async taken(tx: Executor, event: EventRow): Promise<void> {
    const [push] = await tx.select().from(tariffPush).where(eq(tariffPush.id, event.pushId));
    if (!push) return;
    const taken = {
      tariffId: push.tariffId,
      tariffName: push.tariffName,
      revision: push.revision,
      pushId: push.id,
      activationTime: push.activationTime,
      takenTime: event.answerTime ?? new Date(),
    };
    await tx
      .insert(meterTariff)
      .values({ meterId: event.meterId, ...taken })
      .onConflictDoUpdate({ target: meterTariff.meterId, set: taken });
    if (!push.tariffId) return;
    await tx
      .update(poc)
      .set({ syncStatus: SYNCHRONIZED })
      .where(
        and(
          eq(poc.meterId, event.meterId),
          eq(poc.tariffId, push.tariffId),
          exists(
            tx
              .select({ one: sql`1` })
              .from(tariff)
              .where(and(eq(tariff.id, push.tariffId), eq(tariff.revision, push.revision))),
          ),
        ),
      );
  }

  async events(
    q: { pushId: string; failedOnly: boolean; pageSize: number; curPage: number },
    session: SessionContext,
  ): Promise<Page<TariffEvent>> {
    const scope = await scopeOf(this.db, session);
    const push = await this.pushInScope(q.pushId, scope);
    await this.reconcile(push.id);
    const where = and(eq(tariffEvent.pushId, push.id), q.failedOnly ? failed : undefined, this.meterInScope(scope));
    const [rows, [count]] = await Promise.all([
      this.db
        .select()
        .from(tariffEvent)
        .where(where)
        .orderBy(tariffEvent.devAddr)
        .limit(q.pageSize)
        .offset((q.curPage - 1) * q.pageSize),
      this.db.select({ n: countAll() }).from(tariffEvent).where(where),
    ]);
    return {
      list: rows.map((r) => ({
        id: r.id,
        pushId: r.pushId,
        meterId: r.meterId,
        devAddr: r.devAddr,
        state: r.state as TariffEvent['state'],
        resultCode: (r.resultCode as TariffEvent['resultCode']) ?? null,
        attempts: r.attempts,
        planid: r.planId,
        sendTime: iso(r.sendTime),
        answerTime: r.answerTime ? iso(r.answerTime) : null,
      })),
      total: count?.n ?? 0,
      curPage: q.curPage,
      pageSize: q.pageSize,
    };
  }

  async pushes(
    q: { tariffId?: string | undefined; pageSize: number; curPage: number },
    session: SessionContext,
  ): Promise<Page<TariffPush>> {
    const scope = await scopeOf(this.db, session);
    const where = and(q.tariffId ? eq(tariffPush.tariffId, q.tariffId) : undefined, this.reaches(scope));
    const [rows, [count]] = await Promise.all([
      this.db
        .select()
        .from(tariffPush)
        .where(where)
        .orderBy(desc(tariffPush.createTime), desc(tariffPush.id))
        .limit(q.pageSize)
        .offset((q.curPage - 1) * q.pageSize),
      this.db.select({ n: countAll() }).from(tariffPush).where(where),
    ]);
    return {
      list: await Promise.all(rows.map((r) => this.toPush(r, scope))),
      total: count?.n ?? 0,
      curPage: q.curPage,
      pageSize: q.pageSize,
    };
  }

  async detail(pushId: string, session: SessionContext): Promise<TariffPush> {
    const scope = await scopeOf(this.db, session);
    const push = await this.pushInScope(pushId, scope);
    await this.reconcile(push.id);
    return this.toPush(push, scope);
  }

  private async toPush(row: PushRow, scope: Scope): Promise<TariffPush> {
    const counts = await this.db
      .select({ state: tariffEvent.state, code: tariffEvent.resultCode, n: countAll() })
      .from(tariffEvent)
      .where(and(eq(tariffEvent.pushId, row.id), this.meterInScope(scope)))
      .groupBy(tariffEvent.state, tariffEvent.resultCode);
    const answered = counts.filter((c) => c.state === 'done');
    const sum = (list: typeof counts) => list.reduce((total, c) => total + c.n, 0);
    return {
      pushId: row.id,
      tariffId: row.tariffId,
      tariffName: row.tariffName,
      activationTime: iso(row.activationTime),
      createdBy: row.createdBy,
      createTime: iso(row.createTime),
      total: sum(counts),
      done: sum(answered),
      succeeded: sum(answered.filter((c) => c.code === RESULT_CODES.success)),
      failed: sum(answered.filter((c) => c.code !== RESULT_CODES.success)),
      byCode: Object.fromEntries(answered.map((c) => [c.code ?? '', c.n])),
    };
  }

  /** A push's meters within the caller's scope (every one for an administrator). */
  private meterInScope(scope: Scope): SQL | undefined {
    const within = gridScope(scope, meter.gridId);
    if (!within) return undefined;
    return exists(
      this.db
        .select({ one: sql`1` })
        .from(meter)
        .where(and(sql`${qualified(meter.id)} = ${qualified(tariffEvent.meterId)}`, within)),
    );
  }

  /** A push the caller reaches: one of its meters lies in the caller's scope. */
  private reaches(scope: Scope): SQL | undefined {
    const within = this.meterInScope(scope);
    if (!within) return undefined;
    return exists(
      this.db
        .select({ one: sql`1` })
        .from(tariffEvent)
        .where(and(sql`${qualified(tariffEvent.pushId)} = ${qualified(tariffPush.id)}`, within)),
    );
  }

  private async pushInScope(pushId: string, scope: Scope): Promise<PushRow> {
    const [row] = await this.db
      .select()
      .from(tariffPush)
      .where(and(eq(tariffPush.id, pushId), this.reaches(scope)));
    if (!row) throw notFound();
    return row;
  }

  /** The answer to a push asked again with the same reqId: the push its plan carries. */
  private async createdOf(plan: PlanRow): Promise<TariffPushCreated> {
    const [event] = await this.db
      .select({ pushId: tariffEvent.pushId })
      .from(tariffEvent)
      .where(eq(tariffEvent.planId, plan.id))
      .limit(1);
    const pushId = event?.pushId ?? (plan.orders as { params?: { pushId?: string } }[])[0]?.params?.pushId;
    if (!pushId) throw notFound();
    return { pushId, planid: plan.id, planStatus: plan.planStatus as PlanStatus, jobId: plan.jobId };
  }
}
