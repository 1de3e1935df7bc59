import type { MqttConfig } from '@meterdesk/contracts';
import type { TopicsHandlers } from '@/app/live/broker-topics';

/** What a page asked of the broker: the topics it follows and the handlers a test calls in its place. */
export interface Follower {
  topics: readonly string[];
  handlers: { onMessage(topic: string, payload: string): void; onLive(live: boolean): void };
  stopped: boolean;
}

/** Every follower since the test emptied it, oldest first. */
export const followers: Follower[] = [];

/**
 * The broker, played by the test: stands in for `@/app/live/broker-topics` in a file that says
 * `vi.mock('@/app/live/broker-topics', () => import('@/test/fake-broker'))`.
 */
export function followTopics(topicsOf: (config: MqttConfig) => readonly string[], handlers: TopicsHandlers) {
  const follower: Follower = {
    topics: topicsOf({} as MqttConfig),
    handlers: handlers as Follower['handlers'],
    stopped: false,
  };
  followers.push(follower);
  return () => {
    follower.stopped = true;
  };
}
