import { createServer, type Server } from 'node:net';
import type { Duplex } from 'node:stream';
import { Aedes, type AedesPublishPacket, type Client } from 'aedes';
import type { FastifyBaseLogger } from 'fastify';
import mqtt from 'mqtt';
import type { SessionsEnded } from '../auth/session';

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

export type MessageHandler = (topic: string, payload: Buffer) => void;

export interface Broker {
  kind: 'embedded' | 'external';
  publish(topic: string, payload: unknown, options?: { retain?: boolean }): Promise<void>;
  /**
   * Server code (the head-end, later) hears what is published on `topicFilter` (`+`/`#` allowed).
   * Resolves once subscribed; the function it gives back stops listening.
   */
  subscribe(topicFilter: string, handler: MessageHandler): Promise<() => Promise<void>>;
  /** Embedded only: a browser's WebSocket, already authenticated by its session, joins the broker. */
  acceptBrowser?(stream: Duplex, session: BrowserSession, policy: BrowserPolicy): void;
  /** Embedded only: closes at once the browser connections of sessions that just ended. */
  endBrowserSessions?(ended: SessionsEnded): void;
  /** Embedded only: the sessions that have a browser connected. */
  browserSessions?(): string[];
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

const refuse = (returnCode: number, message: string) => Object.assign(new Error(message), { returnCode }) as never;

export async function startEmbeddedBroker(options: EmbeddedOptions): Promise<Broker> {
  // Browser streams whose MQTT CONNECT has not arrived yet, then the connected browser clients.
  const pending = new Map<object, BrowserLink>();
  const browsers = new Map<Client, BrowserLink>();
  const aedes = await Aedes.createBroker({
    authenticate: (client, _username, _password, done) => {
      // Devices arrive with the simulator issue; until then only browsers, vouched for by their session, connect.
      const link = pending.get(client.conn);
      if (!link) return done(refuse(5, 'not authorised'), false);
      pending.delete(client.conn);
      // A client id belongs to the session that first used it: another session may not take it over.
      const holder = (aedes as unknown as { clients: Record<string, Client | undefined> }).clients[client.id];
      const holderLink = holder ? browsers.get(holder) : undefined;
      if (holder && holderLink?.session.tokenHash !== link.session.tokenHash) {
        return done(refuse(2, 'client id in use'), false);
      }
      browsers.set(client, link);
      done(null, true);
    },
    authorizeSubscribe: (client, subscription, done) => {
      const link = client ? browsers.get(client) : undefined;
      // A refused subscription is negated (SUBACK 128); the connection itself stays up.
      const answer = (allowed: boolean) => done(null, allowed ? subscription : (null as never));
      if (!link) return answer(false);
      link.policy.maySubscribe(link.session, subscription.topic).then(answer, (err: unknown) => {
        options.log.warn({ err }, 'browser subscription check failed');
        answer(false);
      });
    },
    authorizePublish: (client, _packet, done) => {
      if (client && browsers.has(client)) done(new Error('browsers do not publish'));
      else done(null);
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
    subscribe: async (topicFilter, handler) => {
      const deliver = (packet: AedesPublishPacket, done: () => void) => {
        try {
          handler(packet.topic, Buffer.from(packet.payload));
        } finally {
          done();
        }
      };
      await new Promise<void>((resolve) => aedes.subscribe(topicFilter, deliver, resolve));
      return () => new Promise<void>((resolve) => aedes.unsubscribe(topicFilter, deliver, resolve));
    },
    acceptBrowser: (stream, session, policy) => {
      pending.set(stream, { session, policy });
      stream.once('close', () => pending.delete(stream));
      aedes.handle(stream as never);
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
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
}

/** A broker the operator runs (Mosquitto, EMQX). Browsers reach it at MQTT_WS_URL, under its own ACL. */
export async function connectExternalBroker(url: string): Promise<Broker> {
  const client = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 2000, connectTimeout: 10_000 });
  const listeners = new Set<{ filter: string; handler: MessageHandler }>();
  client.on('message', (topic, payload) => {
    for (const l of listeners) if (topicMatches(l.filter, topic)) l.handler(topic, payload);
  });
  return {
    kind: 'external',
    tcpPort: null,
    publish: async (topic, payload, publishOptions) => {
      await client.publishAsync(topic, JSON.stringify(payload), { qos: 0, retain: publishOptions?.retain ?? false });
    },
    subscribe: async (filter, handler) => {
      const listener = { filter, handler };
      listeners.add(listener);
      await client.subscribeAsync(filter, { qos: 0 });
      return async () => {
        listeners.delete(listener);
        if (![...listeners].some((l) => l.filter === filter)) await client.unsubscribeAsync(filter);
      };
    },
    close: () => client.endAsync(),
  };
}
