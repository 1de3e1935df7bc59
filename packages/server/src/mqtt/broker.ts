import { createServer, type Server } from 'node:net';
import type { Duplex } from 'node:stream';
import { Aedes, type AedesPublishPacket, type AuthenticateHandler, type Client } from 'aedes';
import type { FastifyBaseLogger } from 'fastify';
import mqtt from 'mqtt';
import type { SessionsEnded } from '../auth/session';
import type { DeviceIdentity, DevicePolicy } from './device-policy';
import { retainedByTopic } from './retained';

/** The session a browser's broker connection belongs to; the connection ends with it. */
export interface BrowserSession {
  tokenHash: string;
  userId: string;
  username: string;
}

/** Decides a browser's subscriptions (mqtt/browser.routes.ts builds it from the topic table in contracts). */
export interface BrowserPolicy {
  maySubscribe(session: BrowserSession, topic: string): Promise<boolean>;
}

/**
 * Hears one message. A handler that answers a promise holds the broker's delivery until it settles:
 * the publishing device's connection waits (TCP back-pressure) instead of messages piling up in memory.
 */
export type MessageHandler = (topic: string, payload: Buffer) => unknown;

export interface SubscribeOptions {
  /**
   * A message is acknowledged only once the handler's promise has resolved (its readings stored), so
   * one the server has not stored is sent again. Embedded broker: a device's QoS 1 message is
   * acknowledged then, not on arrival as Aedes does, so a server that stops in between leaves the
   * message with the device; a rejected promise closes the device's connection without the
   * acknowledgement. Only for what devices publish: a will never reaches it. External broker: the
   * subscription is a durable session of its own (`durableSubscription`).
   */
  acknowledgeWhenHandled?: boolean;
}

export interface Broker {
  kind: 'embedded' | 'external';
  publish(topic: string, payload: unknown, options?: { retain?: boolean }): Promise<void>;
  /**
   * Server code (the head-end, later) hears what is published on `topicFilter` (`+`/`#` allowed).
   * Resolves once subscribed; the function it gives back stops listening.
   */
  subscribe(topicFilter: string, handler: MessageHandler, options?: SubscribeOptions): Promise<() => Promise<void>>;
  /** Embedded only: a browser's WebSocket, already authenticated by its session, joins the broker. */
  acceptBrowser?(stream: Duplex, session: BrowserSession, policy: BrowserPolicy): void;
  /** Embedded only: closes at once the browser connections of sessions that just ended. */
  endBrowserSessions?(ended: SessionsEnded): void;
  /** Embedded only: the sessions that have a browser connected. */
  browserSessions?(): string[];
  /** Embedded only: TCP clients log in as devices and are held to this policy (until then, all are refused). */
  admitDevices?(policy: DevicePolicy): void;
  /** The embedded broker's TCP port, when it listens. */
  tcpPort: number | null;
  close(): Promise<void>;
}

/** MQTT topic matching: `+` one level, `#` the rest. */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length || (f[i] !== '+' && f[i] !== t[i])) return false;
  }
  return f.length === t.length;
}

interface EmbeddedOptions {
  tcpPort: number | null;
  log: FastifyBaseLogger;
}

interface BrowserLink {
  session: BrowserSession;
  policy: BrowserPolicy;
}

/** The parser's payload is a buffer of its own already: a copy of a megabyte profile push costs more than its parsing. */
const payloadOf = (packet: Pick<AedesPublishPacket, 'payload'>) =>
  Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);

const refuse = (returnCode: number, message: string) => Object.assign(new Error(message), { returnCode }) as never;
type Done = Parameters<AuthenticateHandler>[3];

export async function startEmbeddedBroker(options: EmbeddedOptions): Promise<Broker> {
  // Browser streams whose MQTT CONNECT has not arrived yet, then the connected browser clients.
  const pending = new Map<object, BrowserLink>();
  const browsers = new Map<Client, BrowserLink>();
  // Set by the app (`admitDevices`); until then every TCP client is told the server is unavailable (3), so it retries.
  let devicePolicy: DevicePolicy | null = null;
  const deviceOf = new WeakMap<Client, DeviceIdentity>();
  // Handlers run before a device's publish is acknowledged (SubscribeOptions.acknowledgeWhenHandled).
  const beforeAck = new Set<{ filter: string; handler: MessageHandler }>();
  // Their payloads: the delivery that follows the acknowledgement passes them by (the buffer travels along).
  const handledBeforeAck = new WeakSet<Buffer>();
  const handleBeforeAck = (
    packet: Pick<AedesPublishPacket, 'topic' | 'payload'>,
    done: (err: Error | null) => void,
  ) => {
    const handlers = [...beforeAck].filter((l) => topicMatches(l.filter, packet.topic));
    const payload = packet.payload;
    if (!handlers.length || !Buffer.isBuffer(payload)) return done(null);
    handledBeforeAck.add(payload);
    // A handler that throws at once fails like one whose promise rejects: no acknowledgement.
    Promise.resolve()
      .then(() => Promise.all(handlers.map((l) => l.handler(packet.topic, payload))))
      .then(
        () => done(null),
        (err: unknown) => done(err instanceof Error ? err : new Error('message not handled')),
      );
  };
  // Who holds a client id: a browser's session or a device. Another holder may not take the id over.
  const holderOf = (client: Client | undefined) => {
    const link = client ? browsers.get(client) : undefined;
    const device = client ? deviceOf.get(client) : undefined;
    if (link) return `session ${link.session.tokenHash}`;
    return device ? `device ${device.kind}:${device.key}` : undefined;
  };
  const idTakenFrom = (client: Client, holder: string) => {
    const current = (aedes as unknown as { clients: Record<string, Client | undefined> }).clients[client.id];
    return current !== undefined && holderOf(current) !== holder;
  };

  const admitDevice = (client: Client, username: string | undefined, password: Buffer | undefined, done: Done) => {
    const policy = devicePolicy;
    if (!policy) return done(refuse(3, 'server starting'), false);
    policy.admit(username, password).then(
      (admission) => {
        if ('refused' in admission) return done(refuse(admission.refused, 'device refused'), false);
        const { device } = admission;
        if (idTakenFrom(client, `device ${device.kind}:${device.key}`))
          return done(refuse(2, 'client id in use'), false);
        deviceOf.set(client, device);
        done(null, true);
      },
      (err: unknown) => {
        options.log.warn({ err }, 'device admission failed');
        done(refuse(3, 'server unavailable'), false);
      },
    );
  };

  const aedes = await Aedes.createBroker({
    persistence: retainedByTopic(),
    authenticate: (client, username, password, done) => {
      // A browser arrives through /mqtt, vouched for by its session; any other connection must be a device.
      const link = pending.get(client.conn);
      if (!link) return admitDevice(client, username, password as Buffer | undefined, done);
      pending.delete(client.conn);
      if (idTakenFrom(client, `session ${link.session.tokenHash}`)) return done(refuse(2, 'client id in use'), false);
      browsers.set(client, link);
      done(null, true);
    },
    authorizeSubscribe: (client, subscription, done) => {
      const link = client ? browsers.get(client) : undefined;
      const device = client ? deviceOf.get(client) : undefined;
      // A refused subscription is negated (SUBACK 128); the connection itself stays up.
      const answer = (allowed: boolean) => done(null, allowed ? subscription : (null as never));
      const checked = link
        ? link.policy.maySubscribe(link.session, subscription.topic)
        : device && devicePolicy
          ? devicePolicy.maySubscribe(device, subscription.topic)
          : null;
      if (!checked) return answer(false);
      checked.then(answer, (err: unknown) => {
        options.log.warn({ err }, 'subscription check failed');
        answer(false);
      });
    },
    authorizePublish: (client, packet, done) => {
      // No client: a will the broker itself replays.
      if (!client) return done(null);
      if (browsers.has(client)) return done(new Error('browsers do not publish'));
      const device = deviceOf.get(client);
      const policy = devicePolicy;
      if (!device || !policy) return done(new Error('not authorised'));
      // Refused, the publish is dropped and Aedes closes the connection (MQTT 3.1.1 has no negative PUBACK).
      policy.mayPublish(device, packet.topic, packet.retain).then(
        (allowed) => {
          if (allowed) return handleBeforeAck(packet, done);
          options.log.warn({ device: `${device.kind}:${device.key}`, topic: packet.topic }, 'device publish refused');
          done(new Error('topic not the device’s'));
        },
        (err: unknown) => done(err instanceof Error ? err : new Error('publish check failed')),
      );
    },
    authorizeForward: (client, packet) => {
      const device = deviceOf.get(client);
      if (device && devicePolicy && !devicePolicy.mayReceive(device, packet.topic)) return null;
      return packet;
    },
  });
  aedes.on('clientDisconnect', (client) => browsers.delete(client));
  aedes.on('clientError', (client) => browsers.delete(client));
  const endedBy = (ended: SessionsEnded) => (link: BrowserLink) =>
    'tokenHashes' in ended ? ended.tokenHashes.includes(link.session.tokenHash) : link.session.userId === ended.userId;

  let server: Server | null = null;
  let tcpPort: number | null = null;
  if (options.tcpPort !== null) {
    const candidate = createServer(aedes.handle);
    tcpPort = await new Promise<number | null>((resolve) => {
      candidate.once('error', (err: NodeJS.ErrnoException) => {
        options.log.warn(
          { err: err.code, port: options.tcpPort },
          'embedded MQTT broker: TCP port unavailable, serving WebSocket only (set MQTT_TCP_PORT)',
        );
        resolve(null);
      });
      candidate.listen(options.tcpPort ?? 0, '127.0.0.1', () => {
        const address = candidate.address();
        resolve(typeof address === 'object' && address ? address.port : null);
      });
    });
    if (tcpPort !== null) server = candidate;
  }

  return {
    kind: 'embedded',
    tcpPort,
    publish: (topic, payload, publishOptions) =>
      new Promise((resolve, reject) =>
        aedes.publish(
          {
            cmd: 'publish',
            topic,
            payload: Buffer.from(JSON.stringify(payload)),
            qos: 0,
            retain: publishOptions?.retain ?? false,
            dup: false,
          },
          (err) => (err ? reject(err) : resolve()),
        ),
      ),
    subscribe: async (topicFilter, handler, subscribeOptions) => {
      // Handled before the acknowledgement when a device publishes; on delivery when the server does.
      const listener = { filter: topicFilter, handler, beforeAck: subscribeOptions?.acknowledgeWhenHandled === true };
      if (listener.beforeAck) beforeAck.add(listener);
      const deliver = (packet: AedesPublishPacket, done: () => void) => {
        if (listener.beforeAck && Buffer.isBuffer(packet.payload) && handledBeforeAck.has(packet.payload))
          return done();
        let handled: unknown;
        try {
          handled = handler(packet.topic, payloadOf(packet));
        } catch (err) {
          done();
          throw err;
        }
        if (handled instanceof Promise) handled.then(done, done);
        else done();
      };
      await new Promise<void>((resolve) => aedes.subscribe(topicFilter, deliver, resolve));
      return () => {
        beforeAck.delete(listener);
        return new Promise<void>((resolve) => aedes.unsubscribe(topicFilter, deliver, resolve));
      };
    },
    acceptBrowser: (stream, session, policy) => {
      pending.set(stream, { session, policy });
      stream.once('close', () => pending.delete(stream));
      aedes.handle(stream as never);
    },
    admitDevices: (policy) => {
      devicePolicy = policy;
    },
    browserSessions: () => [...new Set([...browsers.values()].map((link) => link.session.tokenHash))],
    endBrowserSessions: (ended) => {
      const matches = endedBy(ended);
      for (const [stream, link] of pending) {
        if (matches(link)) {
          pending.delete(stream);
          (stream as Duplex).destroy();
        }
      }
      for (const [client, link] of browsers) {
        if (matches(link)) {
          browsers.delete(client);
          client.close();
        }
      }
    },
    close: async () => {
      // The listener stops accepting now, but reports closed only once its connections are gone:
      // closing Aedes ends them (devices stay connected otherwise).
      const listenerClosed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await listenerClosed;
    },
  };
}

export interface ExternalBrokerOptions {
  /** The prefix of the durable sessions' client ids (config MQTT_CLIENT_ID). */
  clientId: string;
  /** Tests: closing also ends the durable sessions, so the broker keeps nothing for them. */
  endSessionsOnClose?: boolean;
}

/** A broker the operator runs (Mosquitto, EMQX). Browsers reach it at MQTT_WS_URL, under its own ACL. */
export async function connectExternalBroker(url: string, options: ExternalBrokerOptions): Promise<Broker> {
  const client = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 2000, connectTimeout: 10_000 });
  const listeners = new Set<{ filter: string; handler: MessageHandler }>();
  /** By client id: a subscription made again after a stop (a restart) is the same session. */
  const durable = new Map<string, DurableSubscription>();
  let handling: Promise<unknown>[] = [];
  client.on('message', (topic, payload) => {
    for (const l of listeners)
      if (topicMatches(l.filter, topic)) {
        const handled = l.handler(topic, payload);
        if (handled instanceof Promise) handling.push(handled);
      }
  });
  // mqtt.js reads the next packet once this calls back: a slow handler slows the subscription down.
  client.handleMessage = (_packet, callback) => {
    const waits = handling;
    handling = [];
    if (!waits.length) return callback();
    void Promise.allSettled(waits).then(() => callback());
  };
  return {
    kind: 'external',
    tcpPort: null,
    publish: async (topic, payload, publishOptions) => {
      await client.publishAsync(topic, JSON.stringify(payload), { qos: 0, retain: publishOptions?.retain ?? false });
    },
    subscribe: async (filter, handler, subscribeOptions) => {
      if (subscribeOptions?.acknowledgeWhenHandled) {
        // Stopping leaves the session on the broker, which keeps what arrives for it until the next start.
        const clientId = durableClientId(options.clientId, filter);
        const subscription = await durableSubscription(url, clientId, filter, handler);
        durable.set(clientId, subscription);
        return subscription.disconnect;
      }
      const listener = { filter, handler };
      listeners.add(listener);
      await client.subscribeAsync(filter, { qos: 0 });
      return async () => {
        listeners.delete(listener);
        if (![...listeners].some((l) => l.filter === filter)) await client.unsubscribeAsync(filter);
      };
    },
    close: async () => {
      await Promise.all([...durable.values()].map((d) => (options.endSessionsOnClose ? d.end() : d.disconnect())));
      await client.endAsync();
    },
  };
}

/** `meterdesk-server` and `ami/+/+/data`: `meterdesk-server-ami-data`. */
export const durableClientId = (prefix: string, filter: string) =>
  `${prefix}-${filter.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;

interface DurableSubscription {
  /** Stops listening; the broker keeps the session (and what arrives for it) until the next start. */
  disconnect(): Promise<void>;
  /** Ends the session: the broker forgets it and what it held. */
  end(): Promise<void>;
}

/**
 * What devices deliver, through a broker the operator runs: a session of its own (a fixed client id,
 * clean: false, QoS 1), which the broker keeps while the server is away, with what is published for
 * it meanwhile and what it has not acknowledged. Each message is acknowledged once its handler has
 * resolved; a rejected handler drops the connection without the acknowledgement, and the broker sends
 * the message again when the session reconnects. A client of its own, so what waits for the session
 * reaches its handler at once, not a server still subscribing. Messages are handled one at a time:
 * mqtt.js reads the next once this one is acknowledged.
 */
async function durableSubscription(
  url: string,
  clientId: string,
  filter: string,
  handler: MessageHandler,
): Promise<DurableSubscription> {
  const client = mqtt.connect(url, {
    protocolVersion: 4,
    clientId,
    clean: false,
    reconnectPeriod: 2000,
    connectTimeout: 10_000,
  });
  let handling: Promise<void> = Promise.resolve();
  client.handleMessage = (packet, acknowledge) => {
    handling = Promise.resolve()
      .then(() => handler(packet.topic, packet.payload as Buffer))
      .then(
        () => acknowledge(),
        () => {
          client.stream.destroy();
        },
      );
  };
  try {
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    await client.subscribeAsync(filter, { qos: 1 });
  } catch (error) {
    // A session that never started must not keep reconnecting in the background.
    client.end(true);
    throw error;
  }
  let disconnected: Promise<void> | null = null;
  // The message being handled is acknowledged before the connection ends: else the broker sends it again.
  const disconnect = () => {
    disconnected ??= handling.then(() => client.endAsync());
    return disconnected;
  };
  return {
    disconnect,
    end: async () => {
      await disconnect();
      const ending = await mqtt.connectAsync(url, { protocolVersion: 4, clientId, clean: true, reconnectPeriod: 0 });
      await ending.endAsync();
    },
  };
}
