import { type MqttConfig, MqttConfigSchema } from '@meterdesk/contracts';
import type { MqttClient } from 'mqtt';

export const MQTT_CONFIG_URL = '/static-config/mqtt.json';

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
 * stop. The mqtt library loads only here, after login, so the login chunk never carries it. Without
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
  let client: MqttClient | undefined;
  const live = (value: boolean) => {
    if (!stopped.signal.aborted) handlers.onLive(value);
  };

  void (async () => {
    try {
      const config = await loadConfig(stopped.signal);
      if (!config?.url || stopped.signal.aborted) return;
      const topics = [...new Set(topicsOf(config))];
      if (!topics.length) return;
      const { default: mqtt } = await import('mqtt');
      if (stopped.signal.aborted) return;
      const connected = mqtt.connect(brokerUrl(config.url, window.location), {
        protocolVersion: config.protocolVersion,
        reconnectPeriod: 5_000,
        // The default keep-alive timer runs in a blob: worker, which the server's CSP refuses.
        timerVariant: 'native',
      });
      client = connected;
      const followed = new Set(topics);
      connected.on('connect', () => {
        connected.subscribe(topics, { qos: 0 }, (error) => live(!error));
      });
      connected.on('message', (received, payload) => {
        if (followed.has(received) && !stopped.signal.aborted) handlers.onMessage(received, payload);
      });
      connected.on('close', () => live(false));
    } catch (error) {
      if (!stopped.signal.aborted) console.warn('No push from the broker, polling instead', error);
    }
  })();

  return () => {
    stopped.abort();
    client?.end(true);
  };
}
