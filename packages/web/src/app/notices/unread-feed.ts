import type { MqttConfig } from '@meterdesk/contracts';
import { followTopic } from '@/app/live/broker-topics';

/** The badge's query; pushes write into it, reading a notice invalidates it. */
export const UNREAD_QUERY_KEY = ['unreadNotices'] as const;

export interface UnreadFeedHandlers {
  onCount(count: number): void;
  /** True once the topic is subscribed; false when the connection drops (polling takes over). */
  onLive(live: boolean): void;
}

/** Follows the user's unread count as it changes; returns the way to stop. */
export type UnreadFeed = (username: string, handlers: UnreadFeedHandlers) => () => void;

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

/** The broker's push of the unread count (spec §7); the badge polls when it is silent. */
export const mqttUnreadFeed: UnreadFeed = (username, handlers) =>
  followTopic((config) => unreadTopic(config, username), {
    onMessage: (payload) => {
      const count = parseCount(payload);
      if (count !== undefined) handlers.onCount(count);
    },
    onLive: handlers.onLive,
  });
