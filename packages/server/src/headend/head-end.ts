import { EventEmitter } from 'node:events';
import {
  type CommandOperation,
  type DeviceKind,
  DeviceReplySchema,
  DeviceStatusSchema,
  deviceTopic,
  parseDeviceTopic,
  RESULT_CODES,
  type ResultCode,
} from '@meterdesk/contracts';
import { and, eq, getTableColumns, inArray, lte, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { writeLog } from '../audit/audit.repository';
import { afterCommit } from '../db/ambient';
import type { Db, Executor } from '../db/driver';
import { newId } from '../db/ids';
import { deviceCommand, deviceLink, plan } from '../db/schema';
import type { Broker } from '../mqtt/broker';
import type { StoredCommand } from './commands';
import { DcuHeartbeats } from './heartbeats';
import { ImageBlocks } from './image-blocks';

export type CommandRow = typeof deviceCommand.$inferSelect;

export interface HeadEndOptions {
  /** Commands in flight at once on one DCU (or direct meter connection). */
  routeConcurrency: number;
  /** How often time-outs and delayed retries are looked at. */
  tickMs: number;
  /** Pause before a busy (91) device is asked again. */
  busyPauseMs: number;
  /** Pause before the first retry after a time-out (99); doubled for each further one. */
  timeoutBackoffMs: number;
}

export const DEFAULT_HEADEND_OPTIONS: HeadEndOptions = {
  routeConcurrency: 4,
  tickMs: 1000,
  busyPauseMs: 5000,
  timeoutBackoffMs: 5000,
};

/** A command to queue; the head-end gives it its reqId. */
export interface NewCommand {
  planId: string | null;
  /** A collection run's read (its own key; the run, not the head-end, says when the run is over). */
  runId?: string;
  deviceKind: DeviceKind;
  deviceKey: string;
  /** The DCU a meter hangs off; null for a DCU or a direct meter. */
  viaDcu: string | null;
  meterId: string | null;
  dcuId: string | null;
  gridId: string | null;
  operation: CommandOperation;
  command: StoredCommand;
  priority: number;
  bulk: boolean;
  /** At most this many of the commands sharing its run in flight on its route at once (a task's concurrency). */
  routeLimit?: number;
  timeoutSeconds: number;
  /** How long the command may wait to be sent (offline, queued behind others) before it fails. */
  expiresInSeconds: number;
  /** Offline when due: wait for the device to come online (until it expires) instead of failing 90. */
  waitOnline: boolean;
  maxTimeoutRetries: number;
  maxBusyRetries: number;
  requestedBy: string;
  audited: boolean;
  /** Sent no earlier than this (a staggered batch). */
  notBefore?: Date;
}

/** A device that came online or went offline, at the time `device_link` says it changed. */
export interface LinkChange {
  kind: DeviceKind;
  key: string;
  online: boolean;
  at: Date;
}

/** Why a device message was refused; counted, logged, never acted on. */
export type RefusedReason = 'malformed' | 'unknownReqId' | 'foreignDevice' | 'duplicate';

const routeOf = (kind: DeviceKind, key: string, viaDcu: string | null) => (viaDcu ? `dcu:${viaDcu}` : `${kind}:${key}`);
const { answer: _answer, ...WITHOUT_ANSWER } = getTableColumns(deviceCommand);
const linkKey = (kind: string, key: string) => `${kind}:${key}`;
const runRoute = (runId: string, route: string) => `run:${runId}:${route}`;
const QUEUE_BATCH = 200;

/**
 * The only code that sends device commands. Commands are rows of `device_command` first; the
 * dispatcher claims due ones (priority first, a limit per DCU, the last slot of a DCU kept for one-off
 * commands), marks them sent and only then publishes; replies are matched by reqId; time-outs, busy
 * answers and offline devices are retried within each command's bounds. Everything lives in the
 * database, so a restart resumes where it stopped: a command marked sent is never published again
 * for that attempt, and one whose answer was lost times out and is retried or closed with 99.
 */
export class HeadEnd {
  private readonly events = new EventEmitter();
  private readonly unsubscribe: (() => Promise<void>)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private stopped = true;
  private readonly heartbeats: DcuHeartbeats;
  private readonly images: ImageBlocks;
  readonly refused: Record<RefusedReason, number> = { malformed: 0, unknownReqId: 0, foreignDevice: 0, duplicate: 0 };

  constructor(
    private readonly db: Db,
    private readonly broker: Broker,
    private readonly log: FastifyBaseLogger,
    private readonly options: HeadEndOptions = DEFAULT_HEADEND_OPTIONS,
  ) {
    this.events.setMaxListeners(0);
    this.heartbeats = new DcuHeartbeats(db, broker, log);
    this.images = new ImageBlocks(db);
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe.push(
      await this.broker.subscribe('ami/+/+/reply', (topic, payload) => this.guard(this.onReply(topic, payload))),
      await this.broker.subscribe('ami/+/+/status', (topic, payload) => this.guard(this.onStatus(topic, payload))),
    );
    await this.heartbeats.start();
    this.timer = setInterval(() => this.guard(this.tick()), this.options.tickMs);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const stop of this.unsubscribe.splice(0)) await stop();
    await this.heartbeats.stop();
    await this.pumping;
  }

  /** Calls `listener` with each command that reaches its final result (in this instance). */
  onDone(listener: (row: CommandRow) => void): () => void {
    this.events.on('done', listener);
    return () => this.events.off('done', listener);
  }

  /** Calls `listener` with each change of a device's communication status, as `device_link` records it. */
  onLinkChange(listener: (change: LinkChange) => void): () => void {
    this.events.on('link', listener);
    return () => this.events.off('link', listener);
  }

  /** Queues commands within the caller's transaction; call `kick()` after it commits. */
  async enqueue(tx: Executor, commands: readonly NewCommand[]): Promise<CommandRow[]> {
    if (!commands.length) return [];
    return tx
      .insert(deviceCommand)
      .values(
        commands.map((c) => ({
          id: newId(),
          reqId: newId(),
          planId: c.planId,
          runId: c.runId ?? null,
          deviceKind: c.deviceKind,
          deviceKey: c.deviceKey,
          route: routeOf(c.deviceKind, c.deviceKey, c.viaDcu),
          meterId: c.meterId,
          dcuId: c.dcuId,
          gridId: c.gridId,
          operation: c.operation,
          command: c.command,
          priority: c.priority,
          bulk: c.bulk,
          routeLimit: c.routeLimit ?? null,
          notBefore: c.notBefore ?? sql`now()`,
          expiresAt: sql`now() + make_interval(secs => ${c.expiresInSeconds})`,
          waitOnline: c.waitOnline,
          timeoutSeconds: c.timeoutSeconds,
          maxTimeoutRetries: c.maxTimeoutRetries,
          maxBusyRetries: c.maxBusyRetries,
          requestedBy: c.requestedBy,
          audited: c.audited,
        })),
      )
      .onConflictDoNothing()
      .returning();
  }

  /** Whether devices answer now: a meter behind a DCU needs its DCU online too. Unknown is offline. */
  async onlineStates(devices: readonly { kind: DeviceKind; key: string; viaDcu: string | null }[]) {
    const keys = new Set<string>();
    for (const d of devices) {
      keys.add(linkKey(d.kind, d.key));
      if (d.viaDcu) keys.add(linkKey('dcu', d.viaDcu));
    }
    const online = await this.onlineSet([...keys]);
    return new Map(
      devices.map((d) => [
        linkKey(d.kind, d.key),
        online.has(linkKey(d.kind, d.key)) && (!d.viaDcu || online.has(linkKey('dcu', d.viaDcu))),
      ]),
    );
  }

  private async onlineSet(keys: readonly string[]): Promise<Set<string>> {
    const byKind = new Map<string, string[]>();
    for (const key of keys) {
      const at = key.indexOf(':');
      byKind.set(key.slice(0, at), [...(byKind.get(key.slice(0, at)) ?? []), key.slice(at + 1)]);
    }
    if (!byKind.size) return new Set();
    const rows = await this.db
      .select({ kind: deviceLink.deviceKind, key: deviceLink.deviceKey })
      .from(deviceLink)
      .where(
        and(
          eq(deviceLink.online, true),
          or(
            ...[...byKind].map(([kind, list]) =>
              and(eq(deviceLink.deviceKind, kind), inArray(deviceLink.deviceKey, list)),
            ),
          ),
        ),
      );
    return new Set(rows.map((r) => linkKey(r.kind, r.key)));
  }

  /**
   * Dispatch soon: something was queued, a slot freed or a device came online. Within a request's
   * transaction, once it commits: before, the commands it queued are not there for the dispatch to read.
   */
  kick(): void {
    void afterCommit(() => this.dispatchSoon());
  }

  private dispatchSoon(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
    });
  }

  private guard(work: Promise<unknown>): void {
    work.catch((err: unknown) => this.log.error({ err }, 'head-end'));
  }

  private async pump(): Promise<void> {
    do {
      this.pumpAgain = false;
      if (this.stopped) return;
      // Only what dispatching decides on: the rows claimed come back whole from the claim, and a
      // run's thousands of queued reads are read here again on every kick.
      const due = await this.db
        .select(DUE_FIELDS)
        .from(deviceCommand)
        .where(and(eq(deviceCommand.state, 'queued'), lte(deviceCommand.notBefore, sql`now()`)))
        // One-off commands ahead of bulk ones of the same priority: a run's thousands of queued reads
        // would otherwise fill every batch read here and keep an operator's command out of sight.
        .orderBy(sql`${deviceCommand.priority} desc`, deviceCommand.bulk, deviceCommand.notBefore, deviceCommand.id)
        .limit(QUEUE_BATCH);
      if (!due.length) return;
      const sent = await this.db
        .select({ route: deviceCommand.route, runId: deviceCommand.runId, n: sql<number>`count(*)::int` })
        .from(deviceCommand)
        .where(eq(deviceCommand.state, 'sent'))
        .groupBy(deviceCommand.route, deviceCommand.runId);
      const inFlight = new Map<string, number>();
      for (const r of sent) {
        inFlight.set(r.route, (inFlight.get(r.route) ?? 0) + Number(r.n));
        if (r.runId) inFlight.set(runRoute(r.runId, r.route), Number(r.n));
      }
      const online = await this.onlineStates(due.map(dueDevice));
      const picked: DueRow[] = [];
      const offline: DueRow[] = [];
      for (const row of due) {
        if (!online.get(linkKey(row.deviceKind, row.deviceKey))) {
          offline.push(row);
          continue;
        }
        const busy = inFlight.get(row.route) ?? 0;
        const limit = this.options.routeConcurrency - (row.bulk && this.options.routeConcurrency > 1 ? 1 : 0);
        if (busy >= limit) continue;
        const ownKey = row.runId && row.routeLimit ? runRoute(row.runId, row.route) : null;
        const own = ownKey ? (inFlight.get(ownKey) ?? 0) : 0;
        if (ownKey && own >= (row.routeLimit ?? 0)) continue;
        inFlight.set(row.route, busy + 1);
        if (ownKey) inFlight.set(ownKey, own + 1);
        picked.push(row);
      }
      await this.park(offline);
      const claimed = await this.claim(picked.map((r) => r.id));
      // Not awaited: a broker that is slow to confirm one delivery must not hold up the next dispatch;
      // a command whose publish failed is marked sent already and its deadline retries it.
      for (const row of claimed) void this.publish(row);
      if (claimed.length && due.length === QUEUE_BATCH) this.pumpAgain = true;
    } while (this.pumpAgain);
  }

  /** Offline devices: those that may wait sleep until their device comes online; the rest end with 90. */
  private async park(rows: readonly DueRow[]): Promise<void> {
    const waiting = rows.filter((r) => r.waitOnline).map((r) => r.id);
    if (waiting.length)
      await this.db
        .update(deviceCommand)
        .set({ notBefore: deviceCommand.expiresAt })
        .where(and(inArray(deviceCommand.id, waiting), eq(deviceCommand.state, 'queued')));
    for (const row of rows.filter((r) => !r.waitOnline))
      await this.finish(row.id, RESULT_CODES.offline, null, ['queued']);
  }

  /** Marks commands sent for their next attempt, before anything is published. */
  private claim(ids: readonly string[]): Promise<CommandRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.db
      .update(deviceCommand)
      .set({
        state: 'sent',
        attempt: sql`${deviceCommand.attempt} + 1`,
        sentAt: sql`now()`,
        deadline: sql`now() + make_interval(secs => ${deviceCommand.timeoutSeconds})`,
        attempts: sql`${deviceCommand.attempts} || jsonb_build_array(jsonb_build_object('attempt', ${deviceCommand.attempt} + 1, 'sentAt', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'code', null, 'at', null))`,
      })
      .where(and(inArray(deviceCommand.id, [...ids]), eq(deviceCommand.state, 'queued')))
      .returning();
  }

  private async publish(row: CommandRow): Promise<void> {
    const stored = row.command as StoredCommand;
    const now = new Date().toISOString();
    let items = stored.systemClock ? stored.items.map((item) => ({ ...item, value: now })) : stored.items;
    try {
      if (stored.image) items = await this.images.fill(items, stored.image);
    } catch (err) {
      // As an unsent command: its deadline passes and the time-out rules retry it.
      this.log.warn({ err, reqId: row.reqId }, 'head-end: image blocks not read');
      return;
    }
    const message = {
      reqId: row.reqId,
      attempt: row.attempt,
      op: stored.op,
      items,
      ...(stored.frame ? { frame: stored.frame } : {}),
      deadline: (row.deadline ?? new Date()).toISOString(),
    };
    try {
      await this.broker.publish(deviceTopic(row.deviceKind as DeviceKind, row.deviceKey, 'cmd'), message);
    } catch (err) {
      // Unsent but marked sent: its deadline passes and the time-out rules retry it; nothing goes twice.
      this.log.warn({ err, reqId: row.reqId }, 'head-end: command not published');
    }
  }

  private async onReply(topic: string, payload: Buffer): Promise<void> {
    const device = parseDeviceTopic(topic);
    const parsed = device ? parseJson(payload, DeviceReplySchema) : null;
    if (!device || !parsed) return this.refuse('malformed', topic);
    const [row] = await this.db.select().from(deviceCommand).where(eq(deviceCommand.reqId, parsed.reqId));
    if (!row) return this.refuse('unknownReqId', topic, parsed.reqId);
    if (row.deviceKind !== device.kind || row.deviceKey !== device.key)
      return this.refuse('foreignDevice', topic, parsed.reqId);
    if (row.state === 'done') return this.refuse('duplicate', topic, parsed.reqId);
    const answer = { items: parsed.items ?? [], ...(parsed.frame ? { frame: parsed.frame } : {}) };
    if (parsed.code === RESULT_CODES.busy && row.attempt <= row.maxBusyRetries) {
      await this.retryLater(row.id, RESULT_CODES.busy, this.options.busyPauseMs, ['sent', 'queued']);
      return;
    }
    await this.finish(row.id, parsed.code, answer, ['sent', 'queued']);
  }

  private refuse(reason: RefusedReason, topic: string, reqId?: string): void {
    this.refused[reason]++;
    this.log.warn({ topic, reqId, reason }, 'head-end: device message refused');
  }

  private async onStatus(topic: string, payload: Buffer): Promise<void> {
    const device = parseDeviceTopic(topic);
    const status = device ? parseJson(payload, DeviceStatusSchema) : null;
    if (!device || !status) return this.refuse('malformed', topic);
    const [link] = await this.db
      .insert(deviceLink)
      .values({ deviceKind: device.kind, deviceKey: device.key, online: status.online })
      .onConflictDoUpdate({
        target: [deviceLink.deviceKind, deviceLink.deviceKey],
        set: {
          online: status.online,
          lastSeen: sql`now()`,
          changedAt: sql`case when ${deviceLink.online} = ${status.online} then ${deviceLink.changedAt} else now() end`,
        },
      })
      // changed_at is now() (the statement's time) exactly when this message changed the state or first told it.
      .returning({ changedAt: deviceLink.changedAt, changed: sql<boolean>`${deviceLink.changedAt} = now()` });
    if (link?.changed)
      this.events.emit('link', { kind: device.kind, key: device.key, online: status.online, at: link.changedAt });
    if (!status.online) return;
    // Commands that waited for this device (or, for a DCU, any of its meters) are due again.
    const route = routeOf(device.kind, device.key, null);
    const woken = await this.db
      .update(deviceCommand)
      .set({ notBefore: sql`now()` })
      .where(
        and(
          eq(deviceCommand.state, 'queued'),
          eq(deviceCommand.waitOnline, true),
          sql`(${deviceCommand.route} = ${route} or (${deviceCommand.deviceKind} = ${device.kind} and ${deviceCommand.deviceKey} = ${device.key}))`,
        ),
      )
      .returning({ id: deviceCommand.id });
    if (woken.length) this.kick();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    await this.expire();
    await this.timeOut();
    this.kick();
  }

  /** Sent commands past their deadline: retried with back-off while they may be, else 99. */
  private async timeOut(): Promise<void> {
    const late = await this.db
      .select()
      .from(deviceCommand)
      .where(and(eq(deviceCommand.state, 'sent'), lte(deviceCommand.deadline, sql`now()`)))
      .limit(QUEUE_BATCH);
    for (const row of late) {
      if (row.attempt <= row.maxTimeoutRetries) {
        const backoff = this.options.timeoutBackoffMs * 2 ** (row.attempt - 1);
        await this.retryLater(row.id, RESULT_CODES.timeout, backoff, ['sent']);
      } else await this.finish(row.id, RESULT_CODES.timeout, null, ['sent']);
    }
  }

  /** Queued commands that could not be sent in time: 90 for one that waited for its device, else 50. */
  private async expire(): Promise<void> {
    const stale = await this.db
      .select({ id: deviceCommand.id, waitOnline: deviceCommand.waitOnline })
      .from(deviceCommand)
      .where(and(eq(deviceCommand.state, 'queued'), lte(deviceCommand.expiresAt, sql`now()`)))
      .limit(QUEUE_BATCH);
    for (const row of stale)
      await this.finish(row.id, row.waitOnline ? RESULT_CODES.offline : RESULT_CODES.serverTimeout, null, ['queued']);
  }

  private async retryLater(id: string, code: ResultCode, delayMs: number, from: readonly string[]): Promise<void> {
    await this.db
      .update(deviceCommand)
      .set({
        state: 'queued',
        notBefore: sql`now() + make_interval(secs => ${delayMs / 1000})`,
        attempts: closeAttempt(code),
      })
      .where(and(eq(deviceCommand.id, id), inArray(deviceCommand.state, [...from])));
  }

  private async finish(id: string, code: ResultCode, answer: unknown, from: readonly string[]): Promise<void> {
    const [returned] = await this.db
      .update(deviceCommand)
      .set({
        state: 'done',
        resultCode: code,
        answer,
        answerTime: sql`now()`,
        attempts: closeAttempt(code),
      })
      .where(and(eq(deviceCommand.id, id), inArray(deviceCommand.state, [...from])))
      .returning(WITHOUT_ANSWER);
    if (!returned) return;
    // The answer as given, not read back: a month of a meter's profile is a third of a megabyte of JSON.
    const row: CommandRow = { ...returned, answer: (answer ?? null) as CommandRow['answer'] };
    // Before the plan's end: whoever sees the plan finished finds each answer's entry.
    if (row.audited)
      await writeLog(this.db, {
        logType: 'operation',
        actor: 'device',
        username: row.deviceKey,
        operatingType: 'other',
        content: JSON.stringify({
          operation: row.operation,
          planId: row.planId,
          reqId: row.reqId,
          requestedBy: row.requestedBy,
          resultCode: code,
          attempts: row.attempt,
        }),
        result: code === RESULT_CODES.success ? 200 : 500,
        requestUrl: deviceTopic(row.deviceKind as DeviceKind, row.deviceKey, 'reply'),
      });
    if (row.planId)
      await this.db
        .update(plan)
        .set({ planStatus: 'finished', updateTime: sql`now()` })
        .where(
          and(
            eq(plan.id, row.planId),
            eq(plan.planStatus, 'executing'),
            sql`not exists (select 1 from ${deviceCommand} where ${deviceCommand.planId} = ${row.planId} and ${deviceCommand.state} <> 'done')`,
          ),
        );
    this.events.emit('done', row);
    this.kick();
  }
}

/** The columns the dispatcher decides on for a queued command. */
const DUE_FIELDS = {
  id: deviceCommand.id,
  deviceKind: deviceCommand.deviceKind,
  deviceKey: deviceCommand.deviceKey,
  route: deviceCommand.route,
  runId: deviceCommand.runId,
  routeLimit: deviceCommand.routeLimit,
  bulk: deviceCommand.bulk,
  waitOnline: deviceCommand.waitOnline,
};
type DueRow = Pick<CommandRow, keyof typeof DUE_FIELDS>;

const dueDevice = (row: Pick<CommandRow, 'deviceKind' | 'deviceKey' | 'route'>) => ({
  kind: row.deviceKind as DeviceKind,
  key: row.deviceKey,
  viaDcu: row.route.startsWith('dcu:') && row.deviceKind === 'meter' ? row.route.slice(4) : null,
});

/** The open attempt (the last, if it has no code yet) gets its code and time. */
const closeAttempt = (code: ResultCode) =>
  sql`case when jsonb_array_length(${deviceCommand.attempts}) > 0 and (${deviceCommand.attempts} -> -1 ->> 'code') is null
    then jsonb_set(${deviceCommand.attempts}, array[(jsonb_array_length(${deviceCommand.attempts}) - 1)::text],
      (${deviceCommand.attempts} -> -1) || jsonb_build_object('code', ${code}::text, 'at', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
    else ${deviceCommand.attempts} end`;

function parseJson<T>(payload: Buffer, schema: { safeParse(v: unknown): { success: boolean; data?: T } }): T | null {
  try {
    const result = schema.safeParse(JSON.parse(payload.toString('utf8')));
    return result.success ? (result.data as T) : null;
  } catch {
    return null;
  }
}
