import {
  COLLECT_CMD,
  type CommandOperation,
  type CommandRecord,
  type DeviceKind,
  DISCONNECT_OPERATIONS,
  MAX_BATCH_DEVICES,
  OPERATIONS,
  type OperationName,
  PLAN_ITEM_TYPES,
  type Plan,
  type PlanCreate,
  type PlanStatus,
  RESULT,
  RESULT_CODES,
  scaled,
  unitSymbol,
} from '@meterdesk/contracts';
import { and, countDistinct, desc, eq, gt, inArray, isNull, ne, notInArray, or, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { permittedUris } from '../../auth/session';
import type { Config } from '../../config';
import type { Db, Tx } from '../../db/driver';
import { newId } from '../../db/ids';
import { planOfRequest } from '../../db/plan-request';
import { countAll } from '../../db/rows';
import { consumer, dcu, deviceCommand, meter, plan, poc } from '../../db/schema';
import { isDisconnect } from '../../db/tables/headend';
import { ApiError, fieldError, forbidden, notFound } from '../../errors/api-error';
import type { ObisLookup, ParamTemplateLookup, StoredCommand } from '../../headend/commands';
import { buildCommand } from '../../headend/commands';
import type { CommandRow, HeadEnd, NewCommand } from '../../headend/head-end';
import type { SessionContext } from '../../http/operation';
import type { JobSystem } from '../../jobs/job-system';
import { gridScope, scopeOf } from '../../rbac/scope';
import { COLLECTION, visibleTasks } from '../collection/task.service';
import type { SettingsService } from '../system/settings.service';

/** A device a plan acts on, as the archive places it. */
export interface PlanDevice {
  kind: DeviceKind;
  key: string;
  viaDcu: string | null;
  meterId: string | null;
  dcuId: string | null;
  gridId: string;
  protectedConsumer: boolean;
  /** A meter supplies a consumer (through its POC) within the caller's scope; a DCU always passes. */
  hasConsumer: boolean;
  /** A meter's type (a parameter template is for one). */
  meterTypeId: string | null;
}

export type PlanRow = typeof plan.$inferSelect;

/** What `PlanService.launch` sends: a one-shot plan of one command, and what goes with it. */
export interface OneShot<T = undefined>
  extends Pick<
    PlanCreate,
    | 'planName'
    | 'planTempName'
    | 'pushType'
    | 'pri'
    | 'timeout'
    | 'devs'
    | 'crontab'
    | 'eventCode'
    | 'reqId'
    | 'concurrent'
  > {
  target: DeviceKind;
  /** The plan's one order as stored. */
  order: { cgcode?: string; cmd: CommandOperation; params: unknown; isCyclePlan?: boolean };
  operation: CommandOperation;
  /** Built once the devices passed their checks (an unknown device is the first thing a caller hears of). */
  command(): Promise<StoredCommand>;
  /** The command's own refusals, given the devices found. */
  check?(devices: readonly PlanDevice[]): void | Promise<void>;
  /** Whether the plan waits for a second user, decided in its transaction. */
  hold?(tx: Tx, devices: readonly PlanDevice[]): Promise<boolean>;
  /** What is stored with the commands, in the same transaction (none while the plan is held). */
  withCommands?(tx: Tx, planId: string, commands: readonly CommandRow[]): Promise<T>;
}

/** Held disconnects looked at for the approval list: approvals are a handful, not a backlog. */
const MAX_PENDING = 500;

/**
 * How long an operation's command may wait to be sent before it fails with 50: two minutes, plus each
 * device of its batch answering in turn (its time-out, and its one retry), so a batch queued behind
 * others on a slow DCU, or through a server restart, is not given up while it is merely waiting.
 */
const ONE_SHOT_WAIT_SECONDS = 120;
const TIMEOUT_RETRIES = 1;
const waitSeconds = (devices: number, timeout: number) =>
  ONE_SHOT_WAIT_SECONDS + devices * timeout * (1 + TIMEOUT_RETRIES);

/**
 * One-shot plans: an operation on up to 30 devices. Everything is checked before anything is queued
 * (the button, the devices within the caller's grid scope, online, not already executing, the
 * disconnect safeguards); the plan and its commands are written in one transaction, then the head-end
 * sends them and the `plan-run` job reports each answer on `progress/{jobId}`.
 */
export class PlanService {
  constructor(
    private readonly db: Db,
    private readonly headEnd: HeadEnd,
    private readonly jobs: JobSystem,
    private readonly obis: ObisLookup,
    private readonly settings: SettingsService,
    private readonly config: Pick<
      Config,
      'disconnectApprovalThreshold' | 'disconnectWindowMinutes' | 'disconnectStaggerPerSecond'
    >,
    private readonly templates: ParamTemplateLookup,
  ) {}

  async create(body: PlanCreate, session: SessionContext) {
    const known = await planOfRequest(this.db, session.username, body.reqId);
    if (known) return created(known);
    if (body.crontab && (body.crontab.count > 1 || body.crontab.freq > 0))
      throw fieldError(RESULT.badRequest, 'crontab', 'recurringPlanNotYet');
    const order = operationOrder(body);
    const operation = order.cmd;
    const definition = OPERATIONS[operation];
    await this.requireButton(session, operation);
    const params = parseParams(operation, order.params);
    if ((definition.target === 'meter') !== (body.devs.itemType === PLAN_ITEM_TYPES.meter))
      throw fieldError(RESULT.badRequest, 'devs.itemType', 'planOperationMismatch');
    const disconnect = DISCONNECT_OPERATIONS.includes(operation);
    const { row } = await this.launch(
      {
        ...body,
        target: definition.target,
        order: { ...order, params },
        operation,
        command: () => buildCommand(operation, params, this.obis, this.templates),
        check: async (devices) => {
          refuseWithoutConsumer(devices);
          if (disconnect) refuseProtected(devices);
          if (operation === 'applyParamTemplate') await this.refuseOtherMeterTypes(devices, params);
        },
        ...(disconnect ? { hold: (tx: Tx, devices: readonly PlanDevice[]) => this.passesThreshold(tx, devices) } : {}),
      },
      session,
    );
    return created(row);
  }

  /**
   * A one-shot plan of a command whose own checks passed: its devices within the caller's grid scope
   * (`check` then looks at them), online (`MThasOffline`), none already executing the same kind of
   * command (`MThasExecute`, or `MTisExecute` for one device); then the plan, its commands and what
   * `withCommands` stores beside them in one transaction, and the job that reports each answer. Every
   * one-shot command (an operation, a tariff push) is sent this way.
   */
  async launch<T = undefined>(spec: OneShot<T>, session: SessionContext): Promise<{ row: PlanRow; stored: T }> {
    const devices = await this.resolve(session, spec.target, spec.devs.devList);
    await spec.check?.(devices);
    const command = await spec.command();
    const online = await this.headEnd.onlineStates(devices);
    const offline = devices.filter((d) => !online.get(`${d.kind}:${d.key}`)).map((d) => d.key);
    const batch = devices.length > 1;
    if (offline.length) throw new ApiError(RESULT.badRequest, 'MThasOffline', { devices: offline });
    const executing = await this.executing(devices, spec.operation);
    if (executing.length)
      throw new ApiError(RESULT.badRequest, batch ? 'MThasExecute' : 'MTisExecute', { devices: executing });

    const timeout = spec.timeout ?? (await this.settings.commandTimeout());
    const planId = newId();
    const startAt = spec.crontab ? new Date(spec.crontab.starttime * 1000) : null;
    const { row, stored } = await this.db.transaction(async (tx) => {
      const held = (await spec.hold?.(tx, devices)) === true;
      const status: PlanStatus = held ? 'pendingApproval' : 'executing';
      const [inserted] = await tx
        .insert(plan)
        .values({
          id: planId,
          planName: spec.planName,
          planTempName: spec.planTempName,
          pushType: spec.pushType,
          pri: spec.pri,
          timeout,
          planStatus: status,
          devs: spec.devs,
          crontab: spec.crontab ?? null,
          orders: [spec.order],
          eventCode: spec.eventCode,
          reqId: spec.reqId,
          concurrent: spec.concurrent,
          deviceCount: devices.length,
          createdBy: session.username,
        })
        .returning();
      const commands = held
        ? []
        : await this.headEnd.enqueue(
            tx,
            devices.map((d) =>
              commandOf(d, {
                planId,
                operation: spec.operation,
                command,
                priority: spec.pri,
                bulk: batch,
                timeout,
                requestedBy: session.username,
                notBefore: startAt && startAt > new Date() ? startAt : undefined,
                devices: devices.length,
              }),
            ),
          );
      const stored = (await spec.withCommands?.(tx, planId, commands)) as T;
      return { row: inserted as PlanRow, stored };
    });
    if (row.planStatus === 'pendingApproval') return { row, stored };
    this.headEnd.kick();
    return { row: await this.startReporting(row, session.username), stored };
  }

  /**
   * One-shot plans start when made, so only a held disconnect is still open to change: its devices and
   * parameters are checked again as on creation, and it stays held for approval.
   */
  async update(body: PlanCreate & { planid: string }, session: SessionContext): Promise<void> {
    const row = await this.planInScope(body.planid, session);
    if (row.planStatus !== 'pendingApproval' || row.createdBy !== session.username)
      throw new ApiError(RESULT.badRequest, 'planNotEditable');
    const order = operationOrder(body);
    if (!DISCONNECT_OPERATIONS.includes(order.cmd))
      throw fieldError(RESULT.badRequest, 'orders.0.cmd', 'planNotEditable');
    await this.requireButton(session, order.cmd);
    const params = parseParams(order.cmd, order.params);
    if (body.devs.itemType !== PLAN_ITEM_TYPES.meter)
      throw fieldError(RESULT.badRequest, 'devs.itemType', 'planOperationMismatch');
    const devices = await this.resolve(session, 'meter', body.devs.devList);
    refuseWithoutConsumer(devices);
    refuseProtected(devices);
    await this.db
      .update(plan)
      .set({
        planName: body.planName,
        planTempName: body.planTempName,
        pri: body.pri,
        timeout: body.timeout ?? row.timeout,
        devs: body.devs,
        orders: [{ ...order, params }],
        eventCode: body.eventCode,
        concurrent: body.concurrent,
        deviceCount: devices.length,
        updateTime: sql`now()`,
      })
      .where(and(eq(plan.id, row.id), eq(plan.planStatus, 'pendingApproval')));
  }

  /** A second user releases a held disconnect: sent staggered at the configured rate. */
  async approve(planId: string, session: SessionContext) {
    const row = await this.planInScope(planId, session);
    if (row.planStatus !== 'pendingApproval') throw new ApiError(RESULT.badRequest, 'planNotPending');
    if (row.createdBy.toLowerCase() === session.username.toLowerCase())
      throw new ApiError(RESULT.forbidden, 'selfApproval');
    const [order] = row.orders as { cmd: OperationName; params: unknown }[];
    if (!order) throw new ApiError(RESULT.badRequest, 'planNotPending');
    const devs = row.devs as PlanCreate['devs'];
    const devices = await this.resolve(session, OPERATIONS[order.cmd].target, devs.devList);
    refuseWithoutConsumer(devices);
    refuseProtected(devices);
    const command = await buildCommand(order.cmd, order.params, this.obis, this.templates);
    const spacingMs = 1000 / this.config.disconnectStaggerPerSecond;
    const start = Date.now();
    const approved = await this.db.transaction(async (tx) => {
      const [updated] = await tx
        .update(plan)
        .set({ planStatus: 'executing', approvedBy: session.username, approveTime: sql`now()`, updateTime: sql`now()` })
        .where(and(eq(plan.id, planId), eq(plan.planStatus, 'pendingApproval')))
        .returning();
      if (!updated) throw new ApiError(RESULT.badRequest, 'planNotPending');
      await this.headEnd.enqueue(
        tx,
        devices.map((d, i) =>
          commandOf(d, {
            planId,
            operation: order.cmd,
            command,
            priority: row.pri,
            bulk: true,
            timeout: row.timeout,
            requestedBy: row.createdBy,
            notBefore: new Date(start + i * spacingMs),
            extraWaitSeconds: Math.ceil((devices.length * spacingMs) / 1000),
            devices: devices.length,
          }),
        ),
      );
      return updated;
    });
    this.headEnd.kick();
    return created(await this.startReporting(approved, row.createdBy));
  }

  async reject(planId: string, session: SessionContext): Promise<void> {
    await this.planInScope(planId, session);
    const [updated] = await this.db
      .update(plan)
      .set({ planStatus: 'rejected', approvedBy: session.username, approveTime: sql`now()`, updateTime: sql`now()` })
      .where(and(eq(plan.id, planId), eq(plan.planStatus, 'pendingApproval')))
      .returning({ id: plan.id });
    if (!updated) throw new ApiError(RESULT.badRequest, 'planNotPending');
  }

  /** Logical delete: queued commands end with 50, sent ones still get their answer. */
  async remove(planId: string, session: SessionContext): Promise<void> {
    await this.planInScope(planId, session);
    await this.db.transaction(async (tx) => {
      await tx.update(plan).set({ planStatus: 'deleted', updateTime: sql`now()` }).where(eq(plan.id, planId));
      await tx
        .update(deviceCommand)
        .set({ state: 'done', resultCode: RESULT_CODES.serverTimeout, answerTime: sql`now()` })
        .where(and(eq(deviceCommand.planId, planId), eq(deviceCommand.state, 'queued')));
    });
  }

  async retry(planId: string, session: SessionContext) {
    const row = await this.planInScope(planId, session);
    const failed = await this.db
      .select({ key: deviceCommand.deviceKey })
      .from(deviceCommand)
      .where(
        and(
          eq(deviceCommand.planId, planId),
          eq(deviceCommand.state, 'done'),
          ne(deviceCommand.resultCode, RESULT_CODES.success),
        ),
      );
    if (!failed.length) throw new ApiError(RESULT.badRequest, 'nothingToRetry');
    const devs = row.devs as PlanCreate['devs'];
    return this.create(
      {
        planName: row.planName,
        planTempName: row.planTempName,
        pushType: row.pushType,
        pri: row.pri,
        timeout: row.timeout,
        devs: { itemType: devs.itemType, devList: failed.map((f) => f.key) },
        orders: row.orders as PlanCreate['orders'],
        eventCode: row.eventCode,
        reqId: '',
        concurrent: row.concurrent,
      },
      session,
    );
  }

  async detail(planId: string, session: SessionContext): Promise<Plan> {
    return this.toPlan(await this.planInScope(planId, session));
  }

  /** Held disconnects whose meters all lie in the caller's scope, newest first. */
  async pending(query: { pageSize: number; curPage: number }, session: SessionContext) {
    const held = await this.db
      .select()
      .from(plan)
      .where(eq(plan.planStatus, 'pendingApproval'))
      .orderBy(desc(plan.createTime))
      .limit(MAX_PENDING);
    const visible: PlanRow[] = [];
    for (const row of held) if (await this.inScope(row, session)) visible.push(row);
    const page = visible.slice((query.curPage - 1) * query.pageSize, query.curPage * query.pageSize);
    return {
      list: await Promise.all(page.map((r) => this.toPlan(r))),
      total: visible.length,
      curPage: query.curPage,
      pageSize: query.pageSize,
    };
  }

  async results(
    query: { planid: string; pageSize: number; curPage: number; failedOnly: boolean },
    session: SessionContext,
  ) {
    await this.planInScope(query.planid, session);
    const where = and(
      eq(deviceCommand.planId, query.planid),
      query.failedOnly
        ? and(eq(deviceCommand.state, 'done'), ne(deviceCommand.resultCode, RESULT_CODES.success))
        : undefined,
    );
    return this.commandPage(where, query, [deviceCommand.deviceKey]);
  }

  /** Every result of a plan, for the export. */
  async allResults(planId: string, session: SessionContext): Promise<CommandRecord[]> {
    await this.planInScope(planId, session);
    const rows = await this.db
      .select()
      .from(deviceCommand)
      .where(eq(deviceCommand.planId, planId))
      .orderBy(deviceCommand.deviceKey);
    return this.records(rows);
  }

  async meterCommands(query: { id: string; pageSize: number; curPage: number }, session: SessionContext) {
    const scope = await scopeOf(this.db, session);
    const [found] = await this.db
      .select({ id: meter.id })
      .from(meter)
      .where(and(eq(meter.id, query.id), gridScope(scope, meter.gridId)));
    if (!found) throw notFound();
    return this.commandPage(eq(deviceCommand.meterId, query.id), query, [
      desc(deviceCommand.createTime),
      desc(deviceCommand.id),
    ]);
  }

  /** Command rows as the screens show them: values scaled, units named. */
  async records(rows: readonly CommandRow[]): Promise<CommandRecord[]> {
    const codes = new Set<string>();
    for (const row of rows) for (const item of answerItems(row)) codes.add(item.obis);
    const catalogue = await this.obis.byCodes([...codes]);
    return rows.map((row) => ({
      id: row.id,
      reqId: row.reqId,
      planid: row.planId,
      deviceKind: row.deviceKind as DeviceKind,
      deviceKey: row.deviceKey,
      operation: row.operation,
      state: row.state as CommandRecord['state'],
      resultCode: (row.resultCode as CommandRecord['resultCode']) ?? null,
      items: answerItems(row).map((item) => {
        const entry = catalogue.get(item.obis);
        return {
          obis: item.obis,
          ...(item.code ? { code: item.code } : {}),
          ...(item.value !== undefined ? { raw: item.value } : {}),
          ...(item.value !== undefined ? { value: entry ? scaled(entry, item.value).value : item.value } : {}),
          ...(entry ? { unit: unitSymbol(entry.unit), description: entry.description } : {}),
        };
      }),
      frame: (row.answer as { frame?: string } | null)?.frame ?? null,
      attempts: row.attempts as CommandRecord['attempts'],
      requestedBy: row.requestedBy,
      createTime: row.createTime.toISOString(),
      answerTime: row.answerTime?.toISOString() ?? null,
    }));
  }

  private async commandPage(
    where: ReturnType<typeof and>,
    query: { pageSize: number; curPage: number },
    order: (PgColumn | SQL)[],
  ) {
    const [rows, [count]] = await Promise.all([
      this.db
        .select()
        .from(deviceCommand)
        .where(where)
        .orderBy(...order)
        .limit(query.pageSize)
        .offset((query.curPage - 1) * query.pageSize),
      this.db.select({ n: countAll() }).from(deviceCommand).where(where),
    ]);
    return { list: await this.records(rows), total: count?.n ?? 0, curPage: query.curPage, pageSize: query.pageSize };
  }

  private async toPlan(row: PlanRow): Promise<Plan> {
    const counts = await this.db
      .select({ code: deviceCommand.resultCode, n: countAll() })
      .from(deviceCommand)
      .where(and(eq(deviceCommand.planId, row.id), eq(deviceCommand.state, 'done')))
      .groupBy(deviceCommand.resultCode);
    const byCode = Object.fromEntries(counts.map((c) => [c.code ?? '', c.n]));
    return {
      planid: row.id,
      planName: row.planName,
      planTempName: row.planTempName,
      pushType: row.pushType,
      pri: row.pri,
      timeout: row.timeout,
      planStatus: row.planStatus as PlanStatus,
      devs: row.devs,
      crontab: row.crontab,
      orders: row.orders,
      eventCode: row.eventCode,
      reqId: row.reqId,
      concurrent: row.concurrent,
      createdBy: row.createdBy,
      approvedBy: row.approvedBy,
      createTime: row.createTime.toISOString(),
      total: row.deviceCount,
      done: counts.reduce((sum, c) => sum + c.n, 0),
      byCode,
    };
  }

  /**
   * A plan the caller may see: one whose devices all lie in the caller's grid scope (an administrator
   * sees every plan); another plan answers 404. A collection task may choose its meters by filters
   * and name none, so it follows the rule taskMGT answers by.
   */
  private async planInScope(planId: string, session: SessionContext): Promise<PlanRow> {
    const scope = await scopeOf(this.db, session);
    const [row] = await this.db
      .select()
      .from(plan)
      .where(and(eq(plan.id, planId), or(ne(plan.kind, COLLECTION), visibleTasks(scope))));
    if (!row || (row.kind !== COLLECTION && !(await this.inScope(row, session)))) throw notFound();
    return row;
  }

  private async inScope(row: PlanRow, session: SessionContext): Promise<boolean> {
    if ((await scopeOf(this.db, session)).all) return true;
    const devs = row.devs as PlanCreate['devs'];
    const target = devs.itemType === PLAN_ITEM_TYPES.meter ? 'meter' : 'dcu';
    try {
      await this.resolve(session, target, devs.devList);
      return true;
    } catch {
      return false;
    }
  }

  private async requireButton(session: SessionContext, operation: OperationName): Promise<void> {
    const uris = await permittedUris(this.db, session.userId);
    if (!uris.has(OPERATIONS[operation].resource)) throw forbidden();
  }

  /** The devices named, within the caller's grid scope; any other answers 400 `deviceNotFound` naming them. */
  private async resolve(session: SessionContext, target: DeviceKind, keys: readonly string[]): Promise<PlanDevice[]> {
    const unique = [...new Set(keys.map((k) => k.trim()))];
    if (unique.length > MAX_BATCH_DEVICES) throw fieldError(RESULT.badRequest, 'devs.devList', 'batchTooLarge');
    const scope = await scopeOf(this.db, session);
    const lowered = unique.map((k) => k.toLowerCase());
    const devices: PlanDevice[] =
      target === 'meter'
        ? (
            await this.db
              .select({
                key: meter.devAddr,
                meterId: meter.id,
                dcuId: meter.dcuId,
                meterTypeId: meter.meterTypeId,
                dcuNo: dcu.dcuNo,
                gridId: meter.gridId,
                protectedConsumer: sql<boolean>`coalesce(${consumer.protected}, false)`,
                hasConsumer: sql<boolean>`(${consumer.id} is not null and ${gridScope(scope, consumer.gridId) ?? sql`true`})`,
              })
              .from(meter)
              .leftJoin(dcu, eq(dcu.id, meter.dcuId))
              .leftJoin(poc, eq(poc.meterId, meter.id))
              .leftJoin(consumer, eq(consumer.id, poc.consumerId))
              .where(and(inArray(sql`lower(${meter.devAddr})`, lowered), gridScope(scope, meter.gridId)))
          ).map((r) => ({
            kind: 'meter' as const,
            key: r.key,
            viaDcu: r.dcuNo,
            meterId: r.meterId,
            dcuId: r.dcuId,
            gridId: r.gridId,
            protectedConsumer: r.protectedConsumer === true,
            hasConsumer: r.hasConsumer === true,
            meterTypeId: r.meterTypeId,
          }))
        : (
            await this.db
              .select({ key: dcu.dcuNo, dcuId: dcu.id, gridId: dcu.gridId })
              .from(dcu)
              .where(and(inArray(sql`lower(${dcu.dcuNo})`, lowered), gridScope(scope, dcu.gridId)))
          ).map((r) => ({
            kind: 'dcu' as const,
            key: r.key,
            viaDcu: null,
            meterId: null,
            dcuId: r.dcuId,
            gridId: r.gridId,
            protectedConsumer: false,
            hasConsumer: true,
            meterTypeId: null,
          }));
    const found = new Set(devices.map((d) => d.key.toLowerCase()));
    const missing = unique.filter((k) => !found.has(k.toLowerCase()));
    if (missing.length) throw new ApiError(RESULT.badRequest, 'deviceNotFound', { devices: missing });
    return devices;
  }

  /** A parameter template is for one meter type: meters of another are refused, named. */
  private async refuseOtherMeterTypes(devices: readonly PlanDevice[], params: unknown): Promise<void> {
    const { templateId } = params as { templateId: string };
    const template = await this.templates.paramTemplate(templateId);
    const others = devices.filter((d) => d.meterTypeId !== template?.meterTypeId).map((d) => d.key);
    if (others.length) throw new ApiError(RESULT.badRequest, 'paramTemplateMeterType', { devices: others });
  }

  private async executing(devices: readonly PlanDevice[], operation: CommandOperation): Promise<string[]> {
    const rows = await this.db
      .selectDistinct({ key: deviceCommand.deviceKey })
      .from(deviceCommand)
      .where(
        and(
          inArray(deviceCommand.state, ['queued', 'sent']),
          eq(deviceCommand.operation, operation),
          eq(deviceCommand.deviceKind, devices[0]?.kind ?? 'meter'),
          inArray(
            deviceCommand.deviceKey,
            devices.map((d) => d.key),
          ),
        ),
      );
    return rows.map((r) => r.key);
  }

  /**
   * Whether a disconnect of these meters waits for approval: it is over the threshold alone, or with the
   * meters disconnected without approval within the window, by anyone (a split batch, or several users
   * together), each meter once whichever relay and however often. Approved disconnects were vetted and
   * do not count. The lock makes counting and queueing one step for every server on the database, so
   * concurrent disconnects cannot each pass under the threshold.
   */
  private async passesThreshold(tx: Tx, devices: readonly PlanDevice[]): Promise<boolean> {
    const threshold = this.config.disconnectApprovalThreshold;
    if (devices.length > threshold) return true;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('disconnect approval window'))`);
    const meterIds = devices.flatMap((d) => (d.meterId ? [d.meterId] : []));
    const [recent] = await tx
      .select({ n: countDistinct(deviceCommand.meterId) })
      .from(deviceCommand)
      .leftJoin(plan, eq(plan.id, deviceCommand.planId))
      .where(
        and(
          isDisconnect(deviceCommand.operation),
          gt(deviceCommand.createTime, sql`now() - make_interval(mins => ${this.config.disconnectWindowMinutes})`),
          or(isNull(plan.id), isNull(plan.approvedBy)),
          notInArray(deviceCommand.meterId, meterIds),
        ),
      );
    return (recent?.n ?? 0) + devices.length > threshold;
  }

  /** The job that reports each answer to the requester; the head-end sends whether or not it runs. */
  private async startReporting(row: PlanRow, startedBy: string): Promise<PlanRow> {
    const jobId = await this.jobs.send(PLAN_RUN_JOB, { planId: row.id }, { startedBy });
    const [updated] = await this.db.update(plan).set({ jobId }).where(eq(plan.id, row.id)).returning();
    return updated ?? row;
  }
}

export const PLAN_RUN_JOB = 'plan-run';

const created = (row: PlanRow) => ({
  planid: row.id,
  planStatus: row.planStatus as PlanStatus,
  jobId: row.jobId,
});

/**
 * The one operation order of a one-shot plan on 1 to 30 devices (the plan schema also carries
 * collection tasks, which take more of both).
 */
function operationOrder(body: PlanCreate): PlanCreate['orders'][number] & { cmd: OperationName } {
  if (body.orders.length > 1) throw fieldError(RESULT.badRequest, 'orders', 'tooLong');
  const [order] = body.orders;
  if (!order) throw fieldError(RESULT.badRequest, 'orders', 'mandatory');
  // Collection reads belong to tasks (the schema takes no tariff push or firmware step at all).
  if (order.cmd === COLLECT_CMD) throw fieldError(RESULT.badRequest, 'orders.0.cmd', 'invalidValue');
  if (body.devs.devList.length === 0) throw fieldError(RESULT.badRequest, 'devs.devList', 'mandatory');
  if (body.devs.devList.length > MAX_BATCH_DEVICES)
    throw fieldError(RESULT.badRequest, 'devs.devList', 'batchTooLarge');
  return { ...order, cmd: order.cmd };
}

function parseParams(operation: OperationName, params: unknown): unknown {
  const result = (OPERATIONS[operation].params as z.ZodType).safeParse(params);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const path = ['orders', '0', 'params', ...(issue?.path ?? []).map(String)].join('.');
  throw fieldError(RESULT.badRequest, path, (issue?.message ?? 'invalidValue') as never);
}

/** Spec §5: the consumer and the meter must exist (a meter in the warehouse supplies nobody). */
function refuseWithoutConsumer(devices: readonly PlanDevice[]): void {
  const orphaned = devices.filter((d) => !d.hasConsumer).map((d) => d.key);
  if (orphaned.length) throw new ApiError(RESULT.badRequest, 'consumerNotFound', { devices: orphaned });
}

function refuseProtected(devices: readonly PlanDevice[]): void {
  const protectedMeters = devices.filter((d) => d.protectedConsumer).map((d) => d.key);
  if (protectedMeters.length) throw new ApiError(RESULT.badRequest, 'consumerProtected', { devices: protectedMeters });
}

function commandOf(
  device: PlanDevice,
  c: {
    planId: string;
    operation: CommandOperation;
    command: NewCommand['command'];
    priority: number;
    bulk: boolean;
    timeout: number;
    requestedBy: string;
    notBefore?: Date | undefined;
    extraWaitSeconds?: number;
    /** Devices of the plan: each may take its turn on the DCU before this one. */
    devices: number;
  },
): NewCommand {
  return {
    planId: c.planId,
    deviceKind: device.kind,
    deviceKey: device.key,
    viaDcu: device.viaDcu,
    meterId: device.meterId,
    dcuId: device.dcuId,
    gridId: device.gridId,
    operation: c.operation,
    command: c.command,
    priority: c.priority,
    bulk: c.bulk,
    timeoutSeconds: c.timeout,
    expiresInSeconds:
      waitSeconds(c.devices, c.timeout) +
      (c.extraWaitSeconds ?? 0) +
      (c.notBefore ? Math.max(0, (c.notBefore.getTime() - Date.now()) / 1000) : 0),
    waitOnline: false,
    maxTimeoutRetries: TIMEOUT_RETRIES,
    maxBusyRetries: 3,
    requestedBy: c.requestedBy,
    audited: true,
    ...(c.notBefore ? { notBefore: c.notBefore } : {}),
  };
}

interface AnswerItem {
  obis: string;
  code?: CommandRecord['resultCode'];
  value?: unknown;
}
const answerItems = (row: CommandRow): AnswerItem[] => (row.answer as { items?: AnswerItem[] } | null)?.items ?? [];
