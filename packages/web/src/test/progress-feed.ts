/**
 * The broker's feed, played by a test: `vi.mock('@/app/live/broker-topics', () => import('@/test/progress-feed')
 * .then((m) => m.brokerTopicsMock))`, then each topic's handlers are in `feeds` (`progress/{jobId}`).
 */
export const feeds = new Map<string, { onMessage(payload: string): void; onLive(live: boolean): void }>();

export const brokerTopicsMock = {
  followTopic: (topicOf: (config: { topics: Record<string, string> }) => string, handlers: never) => {
    feeds.set(topicOf({ topics: {} }), handlers);
    return () => undefined;
  },
};
