import {
  type DeviceCommand,
  DeviceCommandSchema,
  type DeviceReply,
  parseDeviceTopic,
  RESULT_CODES,
} from '@meterdesk/contracts';
import { type Device, type ExecutionContext, executeCommand, wellFormed } from './device';
import { spontaneousEvents } from './events';
import type { FleetParts } from './fleet-parts';
import { latencyFrom } from './knobs';
import { type Link, topicOf } from './links';
import { draw, hashString, PURPOSE } from './random';

interface CommandRecord {
  running: boolean;
  reply: DeviceReply | null;
  /**
   * A long read (profile rows) keeps its command instead of its reply: asked again, it is read again,
   * which changes nothing, rather than held in memory with thousands of others.
   */
  readAgain: DeviceCommand | null;
  /** Attempts waiting for the execution under way. */
  waiters: number[];
}

const LONG_READ_ROWS = 16;

export interface CommandOptions extends FleetParts {
  /** A DCU told to reboot goes away for a while, once its reply is out. */
  reboot(d: Device): void;
  /** A device that activated a firmware image restarts into it, once its reply is out. */
  restart(d: Device): void;
}

/**
 * The commands the fleet received: each reqId executed once however often it is asked, its reply
 * remembered, and the faults and losses of the knobs applied on the way in and out.
 */
export class CommandRegistry {
  private readonly records = new Map<string, CommandRecord>();
  private readonly receipts = new Map<string, number>();
  private readonly executionCounts = new Map<string, number>();
  private running = 0;

  constructor(private readonly options: CommandOptions) {}

  /** Distinct (reqId, attempt) pairs received. */
  get receivedUnique(): number {
    return this.receipts.size;
  }

  /** Commands being executed now. */
  get inFlight(): number {
    return this.running;
  }

  executions(reqId: string): number {
    return this.executionCounts.get(reqId) ?? 0;
  }

  executedReqIds(): Record<string, number> {
    return Object.fromEntries(this.executionCounts);
  }

  receive(link: Link, topic: string, payload: Buffer): void {
    const { seed, knobs, scheduler, counters: stats, devices, links } = this.options;
    const parsed = parseDeviceTopic(topic);
    const d = parsed && parsed.channel === 'cmd' ? devices.fromTopic(parsed.kind, parsed.key) : undefined;
    if (!d || links.of(d) !== link) return;
    stats.received++;
    let raw: unknown;
    try {
      raw = JSON.parse(payload.toString('utf8'));
    } catch {
      stats.malformed++;
      return;
    }
    const body = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const reqId =
      typeof body.reqId === 'string' && body.reqId.length > 0 && body.reqId.length <= 64 ? body.reqId : null;
    if (!reqId) {
      stats.malformed++;
      return;
    }
    const attempt = Number.isInteger(body.attempt) ? (body.attempt as number) : 1;
    const receipt = `${reqId}\u0000${attempt}`;
    const seen = this.receipts.get(receipt) ?? 0;
    if (seen > 0) stats.duplicateSends++;
    this.remember(this.receipts, receipt, seen + 1);

    if (!links.reachable(d) || d.faults.silent) {
      stats.silent++;
      return;
    }
    const reqHash = hashString(reqId);
    if (d.faults.dropNext > 0) {
      d.faults = { ...d.faults, dropNext: d.faults.dropNext - 1 };
      stats.droppedCommands++;
      return;
    }
    if (knobs.loss > 0 && draw(seed, reqHash, PURPOSE.commandLoss, attempt) < knobs.loss) {
      stats.droppedCommands++;
      return;
    }
    const delay = this.latencyOf(d, reqHash, attempt);
    const command = DeviceCommandSchema.safeParse(raw);
    if (!command.success || !wellFormed(d, command.data)) {
      stats.wrongFormat++;
      this.answerLater(d, { reqId, code: RESULT_CODES.wrongFormat }, reqHash, attempt, delay);
      return;
    }
    const cmd = command.data;
    if (Date.parse(cmd.deadline) < Date.now()) {
      stats.expired++;
      return;
    }
    const key = `${d.kind}/${d.id}/${reqId}`;
    const record = knobs.dedupe ? this.records.get(key) : undefined;
    if (record) {
      stats.replayed++;
      if (record.running) record.waiters.push(attempt);
      else if (record.reply) this.answerLater(d, record.reply, reqHash, attempt, delay);
      else if (record.readAgain) {
        const again = record.readAgain;
        scheduler.after(delay, () => this.sendReply(d, this.execute(d, again), reqHash, attempt));
      }
      return;
    }
    const quick = knobs.latency.min;
    if (
      d.faults.busyNext > 0 ||
      d.executing > 0 ||
      (knobs.busy > 0 && draw(seed, reqHash, PURPOSE.busy, attempt) < knobs.busy)
    ) {
      if (d.faults.busyNext > 0) d.faults = { ...d.faults, busyNext: d.faults.busyNext - 1 };
      stats.busy++;
      this.answerLater(d, { reqId, code: RESULT_CODES.busy }, reqHash, attempt, d.faults.latencyMs ?? quick);
      return;
    }
    const running: CommandRecord = { running: true, reply: null, readAgain: null, waiters: [attempt] };
    this.remember(this.records, key, running);
    d.executing++;
    this.running++;
    scheduler.after(delay, () => {
      d.executing--;
      this.running--;
      const count = (this.executionCounts.get(reqId) ?? 0) + 1;
      this.remember(this.executionCounts, reqId, count);
      if (count > 1) stats.executedTwice++;
      else stats.executed++;
      const reply = this.execute(d, cmd);
      running.running = false;
      const long = reply.items?.some((i) => Array.isArray(i.value) && i.value.length > LONG_READ_ROWS);
      if (cmd.op === 'get' && long) running.readAgain = cmd;
      else running.reply = reply;
      for (const waiter of running.waiters) this.sendReply(d, reply, reqHash, waiter);
      running.waiters = [];
      if (cmd.op === 'reboot') this.options.reboot(d);
      if (d.restartAfterReply) {
        d.restartAfterReply = false;
        this.options.restart(d);
      }
    });
  }

  private execute(d: Device, cmd: DeviceCommand): DeviceReply {
    return executeCommand(d, cmd, this.context(Date.now()));
  }

  private context(now: number): ExecutionContext {
    const { seed, knobs, raise, links } = this.options;
    return {
      now,
      emit: raise,
      metersBehind: (d) => {
        const link = links.of(d);
        return link.owner === d ? link.meters.filter((m) => links.reachable(m)) : [];
      },
      broadcastLost: (m, block) =>
        knobs.imageBroadcastLoss > 0 && draw(seed, m.hash, PURPOSE.broadcastLoss, block) < knobs.imageBroadcastLoss,
      clockLimitMs: knobs.clockLimitSec * 1000,
      // What the device's event log holds: the spontaneous events recomputed, and those it recorded.
      eventLog: (d, fromMs, toMs) => {
        const own = spontaneousEvents(seed, d.hash, d.kind, fromMs, Math.min(toMs, Date.now()), knobs);
        const kept = d.log.filter((e) => {
          const t = Date.parse(e.time);
          return t >= fromMs && t <= toMs;
        });
        return [...own, ...kept].sort((a, b) => a.time.localeCompare(b.time));
      },
    };
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    const limit = this.options.knobs.rememberedCommands;
    map.set(key, value);
    if (map.size > limit) {
      // Forget the oldest tenth at once, so trimming is rare.
      let n = Math.ceil(limit / 10);
      for (const k of map.keys()) {
        if (n-- <= 0) break;
        map.delete(k);
      }
    }
  }

  private latencyOf(d: Device, reqHash: number, attempt: number): number {
    const { seed, knobs } = this.options;
    return d.faults.latencyMs ?? latencyFrom(knobs.latency, draw(seed, reqHash, PURPOSE.latency, attempt));
  }

  private answerLater(d: Device, reply: DeviceReply, reqHash: number, attempt: number, delay: number): void {
    this.options.scheduler.after(delay, () => this.sendReply(d, reply, reqHash, attempt));
  }

  private sendReply(d: Device, reply: DeviceReply, reqHash: number, attempt: number): void {
    const { seed, knobs, counters: stats, links, readings } = this.options;
    if (!links.reachable(d) || d.faults.silent) {
      stats.silent++;
      return;
    }
    if (knobs.loss > 0 && draw(seed, reqHash, PURPOSE.replyLoss, attempt) < knobs.loss) {
      stats.droppedReplies++;
      return;
    }
    const time = new Date(d.deviceTime(Date.now())).toISOString();
    if (links.publish(links.of(d), topicOf(d, 'reply'), { ...reply, time })) {
      stats.repliesSent++;
      stats.repliesByCode[reply.code] = (stats.repliesByCode[reply.code] ?? 0) + 1;
      if (readings.counting)
        for (const item of reply.items ?? [])
          if (Array.isArray(item.value))
            for (const row of item.value as { ts?: unknown; values?: unknown }[])
              if (row.values && typeof row.ts === 'string') readings.count(d.id, item.obis, row.ts);
    }
  }
}
