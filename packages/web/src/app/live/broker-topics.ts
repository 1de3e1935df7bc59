import { type MqttConfig, MqttConfigSchema } from '@meterdesk/contracts';
import type { Client, Message } from 'paho-mqtt';

export const MQTT_CONFIG_URL = '/static-config/mqtt.json';
/** The wait before connecting again after the connection dropped or could not be made. */
export const RECONNECT_MS = 5_000;
/** MQTT keep-alive: the client pings the broker after this long without sending anything. */
const KEEP_ALIVE_SECONDS = 60;

/** A path means the broker behind this server (same host, the session cookie rides along). */
export function brokerUrl(url: string, location: Pick<Location, 'protocol' | 'host'>): string {
  if (/^wss?:\/\//i.test(url)) return url;
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}${url.startsWith('/') ? url : `/${url}`}`;
}

async function loadConfig(signal: AbortSignal): Promise<MqttConfig | undefined> {
  const response = await fetch(MQTT_CONFIG_URL, { credentials: 'same-origin', signal });
  if (!response.ok) return undefined;
  const parsed = MqttConfigSchema.safeParse(await response.json());
  return parsed.success ? parsed.data : undefined;
}

/**
 * A client id of its own for each follower (a page may have several): the broker keeps only the newest
 * connection with an id, and refuses it when another session holds the id.
 * At most 23 characters, as every MQTT 3.1.1 broker must accept; `crypto.randomUUID` would need a secure
 * context, which a deployment on plain http is not.
 */
function newClientId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `web_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

function bytesOf(message: Message): Uint8Array {
  const bytes = message.payloadBytes;
  return ArrayBuffer.isView(bytes)
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : new Uint8Array(bytes);
}

/** What a topic follower hears: each message, and whether the subscription is live. */
export interface TopicHandlers {
  onMessage(payload: Uint8Array | string): void;
  /** True once subscribed; false when the connection drops (the caller polls instead). */
  onLive(live: boolean): void;
}

/** What a follower of several topics hears: each message with its topic, and whether all are subscribed. */
export interface TopicsHandlers {
  onMessage(topic: string, payload: Uint8Array | string): void;
  /** True once every topic is subscribed; false when the connection drops or the broker refuses one. */
  onLive(live: boolean): void;
}

/**
 * Follows one broker topic (`topicOf` picks it from the broker's configuration); returns the way to
 * stop. The MQTT client loads only here, after login, so the login chunk never carries it. Without
 * a broker (`url: null`) or when anything fails it stays silent, and the caller keeps polling.
 */
export function followTopic(topicOf: (config: MqttConfig) => string, handlers: TopicHandlers): () => void {
  return followTopics((config) => [topicOf(config)], {
    onMessage: (_topic, payload) => handlers.onMessage(payload),
    onLive: handlers.onLive,
  });
}

/** `followTopic` for several topics on one connection (a page following the grid nodes it shows). */
export function followTopics(
  topicsOf: (config: MqttConfig) => readonly string[],
  handlers: TopicsHandlers,
): () => void {
  const stopped = new AbortController();
  let client: Client | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const live = (value: boolean) => {
    if (!stopped.signal.aborted) handlers.onLive(value);
  };

  void (async () => {
    try {
      const config = await loadConfig(stopped.signal);
      if (!config?.url || stopped.signal.aborted) return;
      const topics = [...new Set(topicsOf(config))];
      if (!topics.length) return;
      const { default: paho } = await import('paho-mqtt');
      if (stopped.signal.aborted) return;
      const connection = new paho.Client(brokerUrl(config.url, window.location), newClientId());
      client = connection;
      const followed = new Set(topics);
      const dropped = () => {
        live(false);
        if (!stopped.signal.aborted) retry = setTimeout(connect, RECONNECT_MS);
      };
      const subscribe = () => {
        let pending = topics.length;
        // One SUBSCRIBE per topic: the client tells a refusal only by the first code of a SUBACK.
        for (const topic of topics) {
          connection.subscribe(topic, {
            qos: 0,
            onSuccess: () => {
              if (--pending === 0) live(true);
            },
            onFailure: () => live(false),
          });
        }
      };
      const connect = () =>
        connection.connect({
          mqttVersion: config.protocolVersion,
          // Otherwise a failed connection is tried again as MQTT 3.1; the configuration says which version.
          mqttVersionExplicit: true,
          cleanSession: true,
          keepAliveInterval: KEEP_ALIVE_SECONDS,
          // A clean session forgets subscriptions, so each connection makes them anew.
          onSuccess: () => (stopped.signal.aborted ? connection.disconnect() : subscribe()),
          onFailure: dropped,
        });
      connection.onConnectionLost = dropped;
      connection.onMessageArrived = (message) => {
        const topic = message.destinationName;
        if (followed.has(topic) && !stopped.signal.aborted) handlers.onMessage(topic, bytesOf(message));
      };
      connect();
    } catch (error) {
      if (!stopped.signal.aborted) console.warn('No push from the broker, polling instead', error);
    }
  })();

  return () => {
    stopped.abort();
    clearTimeout(retry);
    // A connection still being made ends in its onSuccess, which sees the stop.
    if (client?.isConnected()) client.disconnect();
  };
}
