import { type MqttConfig, MqttConfigSchema } from '@meterdesk/contracts';
import type { MqttClient } from 'mqtt';

/** The badge's query; pushes write into it, reading a notice invalidates it. */
export const UNREAD_QUERY_KEY = ['unreadNotices'] as const;

export const MQTT_CONFIG_URL = '/static-config/mqtt.json';

export interface UnreadFeedHandlers {
  onCount(count: number): void;
  /** True once the topic is subscribed; false when the connection drops (polling takes over). */
  onLive(live: boolean): void;
}

/** Follows the user's unread count as it changes; returns the way to stop. */
export type UnreadFeed = (username: string, handlers: UnreadFeedHandlers) => () => void;

/** A path means the broker behind this server (same host, the session cookie rides along). */
export function brokerUrl(url: string, location: Pick<Location, 'protocol' | 'host'>): string {
  if (/^wss?:\/\//i.test(url)) return url;
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}${url.startsWith('/') ? url : `/${url}`}`;
}

export function unreadTopic(config: MqttConfig, username: string): string {
  return config.topics.unread.replaceAll('{username}', username);
}

/** `{count}` from a message, or undefined for anything else. */
export function parseCount(payload: Uint8Array | string): number | undefined {
  try {
    const text = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
    const count = (JSON.parse(text) as { count?: unknown } | null)?.count;
    return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : undefined;
  } catch {
    return undefined;
  }
}

async function loadConfig(signal: AbortSignal): Promise<MqttConfig | undefined> {
  const response = await fetch(MQTT_CONFIG_URL, { credentials: 'same-origin', signal });
  if (!response.ok) return undefined;
  const parsed = MqttConfigSchema.safeParse(await response.json());
  return parsed.success ? parsed.data : undefined;
}

/**
 * The broker's push (spec §7). The mqtt library loads only here, after login, so the login chunk
 * never carries it. Without a broker (`url: null`) or when anything fails, it stays silent and the
 * badge keeps polling.
 */
export const mqttUnreadFeed: UnreadFeed = (username, handlers) => {
  const stopped = new AbortController();
  let client: MqttClient | undefined;
  const live = (value: boolean) => {
    if (!stopped.signal.aborted) handlers.onLive(value);
  };

  void (async () => {
    try {
      const config = await loadConfig(stopped.signal);
      if (!config?.url || stopped.signal.aborted) return;
      const { default: mqtt } = await import('mqtt');
      if (stopped.signal.aborted) return;
      const topic = unreadTopic(config, username);
      const connected = mqtt.connect(brokerUrl(config.url, window.location), {
        protocolVersion: config.protocolVersion,
        reconnectPeriod: 5_000,
        // The default keep-alive timer runs in a blob: worker, which the server's CSP refuses.
        timerVariant: 'native',
      });
      client = connected;
      connected.on('connect', () => {
        connected.subscribe(topic, { qos: 0 }, (error) => live(!error));
      });
      connected.on('message', (received, payload) => {
        const count = received === topic ? parseCount(payload) : undefined;
        if (count !== undefined && !stopped.signal.aborted) handlers.onCount(count);
      });
      connected.on('close', () => live(false));
    } catch (error) {
      if (!stopped.signal.aborted) console.warn('Unread notices: no push from the broker, polling instead', error);
    }
  })();

  return () => {
    stopped.abort();
    client?.end(true);
  };
};
