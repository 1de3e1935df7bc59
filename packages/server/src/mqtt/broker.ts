import { createServer, type Server } from 'node:net';
import type { Duplex } from 'node:stream';
import { noticeUnreadTopic } from '@meterdesk/contracts';
import { Aedes } from 'aedes';
import type { FastifyBaseLogger } from 'fastify';
import mqtt from 'mqtt';

export interface Broker {
  kind: 'embedded' | 'external';
  publish(topic: string, payload: unknown, options?: { retain?: boolean }): Promise<void>;
  /** Embedded only: a browser's WebSocket, already authenticated by its session, joins the broker. */
  acceptBrowser?(stream: Duplex, username: string): void;
  /** The embedded broker's TCP port, when it listens. */
  tcpPort: number | null;
  close(): Promise<void>;
}

/** A browser may subscribe to its own topics only, and publish nothing. */
export function browserMaySubscribe(username: string, topic: string): boolean {
  const own = noticeUnreadTopic(username);
  return topic === own;
}

interface EmbeddedOptions {
  tcpPort: number | null;
  log: FastifyBaseLogger;
}

export async function startEmbeddedBroker(options: EmbeddedOptions): Promise<Broker> {
  const browsers = new WeakMap<object, string>();
  const aedes = await Aedes.createBroker({
    authenticate: (client, _username, _password, done) => {
      // Devices arrive with the simulator issue; until then only browsers, vouched for by their session, connect.
      const ok = browsers.has(client.conn);
      if (!ok) {
        const error = Object.assign(new Error('not authorised'), { returnCode: 5 });
        done(error as never, false);
        return;
      }
      done(null, true);
    },
    authorizeSubscribe: (client, subscription, done) => {
      const username = client ? browsers.get(client.conn) : undefined;
      // A refused subscription is negated (SUBACK 128); the connection itself stays up.
      const allowed = username !== undefined && browserMaySubscribe(username, subscription.topic);
      done(null, allowed ? subscription : (null as never));
    },
    authorizePublish: (client, _packet, done) => {
      if (client && browsers.has(client.conn)) done(new Error('browsers do not publish'));
      else done(null);
    },
  });

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
    acceptBrowser: (stream, username) => {
      browsers.set(stream, username);
      aedes.handle(stream as never);
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
  return {
    kind: 'external',
    tcpPort: null,
    publish: async (topic, payload, publishOptions) => {
      await client.publishAsync(topic, JSON.stringify(payload), { qos: 0, retain: publishOptions?.retain ?? false });
    },
    close: () => client.endAsync(),
  };
}
