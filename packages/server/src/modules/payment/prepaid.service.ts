import {
  CREDIT,
  type FriendlyTime,
  FriendlyTimeSchema,
  inFriendlyTime,
  OBIS,
  type Page,
  type PrepaidAccount,
  type PrepaidException,
  type PrepaidExceptionKind,
  type PrepaidMatch,
  RECHARGE_CMD,
  RELAY_STATES,
  RESULT,
  RESULT_CODES,
  type Recharge,
  type RechargeChange,
  type RechargeFailure,
  type RechargeHistoryQuery,
  type RechargeRequest,
  rechargeTopic,
  TOKEN_GATEWAY,
  type TokenStatus,
  TokenStatusSchema,
  utcWallClock,
} from '@meterdesk/contracts';
import {
  DEMO_VENDING_KEY,
  deriveDecoderKey,
  issueCreditToken,
  meterKeyDataOf,
  nextTid,
  splitCreditAmount,
} from '@meterdesk/contracts/payment/sts';
import { and, asc, desc, eq, ilike, or, type SQL, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthService } from '../../auth/auth.service';
import type { SecretBox } from '../../crypto/secret-box';
import { afterCommit } from '../../db/ambient';
import type { Db, Executor } from '../../db/driver';
import { newId } from '../../db/ids';
import { countAll, iso, likeContains } from '../../db/rows';
import {
  consumer,
  dcu,
  deviceCommand,
  meter,
  meterLive,
  poc,
  powerGrid,
  prepaidException,
  prepaidLedger,
  prepaidMeter,
  prepaidRecharge,
  sysParameter,
} from '../../db/schema';
import { fieldError, notFound } from '../../errors/api-error';
import type { CommandRow, HeadEnd, NewCommand } from '../../headend/head-end';
import type { SessionContext } from '../../http/operation';
import type { Broker } from '../../mqtt/broker';
import { gridScope, type Scope, scopeOf } from '../../rbac/scope';

/** The STS vending key, sealed by the secret box like the DCU keys; never answered, never logged. */
const VENDING_KEY_PARAMETER = 'stsVendingKey';
/** Matches a search answers at most. */
const MAX_MATCHES = 20;
/** Priority of a recharge's commands: above a plan's default (5), a consumer waits at the meter. */
const RECHARGE_PRIORITY = 7;

export interface PrepaidOptions {
  /** How long a recharge waits for its meter (offline, time-outs) before it fails and is reversed. */
  deadlineSeconds: number;
}

type RechargeRow = typeof prepaidRecharge.$inferSelect;

const money = (cents: number) => cents / 100;

/** What a token's answer says: taken (accepted now, or `used`: our TID, so taken before — a receipt typed at the keypad, a retry whose answer was lost). */
const taken = (status: TokenStatus | null) => status?.result === 'accepted' || status?.result === 'used';

/**
 * Prepaid recharge (issue 20): a consumer's money is an append-only ledger (`prepaid_ledger`); a recharge
 * credits it and sends the amount as STS tokens to the meter's token gateway through the head-end's
 * durable command ledger. The meter's answer settles the recharge: taken, succeeded; refused or never
 * delivered by the deadline, failed, and the part not taken reversed by a new entry. The browser's
 * client key makes a repeat answer the first recharge.
 */
export class PrepaidService {
  constructor(
    private readonly db: Db,
    private readonly headEnd: HeadEnd,
    private readonly auth: AuthService,
    private readonly secrets: SecretBox,
    private readonly broker: Broker,
    private readonly log: FastifyBaseLogger,
    private readonly options: PrepaidOptions,
  ) {}

  async find(keyword: string, session: SessionContext): Promise<PrepaidMatch[]> {
    const scope = await scopeOf(this.db, session);
    const like = likeContains(keyword);
    return this.matches(
      scope,
      or(ilike(meter.devAddr, like), ilike(consumer.consumerCode, like), ilike(consumer.consumerName, like)),
    ).limit(MAX_MATCHES);
  }

  private matches(scope: Scope, where: SQL | undefined) {
    return this.db
      .select({
        meterId: meter.id,
        devAddr: meter.devAddr,
        consumerId: consumer.id,
        consumerCode: consumer.consumerCode,
        consumerName: consumer.consumerName,
        gridName: sql<string>`coalesce(${powerGrid.gridName}, '')`,
      })
      .from(meter)
      .innerJoin(poc, eq(poc.meterId, meter.id))
      .innerJoin(consumer, eq(consumer.id, poc.consumerId))
      .leftJoin(powerGrid, eq(powerGrid.id, meter.gridId))
      .where(and(eq(consumer.paymentMode, 'prepay'), where, gridScope(scope, meter.gridId)))
      .orderBy(asc(meter.devAddr));
  }

  /** A meter of the caller's scope (404 otherwise) that supplies a prepaid consumer (400 notPrepaid otherwise). */
  private async prepaidMeterOf(meterId: string, scope: Scope) {
    const [found] = await this.db
      .select({
        meterId: meter.id,
        devAddr: meter.devAddr,
        gridId: meter.gridId,
        dcuId: meter.dcuId,
        consumerId: consumer.id,
        paymentMode: consumer.paymentMode,
      })
      .from(meter)
      .leftJoin(poc, eq(poc.meterId, meter.id))
      .leftJoin(consumer, eq(consumer.id, poc.consumerId))
      .where(and(eq(meter.id, meterId), gridScope(scope, meter.gridId)));
    if (!found) throw notFound();
    if (found.paymentMode !== 'prepay' || !found.consumerId)
      throw fieldError(RESULT.badRequest, 'meterId', 'notPrepaid');
    return { ...found, consumerId: found.consumerId };
  }

  async account(meterId: string, session: SessionContext): Promise<PrepaidAccount> {
    const scope = await scopeOf(this.db, session);
    await this.prepaidMeterOf(meterId, scope);
    const [match] = await this.matches(scope, eq(meter.id, meterId));
    if (!match) throw notFound();
    const [[balance], [vending], [live]] = await Promise.all([
      this.db
        .select({ cents: sql<number>`coalesce(sum(${prepaidLedger.amountCents}), 0)`.mapWith(Number) })
        .from(prepaidLedger)
        .where(eq(prepaidLedger.consumerId, match.consumerId)),
      this.db.select().from(prepaidMeter).where(eq(prepaidMeter.meterId, meterId)),
      this.db.select().from(meterLive).where(eq(meterLive.meterId, meterId)),
    ]);
    const friendly = FriendlyTimeSchema.safeParse(vending?.friendlyTime);
    return {
      ...match,
      ledgerBalance: money(balance?.cents ?? 0),
      meterCredit: vending?.creditCents == null ? null : money(vending.creditCents),
      meterCreditTime: vending?.creditTime ? iso(vending.creditTime) : null,
      relayState: live?.relayState ?? null,
      online: live?.online ?? false,
      overdraftAllowed: vending?.overdraftAllowed ?? false,
      overdraftLimit: money(vending?.overdraftLimitCents ?? 0),
      friendlyTime: friendly.success ? friendly.data : ({ hours: [], weekdays: [], holidays: [] } as FriendlyTime),
    };
  }

  /**
   * Everything is checked before anything is written (a refused call keeps what it wrote: only the
   * password check's count). The meter's vending row is locked first, so recharges of one meter take
   * their TIDs in turn, and a second request with the same client key waits for the first and finds it.
   */
  async recharge(body: RechargeRequest, session: SessionContext, ip: string): Promise<Recharge> {
    const scope = await scopeOf(this.db, session);
    const target = await this.prepaidMeterOf(body.meterId, scope);
    if (!(await this.auth.checkPassword(session, body.password, ip)))
      throw fieldError(RESULT.badRequest, 'password', 'operatorPasswordWrong');
    const decoderKey = deriveDecoderKey(await this.vendingKey(), meterKeyDataOf(target.devAddr));
    const amountCents = Math.round(body.amount * 100);
    const id = await this.db.transaction(async (tx) => {
      await tx.insert(prepaidMeter).values({ meterId: target.meterId }).onConflictDoNothing();
      const [vending] = await tx
        .select()
        .from(prepaidMeter)
        .where(eq(prepaidMeter.meterId, target.meterId))
        .for('update');
      if (!vending) throw notFound();
      const now = new Date();
      let lastTid = vending.lastTid;
      const tokens = splitCreditAmount(amountCents).map((part) => {
        const token = issueCreditToken({ decoderKey, amount: part, issuedAt: now, tid: nextTid(lastTid, now) });
        lastTid = token.tid;
        return { ...token, amountCents: part };
      });
      const [row] = await tx
        .insert(prepaidRecharge)
        .values({
          id: newId(),
          clientKey: body.clientKey,
          meterId: target.meterId,
          consumerId: target.consumerId,
          gridId: target.gridId,
          amountCents,
          allowOverdraft: body.allowOverdraft,
          tokens,
          createdBy: session.username,
          deadline: new Date(now.getTime() + this.options.deadlineSeconds * 1000),
        })
        .onConflictDoNothing({ target: [prepaidRecharge.createdBy, prepaidRecharge.clientKey] })
        .returning({ id: prepaidRecharge.id });
      if (!row) return null;
      await tx
        .update(prepaidMeter)
        .set({ lastTid, overdraftAllowed: body.allowOverdraft })
        .where(eq(prepaidMeter.meterId, target.meterId));
      await tx.insert(prepaidLedger).values({
        id: newId(),
        consumerId: target.consumerId,
        meterId: target.meterId,
        rechargeId: row.id,
        kind: 'credit',
        amountCents,
      });
      const common: Omit<NewCommand, 'runId' | 'command'> = {
        planId: null,
        deviceKind: 'meter',
        deviceKey: target.devAddr,
        viaDcu: await this.dcuNoOf(tx, target.dcuId),
        meterId: target.meterId,
        dcuId: target.dcuId,
        gridId: target.gridId,
        operation: RECHARGE_CMD,
        priority: RECHARGE_PRIORITY,
        bulk: false,
        timeoutSeconds: 30,
        expiresInSeconds: this.options.deadlineSeconds,
        waitOnline: true,
        maxTimeoutRetries: 3,
        maxBusyRetries: 5,
        requestedBy: session.username,
        audited: false,
      };
      const overdraft =
        body.allowOverdraft === vending.overdraftAllowed
          ? []
          : [
              {
                ...common,
                runId: `${row.id.slice(0, 30)}od`,
                command: {
                  op: 'set' as const,
                  items: [
                    {
                      obis: OBIS.credit,
                      classId: CREDIT.classId,
                      attribute: CREDIT.attributes.overdraftAllowed,
                      value: body.allowOverdraft,
                      freq: 0,
                      unit: 'day' as const,
                      count: 1,
                    },
                  ],
                },
              },
            ];
      const commands = await this.headEnd.enqueue(tx, [
        ...overdraft,
        {
          ...common,
          runId: row.id,
          command: {
            op: 'action',
            items: tokens.map((token) => ({
              obis: OBIS.tokenGateway,
              classId: TOKEN_GATEWAY.classId,
              attribute: TOKEN_GATEWAY.methods.enter,
              value: token.digits,
              freq: 0,
              unit: 'day' as const,
              count: 1,
            })),
          },
        },
      ]);
      const command = commands.find((c) => c.runId === row.id);
      await tx.update(prepaidRecharge).set({ commandId: command?.id }).where(eq(prepaidRecharge.id, row.id));
      return row.id;
    });
    if (id) {
      this.headEnd.kick();
      this.announce(await this.rechargeOf(id));
    }
    return this.one(
      scope,
      and(eq(prepaidRecharge.createdBy, session.username), eq(prepaidRecharge.clientKey, body.clientKey)),
    );
  }

  /** The DCU a meter's commands travel through; null for a direct meter. */
  private async dcuNoOf(tx: Executor, dcuId: string | null): Promise<string | null> {
    if (!dcuId) return null;
    const [row] = await tx.select({ dcuNo: dcu.dcuNo }).from(dcu).where(eq(dcu.id, dcuId));
    return row?.dcuNo ?? null;
  }

  /** The vending key, sealed at rest; the demonstration key is sealed in on first use. */
  private async vendingKey(): Promise<string> {
    const read = async () =>
      (await this.db.select().from(sysParameter).where(eq(sysParameter.key, VENDING_KEY_PARAMETER)))[0];
    let row = await read();
    if (!row) {
      await this.db
        .insert(sysParameter)
        .values({ key: VENDING_KEY_PARAMETER, value: { sealed: this.secrets.seal(DEMO_VENDING_KEY) } })
        .onConflictDoNothing();
      row = await read();
    }
    const sealed = (row?.value as { sealed?: string } | undefined)?.sealed;
    if (!sealed) throw new Error('the STS vending key is missing');
    return this.secrets.open(sealed);
  }

  /** A finished command of a recharge settles it (in this instance; `reconcile` catches the ones missed). */
  async commandDone(row: Pick<CommandRow, 'id' | 'operation' | 'runId'>): Promise<void> {
    if (row.operation !== RECHARGE_CMD) return;
    await this.settle(eq(prepaidRecharge.commandId, row.id));
  }

  /** Settles the recharges whose command finished while no listener heard it (a restart). */
  async reconcile(): Promise<void> {
    await this.settle(
      sql`exists (select 1 from ${deviceCommand} where ${deviceCommand.id} = ${prepaidRecharge.commandId} and ${deviceCommand.state} = 'done')`,
    );
  }

  private async settle(which: SQL): Promise<void> {
    const open = await this.db
      .select({ id: prepaidRecharge.id })
      .from(prepaidRecharge)
      .where(and(eq(prepaidRecharge.state, 'recharging'), which));
    for (const { id } of open) {
      const settled = await this.db.transaction((tx) => this.settleOne(tx, id));
      if (settled) this.announce(settled);
    }
  }

  private async settleOne(tx: Executor, id: string): Promise<RechargeRow | null> {
    const [recharge] = await tx
      .select()
      .from(prepaidRecharge)
      .where(and(eq(prepaidRecharge.id, id), eq(prepaidRecharge.state, 'recharging')))
      .for('update');
    if (!recharge?.commandId) return null;
    const [command] = await tx.select().from(deviceCommand).where(eq(deviceCommand.id, recharge.commandId));
    if (command?.state !== 'done') return null;
    const items = (command.answer as { items?: { value?: unknown }[] } | null)?.items ?? [];
    const statuses = recharge.tokens.map((_t, i) => {
      const parsed = TokenStatusSchema.safeParse(items[i]?.value);
      return parsed.success ? parsed.data : null;
    });
    const takenCents = recharge.tokens.reduce((sum, t, i) => sum + (taken(statuses[i] ?? null) ? t.amountCents : 0), 0);
    const succeeded = takenCents === recharge.amountCents;
    const refused = statuses.find((s) => s && !taken(s));
    const failure: RechargeFailure | null = succeeded
      ? null
      : refused && refused.result !== 'accepted'
        ? refused.result
        : 'undelivered';
    const credit = [...statuses].reverse().find((s) => s?.credit !== undefined)?.credit ?? null;
    const [updated] = await tx
      .update(prepaidRecharge)
      .set({
        state: succeeded ? 'succeeded' : 'failed',
        failure,
        meterCreditCents: credit,
        finishTime: sql`now()`,
      })
      .where(and(eq(prepaidRecharge.id, id), eq(prepaidRecharge.state, 'recharging')))
      .returning();
    if (!updated) return null;
    if (!succeeded)
      await tx
        .insert(prepaidLedger)
        .values({
          id: newId(),
          consumerId: recharge.consumerId,
          meterId: recharge.meterId,
          rechargeId: recharge.id,
          kind: 'reversal',
          amountCents: takenCents - recharge.amountCents,
        })
        .onConflictDoNothing();
    if (credit !== null)
      await tx
        .update(prepaidMeter)
        .set({ creditCents: credit, creditTime: command.answerTime ?? new Date() })
        .where(eq(prepaidMeter.meterId, recharge.meterId));
    if (command.resultCode !== RESULT_CODES.success && !succeeded)
      this.log.info({ rechargeId: id, resultCode: command.resultCode, failure }, 'recharge failed, reversed');
    return updated;
  }

  /** Tells the operator's browser, once the change is visible. */
  private announce(row: RechargeRow): void {
    const change: RechargeChange = {
      id: row.id,
      meterId: row.meterId,
      state: row.state as RechargeChange['state'],
      failure: (row.failure as RechargeFailure | null) ?? null,
    };
    void afterCommit(() =>
      this.broker
        .publish(rechargeTopic(row.createdBy), change)
        .catch((err: unknown) => this.log.warn({ err }, 'recharge change not published')),
    );
  }

  private async rechargeOf(id: string): Promise<RechargeRow> {
    const [row] = await this.db.select().from(prepaidRecharge).where(eq(prepaidRecharge.id, id));
    if (!row) throw notFound();
    return row;
  }

  /**
   * The daily reconciliation: each prepaid meter's relay (as last learnt) and credit (as last read)
   * against its credit, overdraft, friendly time and the ledger. Meters never read are left out: there
   * is nothing to compare. The findings replace the last run's.
   */
  async reconcileAccounts(now = new Date()): Promise<number> {
    const rows = await this.db
      .select({
        meterId: prepaidMeter.meterId,
        gridId: meter.gridId,
        creditCents: prepaidMeter.creditCents,
        overdraftAllowed: prepaidMeter.overdraftAllowed,
        overdraftLimitCents: prepaidMeter.overdraftLimitCents,
        friendlyTime: prepaidMeter.friendlyTime,
        relayState: meterLive.relayState,
        ledgerCents:
          sql<number>`coalesce((select sum(l.amount_cents) from ${prepaidLedger} l where l.consumer_id = ${consumer.id}), 0)`.mapWith(
            Number,
          ),
        entries: sql<number>`(select count(*) from ${prepaidLedger} l where l.consumer_id = ${consumer.id})`.mapWith(
          Number,
        ),
      })
      .from(prepaidMeter)
      .innerJoin(meter, eq(meter.id, prepaidMeter.meterId))
      .innerJoin(poc, eq(poc.meterId, meter.id))
      .innerJoin(consumer, and(eq(consumer.id, poc.consumerId), eq(consumer.paymentMode, 'prepay')))
      .leftJoin(meterLive, eq(meterLive.meterId, meter.id))
      .where(sql`${prepaidMeter.creditCents} is not null`);
    const at = utcWallClock(now);
    const found = rows.flatMap((r) => {
      const credit = r.creditCents ?? 0;
      const floor = r.overdraftAllowed ? (r.overdraftLimitCents ? -r.overdraftLimitCents : null) : 0;
      const exhausted = floor !== null && credit <= floor;
      const friendly = FriendlyTimeSchema.safeParse(r.friendlyTime);
      const kinds: PrepaidExceptionKind[] = [];
      if (!exhausted && r.relayState === RELAY_STATES.disconnected) kinds.push('creditButDisconnected');
      if (
        exhausted &&
        r.relayState === RELAY_STATES.connected &&
        !(friendly.success && inFriendlyTime(friendly.data, at))
      )
        kinds.push('noCreditButConnected');
      if (r.entries > 0 && credit > r.ledgerCents) kinds.push('balanceMismatch');
      return kinds.map((kind) => ({
        id: newId(),
        meterId: r.meterId,
        kind,
        gridId: r.gridId,
        meterCreditCents: r.creditCents,
        ledgerCents: r.ledgerCents,
        relayState: r.relayState,
        checkTime: now,
      }));
    });
    await this.db.transaction(async (tx) => {
      await tx.delete(prepaidException);
      if (found.length) await tx.insert(prepaidException).values(found);
    });
    return found.length;
  }

  async exceptions(q: { curPage: number; pageSize: number }, session: SessionContext): Promise<Page<PrepaidException>> {
    const scope = await scopeOf(this.db, session);
    const where = gridScope(scope, prepaidException.gridId);
    const [rows, [count]] = await Promise.all([
      this.db
        .select({
          e: prepaidException,
          devAddr: meter.devAddr,
          code: consumer.consumerCode,
          name: consumer.consumerName,
        })
        .from(prepaidException)
        .innerJoin(meter, eq(meter.id, prepaidException.meterId))
        .leftJoin(poc, eq(poc.meterId, meter.id))
        .leftJoin(consumer, eq(consumer.id, poc.consumerId))
        .where(where)
        .orderBy(asc(meter.devAddr), asc(prepaidException.kind))
        .limit(q.pageSize)
        .offset((q.curPage - 1) * q.pageSize),
      this.db.select({ n: countAll() }).from(prepaidException).where(where),
    ]);
    return {
      list: rows.map(({ e, devAddr, code, name }) => ({
        id: e.id,
        meterId: e.meterId,
        devAddr,
        consumerCode: code ?? '',
        consumerName: name ?? '',
        kind: e.kind as PrepaidExceptionKind,
        meterCredit: e.meterCreditCents == null ? null : money(e.meterCreditCents),
        ledgerBalance: money(e.ledgerCents),
        relayState: e.relayState,
        checkTime: iso(e.checkTime),
      })),
      total: count?.n ?? 0,
      curPage: q.curPage,
      pageSize: q.pageSize,
    };
  }

  async detail(id: string, session: SessionContext): Promise<Recharge> {
    return this.one(await scopeOf(this.db, session), eq(prepaidRecharge.id, id));
  }

  private async one(scope: Scope, which: SQL | undefined): Promise<Recharge> {
    const [found] = (await this.list(scope, which, { pageSize: 1, curPage: 1 })).list;
    if (!found) throw notFound();
    return found;
  }

  async history(q: RechargeHistoryQuery, session: SessionContext): Promise<Page<Recharge>> {
    const scope = await scopeOf(this.db, session);
    return this.list(scope, q.meterId ? eq(prepaidRecharge.meterId, q.meterId) : undefined, q);
  }

  private async list(
    scope: Scope,
    filter: SQL | undefined,
    q: Pick<RechargeHistoryQuery, 'pageSize' | 'curPage' | 'sortField' | 'sortOrder'>,
  ): Promise<Page<Recharge>> {
    const where = and(filter, gridScope(scope, prepaidRecharge.gridId));
    const sortColumn = {
      createTime: prepaidRecharge.createTime,
      amount: prepaidRecharge.amountCents,
      devAddr: meter.devAddr,
      state: prepaidRecharge.state,
    }[q.sortField ?? 'createTime'];
    const order = q.sortOrder === 'ascend' ? asc : desc;
    const [rows, [count]] = await Promise.all([
      this.db
        .select({
          recharge: prepaidRecharge,
          devAddr: meter.devAddr,
          code: consumer.consumerCode,
          name: consumer.consumerName,
        })
        .from(prepaidRecharge)
        .innerJoin(meter, eq(meter.id, prepaidRecharge.meterId))
        .innerJoin(consumer, eq(consumer.id, prepaidRecharge.consumerId))
        .where(where)
        .orderBy(order(sortColumn), desc(prepaidRecharge.id))
        .limit(q.pageSize)
        .offset((q.curPage - 1) * q.pageSize),
      this.db
        .select({ n: countAll() })
        .from(prepaidRecharge)
        .innerJoin(meter, eq(meter.id, prepaidRecharge.meterId))
        .where(where),
    ]);
    return {
      list: rows.map((r) => toRecharge(r.recharge, { devAddr: r.devAddr, consumerCode: r.code, consumerName: r.name })),
      total: count?.n ?? 0,
      curPage: q.curPage,
      pageSize: q.pageSize,
    };
  }
}

function toRecharge(r: RechargeRow, names: Pick<Recharge, 'devAddr' | 'consumerCode' | 'consumerName'>): Recharge {
  return {
    id: r.id,
    meterId: r.meterId,
    ...names,
    amount: money(r.amountCents),
    allowOverdraft: r.allowOverdraft,
    state: r.state as Recharge['state'],
    failure: (r.failure as RechargeFailure | null) ?? null,
    tokens: r.tokens.map((t) => ({ digits: t.digits, tid: t.tid, amount: money(t.amountCents) })),
    meterCredit: r.meterCreditCents == null ? null : money(r.meterCreditCents),
    createdBy: r.createdBy,
    createTime: iso(r.createTime),
    finishTime: r.finishTime ? iso(r.finishTime) : null,
    deadline: iso(r.deadline),
  };
}
