import { type DeviceEvent, deviceTopic, type FleetCredentials } from '@meterdesk/contracts';
import mqtt, { type MqttClient } from 'mqtt';
import type { Device } from './device';
import { draw, PURPOSE } from './random';
import type { Scheduler } from './scheduler';
import type { Counters } from './stats';
import { StatusWave } from './status-wave';

export type Log = (level: 'info' | 'warn', message: string) => void;

export const topicOf = (d: Device, channel: 'status' | 'heartbeat' | 'reply' | 'event' | 'cmd' | 'data') =>
  deviceTopic(d.kind, d.id, channel);

/** A connection to the broker: a DCU's (its meters speak through it) or a direct meter's. */
export interface Link {
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

export interface LinkOptions {
  url: string;
  seed: number;
  log: Log;
  scheduler: Scheduler;
  counters: Counters;
  /** A message on a topic the link subscribed to: a command for one of its devices. */
  onCommand(link: Link, topic: string, payload: Buffer): void;
}

/** The fleet's connections to the broker, and what goes out on them. */
export class LinkRegistry {
  readonly all: Link[] = [];
  /** Resolves once every link whose owner is online is connected and has said so. */
  readonly ready: Promise<void>;
  private resolveReady: () => void = () => {};
  private readonly linkOf = new Map<Device, Link>();
  private readonly corked = new Set<MqttClient>();
  private readonly meterStatuses: StatusWave<Link>;
  private stopped = false;

  constructor(private readonly options: LinkOptions) {
    this.ready = new Promise<void>((resolve) => {
      this.resolveReady = resolve;
    });
    this.meterStatuses = new StatusWave(options.scheduler, (links) => {
      for (const link of links) {
        if (!link.connected) continue;
        link.statusesOut = true;
        for (const m of link.meters) this.publishStatus(m);
      }
      this.resolveIfReady();
    });
  }

  add(owner: Device, meters: Device[], credentials: FleetCredentials | undefined): void {
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
    this.all.push(link);
    for (const d of [owner, ...meters]) this.linkOf.set(d, link);
  }

  /** The link a device speaks through: its own, or its DCU's. */
  of(d: Device): Link {
    return this.linkOf.get(d)!;
  }

  reachable(d: Device): boolean {
    const link = this.of(d);
    return d.online && link.owner.online && link.connected;
  }

  get connectedCount(): number {
    return this.all.filter((l) => l.connected).length;
  }

  publish(link: Link, topic: string, payload: unknown, options: { retain?: boolean; qos?: 0 | 1 } = {}): boolean {
    const client = link.client;
    if (!client || !link.connected) return false;
    if (!this.corked.has(client) && client.stream) {
      client.stream.cork();
      this.corked.add(client);
      // Publishes made outside a batch of jobs (message handlers, connects) go out at the end of this turn.
      queueMicrotask(() => {
        if (this.corked.delete(client)) client.stream?.uncork();
      });
    }
    client.publish(topic, JSON.stringify(payload), { qos: options.qos ?? 1, retain: options.retain ?? false });
    return true;
  }

  /** Sends what the publishes since the last call wrote, one write per connection. */
  uncork(): void {
    for (const client of this.corked) client.stream?.uncork();
    this.corked.clear();
  }

  publishStatus(d: Device): void {
    const status = { online: d.online, time: new Date().toISOString() };
    if (this.publish(this.of(d), topicOf(d, 'status'), status, { retain: true })) this.options.counters.statuses++;
  }

  /** Sends an event if the device can be heard; one it cannot is not sent at all. */
  publishEvent(d: Device, event: DeviceEvent): void {
    if (!this.reachable(d)) return;
    if (this.publish(this.of(d), topicOf(d, 'event'), event)) this.options.counters.events++;
  }

  /** An event the device keeps for its connection when that is not up yet (a power-up while its DCU reconnects). */
  publishEventOrHold(d: Device, event: DeviceEvent): void {
    if (this.reachable(d)) this.publishEvent(d, event);
    else this.of(d).held.push({ device: d, event });
  }

  open(link: Link): void {
    if (this.stopped || link.client) return;
    const { url, seed, log, counters } = this.options;
    const owner = link.owner;
    const generation = ++link.generation;
    const clientId = link.credentials?.username ?? `${owner.kind}-${owner.id}`;
    const client = mqtt.connect(url, {
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
        counters.connects++;
        this.publishStatus(owner);
        this.meterStatuses.join(link);
        for (const { device, event } of link.held.splice(0)) this.publishEvent(device, event);
        if (!first && owner.kind === 'dcu') log('info', `${owner.id} reconnected`);
        this.resolveIfReady();
      });
    });
    client.on('message', (topic, payload) => {
      if (link.generation === generation) this.options.onCommand(link, topic, payload);
    });
    client.on('close', () => {
      if (link.generation !== generation) return;
      if (link.connected) counters.connectionLosses++;
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

  async close(link: Link): Promise<void> {
    const client = link.client;
    link.client = null;
    link.connected = false;
    link.statusesOut = false;
    link.generation++;
    if (client) await client.endAsync().catch(() => {});
  }

  resolveIfReady(): void {
    if (this.all.every((l) => (l.connected && l.statusesOut) || !l.owner.online)) this.resolveReady();
  }

  /** Closes every link for good; `ready` resolves, for whoever still waits on it. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // Leaving on purpose: say so, rather than leave the broker to find out from the last will.
    for (const link of this.all) {
      if (!link.connected) continue;
      this.publish(
        link,
        topicOf(link.owner, 'status'),
        { online: false, time: new Date().toISOString() },
        { retain: true },
      );
    }
    await Promise.all(this.all.map((link) => this.close(link)));
    this.resolveReady();
  }
}
