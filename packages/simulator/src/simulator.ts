import {
  ACCOUNT_PAYMENT_MODES,
  type DeviceCommand,
  DeviceCommandSchema,
  type DeviceEvent,
  type DeviceKind,
  type DeviceReply,
  deviceTopic,
  type Fleet,
  type FleetCredentials,
  type FleetMeter,
  OBIS,
  parseDeviceTopic,
  RESULT_CODES,
  type ResultCode,
} from '@meterdesk/contracts';
import mqtt, { type MqttClient } from 'mqtt';
import {
  Device,
  type ExecutionContext,
  executeCommand,
  type Faults,
  firmwareFor,
  frozenReadings,
  pushesAt,
  wellFormed,
} from './device';
import { DAY_MS, meterModel } from './energy';
import { EVENT, makeEvent, spontaneousEvents } from './events';
import { DEFAULT_KNOBS, type Knobs, latencyFrom } from './knobs';
import { draw, hashString, PURPOSE } from './random';
import { Scheduler } from './scheduler';

export type Log = (level: 'info' | 'warn', message: string) => void;

export interface SimulatorOptions {
  /** Broker URL, e.g. mqtt://127.0.0.1:1884. */
  url: string;
  fleet: Fleet;
  seed?: number;
  knobs?: Partial<Knobs>;
  log?: Log;
  /**
   * Counts the readings sent by key (a profile row, the values pushed for a meter at a time), so a
   * benchmark sees how many the devices sent again (`readingsSentAgain`). Holds every key sent: for
   * benchmarks, not a simulator left running for days.
   */
  countReadings?: boolean;
}

export interface SimulatorStats {
  /** Command messages that reached a device's connection. */
  received: number;
  /** Distinct (reqId, attempt) pairs received. */
  receivedUnique: number;
  /** A (reqId, attempt) received again: the head-end sent the same attempt twice. */
  duplicateSends: number;
  /** Distinct reqIds executed, and executions of a reqId already executed (must stay 0). */
  executed: number;
  executedTwice: number;
  /** A reqId already executed (or executing) asked again: answered from the stored reply. */
  replayed: number;
  repliesSent: number;
  repliesByCode: Partial<Record<ResultCode, number>>;
  /** Not JSON, or no reqId to answer to. */
  malformed: number;
  wrongFormat: number;
  busy: number;
  /** Ignored because the device is offline or silent. */
  silent: number;
  droppedCommands: number;
  droppedReplies: number;
  /** Past their deadline when they arrived. */
  expired: number;
  events: number;
  /** Readings pushed on `…/data` at the meters' transfer times. */
  pushedReadings: number;
  /** With `countReadings`: profile rows answered and pushed rows sent, and those whose key had been sent before. */
  readingsSent: number;
  readingsSentAgain: number;
  heartbeats: number;
  statuses: number;
  connects: number;
  connectionLosses: number;
  devices: { dcus: number; meters: number };
  online: { dcus: number; meters: number };
  connected: number;
  /** Commands being executed now. */
  inFlight: number;
}

export interface DeviceHandle {
  kind: DeviceKind;
  key: string;
  setFault(faults: Partial<Faults>): void;
  /** Takes the device off the network (status offline, silence) or brings it back; overrides the knobs. */
  setOnline(online: boolean): void;
  /** DCUs and direct meters: the connection breaks without a goodbye, so the broker publishes the last will. */
  dropConnection(): void;
  /** Moves the device's clock this many seconds off true time (drift continues from there). */
  setClockOffset(seconds: number): void;
  emitEvent(code: number, data?: Record<string, unknown>): void;
  /** Meters: pushes the values frozen at the last midnight now, as at its transfer time. */
  pushNow(): void;
  state(): DeviceSnapshot;
}

export interface DeviceSnapshot {
  online: boolean;
  /** False during a blackout (`setPower`). */
  powered: boolean;
  reachable: boolean;
  mainRelay: number;
  externalRelay: number;
  paymentMode: number;
  clock: string;
  clockOffsetSec: number;
  firmware: string;
  capturePeriodSec: number;
  captureObjects: string[];
  pushSchedule: unknown;
  dcuParameters: Record<string, unknown>;
  taskParameters: Record<string, unknown>;
  blacklist: string[];
  faults: Faults;
}

export interface Simulator {
  /** Resolves once every device that starts online is connected and has said so. */
  ready: Promise<void>;
  stats(): SimulatorStats;
  /** How many times a reqId was executed (0 or 1 when all is well). */
  executions(reqId: string): number;
  /** Every remembered reqId with its executions, for a benchmark that checks nothing was lost or run twice. */
  executedReqIds(): Record<string, number>;
  device(key: string): DeviceHandle;
  /**
   * Changes the fleet's knobs from now on: loss, latency, busy, heartbeats, clock limit, event rates
   * (which rewrite the event log's past too: it is recomputed from them). Which devices are offline,
   * flapping or drifting was drawn at start and stays.
   */
  setKnobs(knobs: Partial<Knobs>): void;
  /**
   * Blacks out devices (`powered` false: meters send their last gasp and go offline, DCUs go offline
   * with their power-down) or restores them (power-up, back online). Answers how many changed and how
   * many keys the fleet does not hold.
   */
  setPower(keys: readonly string[], powered: boolean): { changed: number; unknown: number };
  stop(): Promise<void>;
}

/** A connection to the broker: a DCU's (its meters speak through it) or a direct meter's. */
interface Link {
  owner: Device;
  meters: Device[];
  credentials: FleetCredentials | undefined;
  client: MqttClient | null;
  connected: boolean;
  everConnected: boolean;
  heartbeats: number;
  lastError: string | null;
  /** Its meters' statuses went out since it last connected. */
  statusesOut: boolean;
  /** Events its devices raised while it was away, published once connected again. */
  held: { device: Device; event: DeviceEvent }[];
  /** Bumped whenever the link is replaced, so a late callback of an old client does nothing. */
  generation: number;
}

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

const TICK_MS = 1000;
const CLOCK_CHECK_MS = 60_000;
const HOUR_MS = 3_600_000;
const SETTLE_MS = 300;
const SETTLE_MAX_MS = 10_000;

export function startSimulator(options: SimulatorOptions): Simulator {
  const seed = options.seed ?? 1;
  const knobs: Knobs = { ...DEFAULT_KNOBS, ...options.knobs };
  const log: Log = options.log ?? (() => {});
  const broker = new URL(options.url);
  const devices = new Map<string, Device>();
  const byTopicKey = new Map<string, Device>();
  const links: Link[] = [];
  const linkOf = new Map<Device, Link>();
  const commands = new Map<string, CommandRecord>();
  const receipts = new Map<string, number>();
  const executions = new Map<string, number>();
  const readingKeys = options.countReadings ? new Set<string>() : null;
  const corked = new Set<MqttClient>();
  let stopped = false;

  const stats: Omit<SimulatorStats, 'devices' | 'online' | 'connected' | 'inFlight' | 'receivedUnique'> = {
    received: 0,
    duplicateSends: 0,
    executed: 0,
    executedTwice: 0,
    replayed: 0,
    repliesSent: 0,
    repliesByCode: {},
    malformed: 0,
    wrongFormat: 0,
    busy: 0,
    silent: 0,
    droppedCommands: 0,
    droppedReplies: 0,
    expired: 0,
    events: 0,
    pushedReadings: 0,
    readingsSent: 0,
    readingsSentAgain: 0,
    heartbeats: 0,
    statuses: 0,
    connects: 0,
    connectionLosses: 0,
  };
  let inFlight = 0;

  // Publishes made in one batch of due jobs leave in one write per connection.
  const scheduler = new Scheduler(() => {
    for (const client of corked) client.stream?.uncork();
    corked.clear();
  });

  function addDevice(kind: DeviceKind, id: string, meter: FleetMeter | null): Device {
    const hash = hashString(id);
    const device = new Device(kind, id, hash, meter ? meterModel(seed, id, meter.wiring) : null);
    device.baseOffline = draw(seed, hash, PURPOSE.offline) < knobs.offline;
    device.flapping = !device.baseOffline && draw(seed, hash, PURPOSE.flapping) < knobs.flapping;
    device.firmware = firmwareFor(kind, draw(seed, hash, PURPOSE.firmware));
    if (meter?.prepaid) device.paymentMode = ACCOUNT_PAYMENT_MODES.prepayment;
    const drift = knobs.driftSecPerDay;
    device.clockOffsetMs = (2 * draw(seed, hash, PURPOSE.drift) - 1) * drift * 10_000;
    device.driftPerMs = ((2 * draw(seed, hash, PURPOSE.drift, 1) - 1) * drift * 1000) / DAY_MS;
    if (kind === 'dcu') {
      // Shaped like the head-end's DcuParametersSchema and DcuTaskParametersSchema (contracts operations).
      device.dcuParameters = {
        heartbeatSeconds: knobs.heartbeatSec,
        reportPeriodMinutes: 60,
        masterStationIp: broker.hostname,
        masterStationPort: Number(broker.port || 1883),
      };
      device.taskParameters = {
        enabled: true,
        taskGroup: 1,
        collectPeriodMinutes: 15,
        reportPeriodMinutes: 60,
        start: '00:00',
        end: '23:59',
        maxSupplementDays: 3,
      };
    }
    if (devices.has(id)) throw new Error(`the fleet names ${id} twice`);
    devices.set(id, device);
    byTopicKey.set(`${kind}/${id}`, device);
    device.online = onlineAt(device, Date.now());
    return device;
  }

  function onlineAt(device: Device, now: number): boolean {
    if (!device.powered) return false;
    if (device.forcedOnline !== null) return device.forcedOnline;
    if (device.baseOffline || device.rebooting) return false;
    if (!device.flapping) return true;
    const period = knobs.flapPeriodSec * 1000;
    const phase = draw(seed, device.hash, PURPOSE.flapPhase) * period;
    const spell = Math.floor((now + phase) / period);
    return draw(seed, device.hash, PURPOSE.flapState, spell) >= 0.4;
  }

  function addLink(owner: Device, meters: Device[], credentials: FleetCredentials | undefined) {
    const link: Link = {
      owner,
      meters,
      credentials,
      client: null,
      connected: false,
      everConnected: false,
      heartbeats: 0,
      lastError: null,
      statusesOut: false,
      held: [],
      generation: 0,
    };
    links.push(link);
    for (const d of [owner, ...meters]) linkOf.set(d, link);
  }
  for (const dcu of options.fleet.dcus) {
    const owner = addDevice('dcu', dcu.dcuNo, null);
    const meters = dcu.meters.map((m) => addDevice('meter', m.devAddr, m));
    addLink(owner, meters, dcu.credentials);
  }
  for (const direct of options.fleet.direct)
    addLink(addDevice('meter', direct.devAddr, direct), [], direct.credentials);

  const topicOf = (d: Device, channel: 'status' | 'heartbeat' | 'reply' | 'event' | 'cmd' | 'data') =>
    deviceTopic(d.kind, d.id, channel);

  function reachable(d: Device): boolean {
    const link = linkOf.get(d)!;
    return d.online && link.owner.online && link.connected;
  }

  function publish(link: Link, topic: string, payload: unknown, options: { retain?: boolean; qos?: 0 | 1 } = {}) {
    const client = link.client;
    if (!client || !link.connected) return false;
    if (!corked.has(client) && client.stream) {
      client.stream.cork();
      corked.add(client);
      // Publishes made outside a batch of jobs (message handlers, connects) go out at the end of this turn.
      queueMicrotask(() => {
        if (corked.delete(client)) client.stream?.uncork();
      });
    }
    client.publish(topic, JSON.stringify(payload), { qos: options.qos ?? 1, retain: options.retain ?? false });
    return true;
  }

  function publishStatus(d: Device) {
    const link = linkOf.get(d)!;
    if (publish(link, topicOf(d, 'status'), { online: d.online, time: new Date().toISOString() }, { retain: true })) {
      stats.statuses++;
    }
  }

  function emit(d: Device, event: DeviceEvent, keep = true) {
    if (keep) d.record(event);
    if (!reachable(d)) return;
    if (publish(linkOf.get(d)!, topicOf(d, 'event'), event)) stats.events++;
  }

  /** An event the device keeps for its connection when that is not up yet (a power-up while its DCU reconnects). */
  function emitOrHold(d: Device, event: DeviceEvent) {
    d.record(event);
    if (reachable(d)) emit(d, event, false);
    else linkOf.get(d)!.held.push({ device: d, event });
  }

  /**
   * A blackout and its end: a meter losing supply sends its last gasp (power-down) and goes offline;
   * a DCU goes offline with its own power-down. Meters go first, so their last gasps leave through
   * their DCU before it goes; DCUs come back first, and a meter's power-up waits for its connection.
   * Keys the fleet does not hold are counted, not refused (a device added to the archive since).
   * Restoring a device that has supply changes nothing but announces its power-up again.
   */
  function setPower(keys: readonly string[], powered: boolean): { changed: number; unknown: number } {
    const targets: Device[] = [];
    let unknown = 0;
    for (const key of new Set(keys)) {
      const d = devices.get(key);
      if (d) targets.push(d);
      else unknown++;
    }
    const dcusFirst = (a: Device, b: Device) => (a.kind === b.kind ? 0 : a.kind === 'dcu' ? -1 : 1);
    targets.sort(powered ? dcusFirst : (a, b) => -dcusFirst(a, b));
    let changed = 0;
    for (const d of targets) {
      const now = Date.now();
      if (d.powered === powered) {
        // Told to restore a device that has supply (this simulator started while the back-office still
        // records the blackout it was told of before): it says so, which ends the outage there.
        if (powered) emitOrHold(d, makeEvent(d.kind === 'dcu' ? EVENT.dcuPowerUp : EVENT.powerUp, d.deviceTime(now)));
        continue;
      }
      changed++;
      if (!powered && d.kind === 'meter') emit(d, makeEvent(EVENT.powerDown, d.deviceTime(now)));
      d.powered = powered;
      applyOnline(d, onlineAt(d, now));
      if (powered && d.kind === 'meter') emitOrHold(d, makeEvent(EVENT.powerUp, d.deviceTime(now)));
    }
    return { changed, unknown };
  }

  // ---- connections

  function openLink(link: Link) {
    if (stopped || link.client) return;
    const owner = link.owner;
    const generation = ++link.generation;
    const clientId = link.credentials?.username ?? `${owner.kind}-${owner.id}`;
    const client = mqtt.connect(options.url, {
      protocolVersion: 4,
      clean: true,
      clientId,
      ...(link.credentials ? { username: link.credentials.username, password: link.credentials.password } : {}),
      keepalive: 30,
      resubscribe: false,
      // Spread out, so a hundred DCUs do not knock on a restarted broker in the same millisecond.
      reconnectPeriod: 1000 + Math.floor(draw(seed, owner.hash, PURPOSE.heartbeat, 99) * 1000),
      connectTimeout: 10_000,
      // A login refused (a restarting server's broker answers "Server unavailable") is tried again, as
      // a device does; mqtt.js otherwise stops reconnecting for good.
      reconnectOnConnackError: true,
      will: {
        topic: topicOf(owner, 'status'),
        payload: Buffer.from(JSON.stringify({ online: false })),
        qos: 1,
        retain: true,
      },
    });
    link.client = client;
    client.on('connect', () => {
      if (link.generation !== generation) return;
      const topics = [owner, ...link.meters].map((d) => topicOf(d, 'cmd'));
      client.subscribe(topics, { qos: 1 }, (err, granted) => {
        if (err || link.generation !== generation) {
          if (err) log('warn', `${owner.id}: subscribe failed: ${err.message}`);
          return;
        }
        // A broker's ACL refuses a topic with SUBACK 128: that device will never hear its commands.
        const refused = (granted ?? []).filter((g) => g.qos === 128).map((g) => g.topic);
        if (refused.length > 0) log('warn', `${owner.id}: the broker refused ${refused.join(', ')}`);
        const first = !link.everConnected;
        link.lastError = null;
        link.connected = true;
        link.everConnected = true;
        stats.connects++;
        publishStatus(owner);
        holdMeterStatuses(link);
        for (const { device, event } of link.held.splice(0)) emit(device, event, false);
        if (!first && owner.kind === 'dcu') log('info', `${owner.id} reconnected`);
        resolveIfReady();
      });
    });
    client.on('message', (topic, payload) => {
      if (link.generation === generation) onCommand(link, topic, payload);
    });
    client.on('close', () => {
      if (link.generation !== generation) return;
      if (link.connected) stats.connectionLosses++;
      link.connected = false;
      link.statusesOut = false;
    });
    client.on('error', (err) => {
      // A refused login is retried like a real device would, but said once, not every second.
      if (link.generation !== generation || link.lastError === err.message) return;
      link.lastError = err.message;
      log('warn', `${owner.id}: ${err.message}`);
    });
  }

  async function closeLink(link: Link) {
    const client = link.client;
    link.client = null;
    link.connected = false;
    link.statusesOut = false;
    link.generation++;
    if (client) await client.endAsync().catch(() => {});
  }

  /** Applies a change of a device's online state: statuses, connections, the events a DCU raises. */
  function applyOnline(d: Device, online: boolean) {
    if (d.online === online) return;
    const link = linkOf.get(d)!;
    if (link.owner !== d) {
      d.online = online;
      publishStatus(d);
      return;
    }
    const now = Date.now();
    if (!online) {
      if (d.kind === 'dcu') emit(d, makeEvent(EVENT.dcuPowerDown, d.deviceTime(now)));
      d.online = false;
      publishStatus(d);
      void closeLink(link);
    } else {
      d.online = true;
      openLink(link);
      if (d.kind === 'dcu') emitOrHold(d, makeEvent(EVENT.dcuPowerUp, d.deviceTime(now)));
    }
  }

  /*
   * Aedes (its in-memory store) answers each new subscription by scanning every retained message.
   * When a hundred DCUs (re)connect together, each subscribing to its hundred meters, retained meter
   * statuses published in between would make that quadratic: 10,000 meters took minutes to start.
   * So the meters' statuses wait until the connections have settled, and go out together.
   */
  const awaitingStatuses = new Set<Link>();
  let waveStarted = 0;
  let lastConnect = 0;
  let waveArmed = false;
  function holdMeterStatuses(link: Link) {
    const now = Date.now();
    awaitingStatuses.add(link);
    lastConnect = now;
    if (waveArmed) return;
    waveArmed = true;
    waveStarted = now;
    scheduler.after(SETTLE_MS, releaseMeterStatuses);
  }
  function releaseMeterStatuses() {
    const due = Math.min(lastConnect + SETTLE_MS, waveStarted + SETTLE_MAX_MS);
    if (Date.now() < due) {
      scheduler.at(due, releaseMeterStatuses);
      return;
    }
    waveArmed = false;
    for (const link of awaitingStatuses) {
      if (!link.connected) continue;
      link.statusesOut = true;
      for (const m of link.meters) publishStatus(m);
    }
    awaitingStatuses.clear();
    resolveIfReady();
  }

  // ---- commands

  function remember<V>(map: Map<string, V>, key: string, value: V) {
    map.set(key, value);
    if (map.size > knobs.rememberedCommands) {
      // Forget the oldest tenth at once, so trimming is rare.
      let n = Math.ceil(knobs.rememberedCommands / 10);
      for (const k of map.keys()) {
        if (n-- <= 0) break;
        map.delete(k);
      }
    }
  }

  const latencyOf = (d: Device, reqHash: number, attempt: number) =>
    d.faults.latencyMs ?? latencyFrom(knobs.latency, draw(seed, reqHash, PURPOSE.latency, attempt));

  function sendReply(d: Device, reply: DeviceReply, reqHash: number, attempt: number) {
    if (!reachable(d) || d.faults.silent) {
      stats.silent++;
      return;
    }
    if (knobs.loss > 0 && draw(seed, reqHash, PURPOSE.replyLoss, attempt) < knobs.loss) {
      stats.droppedReplies++;
      return;
    }
    const now = Date.now();
    if (publish(linkOf.get(d)!, topicOf(d, 'reply'), { ...reply, time: new Date(d.deviceTime(now)).toISOString() })) {
      stats.repliesSent++;
      stats.repliesByCode[reply.code] = (stats.repliesByCode[reply.code] ?? 0) + 1;
      if (readingKeys)
        for (const item of reply.items ?? [])
          if (Array.isArray(item.value))
            for (const row of item.value as { ts?: unknown; values?: unknown }[])
              if (row.values && typeof row.ts === 'string') countSent(d.id, item.obis, row.ts);
    }
  }

  function countSent(meter: string, source: string, ts: string) {
    if (!readingKeys) return;
    stats.readingsSent++;
    const key = `${meter}\u0000${source}\u0000${ts}`;
    if (readingKeys.has(key)) stats.readingsSentAgain++;
    else readingKeys.add(key);
  }

  function answerLater(d: Device, reply: DeviceReply, reqHash: number, attempt: number, delay: number) {
    scheduler.after(delay, () => sendReply(d, reply, reqHash, attempt));
  }

  function onCommand(link: Link, topic: string, payload: Buffer) {
    const parsed = parseDeviceTopic(topic);
    const d = parsed && parsed.channel === 'cmd' ? byTopicKey.get(`${parsed.kind}/${parsed.key}`) : undefined;
    if (!d || linkOf.get(d) !== link) return;
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
    const seen = receipts.get(receipt) ?? 0;
    if (seen > 0) stats.duplicateSends++;
    remember(receipts, receipt, seen + 1);

    if (!reachable(d) || d.faults.silent) {
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
    const delay = latencyOf(d, reqHash, attempt);
    const command = DeviceCommandSchema.safeParse(raw);
    if (!command.success || !wellFormed(d, command.data)) {
      stats.wrongFormat++;
      answerLater(d, { reqId, code: RESULT_CODES.wrongFormat }, reqHash, attempt, delay);
      return;
    }
    const cmd = command.data;
    if (Date.parse(cmd.deadline) < Date.now()) {
      stats.expired++;
      return;
    }
    const key = `${d.kind}/${d.id}/${reqId}`;
    const record = knobs.dedupe ? commands.get(key) : undefined;
    if (record) {
      stats.replayed++;
      if (record.running) record.waiters.push(attempt);
      else if (record.reply) answerLater(d, record.reply, reqHash, attempt, delay);
      else if (record.readAgain) {
        const again = record.readAgain;
        scheduler.after(delay, () => sendReply(d, execute(d, again), reqHash, attempt));
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
      answerLater(d, { reqId, code: RESULT_CODES.busy }, reqHash, attempt, d.faults.latencyMs ?? quick);
      return;
    }
    const running: CommandRecord = { running: true, reply: null, readAgain: null, waiters: [attempt] };
    remember(commands, key, running);
    d.executing++;
    inFlight++;
    scheduler.after(delay, () => {
      d.executing--;
      inFlight--;
      const count = (executions.get(reqId) ?? 0) + 1;
      remember(executions, reqId, count);
      if (count > 1) stats.executedTwice++;
      else stats.executed++;
      const reply = execute(d, cmd);
      running.running = false;
      const long = reply.items?.some((i) => Array.isArray(i.value) && i.value.length > LONG_READ_ROWS);
      if (cmd.op === 'get' && long) running.readAgain = cmd;
      else running.reply = reply;
      for (const waiter of running.waiters) sendReply(d, reply, reqHash, waiter);
      running.waiters = [];
      if (cmd.op === 'reboot') reboot(d);
    });
  }

  const context = (now: number): ExecutionContext => ({
    now,
    emit: (device, event) => emit(device, event),
    clockLimitMs: knobs.clockLimitSec * 1000,
    eventLog,
  });

  const execute = (d: Device, cmd: DeviceCommand): DeviceReply => executeCommand(d, cmd, context(Date.now()));

  function reboot(d: Device) {
    d.rebooting = true;
    applyOnline(d, onlineAt(d, Date.now()));
    scheduler.after(knobs.rebootSec * 1000, () => {
      d.rebooting = false;
      applyOnline(d, onlineAt(d, Date.now()));
    });
  }

  function eventLog(d: Device, fromMs: number, toMs: number): DeviceEvent[] {
    const own = spontaneousEvents(seed, d.hash, d.kind, fromMs, Math.min(toMs, Date.now()), knobs);
    const kept = d.log.filter((e) => {
      const t = Date.parse(e.time);
      return t >= fromMs && t <= toMs;
    });
    return [...own, ...kept].sort((a, b) => a.time.localeCompare(b.time));
  }

  // ---- the fleet's clockwork: one scheduler for heartbeats, flapping, clocks and spontaneous events

  function heartbeat(link: Link) {
    const owner = link.owner;
    const n = link.heartbeats++;
    // A DCU's own parameters, once set, say how often it beats.
    const own = owner.dcuParameters.heartbeatSeconds;
    const period = (typeof own === 'number' && own > 0 ? own : knobs.heartbeatSec) * 1000;
    const next = period * (0.9 + 0.2 * draw(seed, owner.hash, PURPOSE.heartbeat, n));
    scheduler.after(next, () => {
      if (
        reachable(owner) &&
        publish(
          link,
          topicOf(owner, 'heartbeat'),
          { time: new Date(owner.deviceTime(Date.now())).toISOString() },
          { qos: 0 },
        )
      ) {
        stats.heartbeats++;
      }
      heartbeat(link);
    });
  }

  const flappers = [...devices.values()].filter((d) => d.flapping);
  function flapTick() {
    const now = Date.now();
    for (const d of flappers) applyOnline(d, onlineAt(d, now));
    scheduler.after(TICK_MS, flapTick);
  }

  function checkClock(d: Device, now: number) {
    if (d.clockInvalid || Math.abs(d.clockOffsetAt(now)) <= knobs.clockLimitSec * 1000) return;
    d.clockInvalid = true;
    emit(
      d,
      makeEvent(EVENT.clockInvalid, d.deviceTime(now), { deviationSec: Math.round(d.clockOffsetAt(now) / 1000) }),
    );
  }
  function clockTick() {
    const now = Date.now();
    for (const d of devices.values()) checkClock(d, now);
    scheduler.after(CLOCK_CHECK_MS, clockTick);
  }

  /** Schedules the spontaneous events of every device for the rest of the hour, then for the next. */
  function eventHour(fromMs: number) {
    const hourEnd = (Math.floor(fromMs / HOUR_MS) + 1) * HOUR_MS;
    if (knobs.powerOutagesPerDay > 0 || knobs.coverOpensPerDay > 0) {
      for (const d of devices.values()) {
        for (const event of spontaneousEvents(seed, d.hash, d.kind, fromMs, hourEnd - 1, knobs)) {
          scheduler.at(Date.parse(event.time), () => emit(d, event, false));
        }
      }
    }
    scheduler.at(hourEnd, () => eventHour(hourEnd));
  }

  /** Meters behind a DCU push through it in one batch on the DCU's own data topic. */
  function push(link: Link, meters: Device[], now: number) {
    const rows = meters.filter(reachable).map((m) => frozenReadings(m, now));
    const readings = rows.flat();
    if (readings.length > 0 && publish(link, topicOf(link.owner, 'data'), readings)) {
      stats.pushedReadings += readings.length;
      // A meter's push is its daily frozen row, as a read of the daily profile answers it.
      for (const [first] of rows) if (first) countSent(first.meter, OBIS.dailyProfile, first.ts);
    }
  }

  function pushTick() {
    const now = Date.now();
    const hhmm = new Date(now).toISOString().slice(11, 16);
    for (const link of links) {
      const due = (link.owner.model ? [link.owner] : link.meters).filter((m) => pushesAt(m, hhmm));
      if (due.length > 0) push(link, due, now);
    }
    scheduler.at((Math.floor(now / 60_000) + 1) * 60_000, pushTick);
  }

  // ---- start

  let resolveReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    resolveReady = resolve;
  });
  function resolveIfReady() {
    if (links.every((l) => (l.connected && l.statusesOut) || !l.owner.online)) resolveReady();
  }

  for (const link of links) {
    if (link.owner.online) openLink(link);
    heartbeat(link);
  }
  resolveIfReady();
  flapTick();
  clockTick();
  eventHour(Date.now());
  scheduler.at((Math.floor(Date.now() / 60_000) + 1) * 60_000, pushTick);

  function handle(key: string): DeviceHandle {
    const d = devices.get(key);
    if (!d) throw new Error(`no device ${key} in the fleet`);
    return {
      kind: d.kind,
      key: d.id,
      setFault(faults) {
        d.faults = { ...d.faults, ...faults };
      },
      setOnline(online) {
        d.forcedOnline = online;
        applyOnline(d, onlineAt(d, Date.now()));
      },
      dropConnection() {
        const link = linkOf.get(d)!;
        if (link.owner !== d) throw new Error(`${key} speaks through its DCU and has no connection of its own`);
        link.client?.stream?.destroy();
      },
      setClockOffset(seconds) {
        const now = Date.now();
        d.setClock(now, now + seconds * 1000);
        d.clockInvalid = false;
        checkClock(d, now);
      },
      emitEvent(code, data) {
        emit(d, makeEvent(code, d.deviceTime(Date.now()), data));
      },
      pushNow() {
        if (!d.model) throw new Error(`${key} is a DCU: its meters push`);
        push(linkOf.get(d)!, [d], Date.now());
      },
      state() {
        const now = Date.now();
        return {
          online: d.online,
          powered: d.powered,
          reachable: reachable(d),
          mainRelay: d.mainRelay,
          externalRelay: d.externalRelay,
          paymentMode: d.paymentMode,
          clock: new Date(d.deviceTime(now)).toISOString(),
          clockOffsetSec: d.clockOffsetAt(now) / 1000,
          firmware: d.firmware,
          capturePeriodSec: d.capturePeriodSec,
          captureObjects: [...d.captureObjects],
          pushSchedule: d.pushSchedule,
          dcuParameters: { ...d.dcuParameters },
          taskParameters: { ...d.taskParameters },
          blacklist: [...d.blacklist],
          faults: { ...d.faults },
        };
      },
    };
  }

  return {
    ready,
    stats() {
      const online = { dcus: 0, meters: 0 };
      const count = { dcus: 0, meters: 0 };
      for (const d of devices.values()) {
        const bucket = d.kind === 'dcu' ? 'dcus' : 'meters';
        count[bucket]++;
        if (reachable(d)) online[bucket]++;
      }
      return {
        ...stats,
        repliesByCode: { ...stats.repliesByCode },
        receivedUnique: receipts.size,
        devices: count,
        online,
        connected: links.filter((l) => l.connected).length,
        inFlight,
      };
    },
    executions: (reqId) => executions.get(reqId) ?? 0,
    executedReqIds: () => Object.fromEntries(executions),
    device: handle,
    setKnobs(changes) {
      Object.assign(knobs, changes);
    },
    setPower,
    async stop() {
      if (stopped) return;
      stopped = true;
      scheduler.stop();
      // Leaving on purpose: say so, rather than leave the broker to find out from the last will.
      for (const link of links) {
        if (!link.connected) continue;
        publish(
          link,
          topicOf(link.owner, 'status'),
          { online: false, time: new Date().toISOString() },
          { retain: true },
        );
      }
      await Promise.all(links.map(closeLink));
      resolveReady();
    },
  };
}
