import { RES } from '../permissions';

/**
 * Every broker topic a browser may subscribe to, in one table. The server's broker allows a
 * subscription only when the topic matches a row, the caller holds the row's resource (if any) and
 * owns the topic: `user` rows carry the caller's own username, `job` rows a job the caller started.
 * Wildcards are never allowed. Browsers publish nothing. A new browser topic is a new row here.
 */
export const BROWSER_TOPICS = {
  /** The caller's unread notice count: `{count}`. */
  noticeUnread: { pattern: 'notice/{username}/unread', owner: 'user', resource: RES.noticeSubscribe },
  /** Progress of a long job (an import, an export, a batch) the caller started. */
  progress: { pattern: 'progress/{jobId}', owner: 'job', resource: null },
} as const satisfies Record<string, BrowserTopic>;

export interface BrowserTopic {
  /** Segments; `{name}` stands for one whole segment. */
  pattern: string;
  /** `user`: the `{username}` segment must be the caller; `job`: the caller must have started `{jobId}`. */
  owner: 'user' | 'job';
  /** A resource the caller must hold besides owning the topic. */
  resource: string | null;
}

export type BrowserTopicName = keyof typeof BROWSER_TOPICS;

const fill = (pattern: string, values: Record<string, string>) =>
  pattern.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? `{${name}}`);

/** Browser topic of a user's unread count. */
export const noticeUnreadTopic = (username: string) => fill(BROWSER_TOPICS.noticeUnread.pattern, { username });
/** Browser topic of a job's progress. */
export const progressTopic = (jobId: string) => fill(BROWSER_TOPICS.progress.pattern, { jobId });

/** The row a concrete topic belongs to, with its `{…}` values; null when no row matches (or it holds wildcards). */
export function matchBrowserTopic(
  topic: string,
): { name: BrowserTopicName; topic: BrowserTopic; params: Record<string, string> } | null {
  const segments = topic.split('/');
  if (segments.some((s) => s === '' || s.includes('+') || s.includes('#'))) return null;
  for (const [name, row] of Object.entries(BROWSER_TOPICS) as [BrowserTopicName, BrowserTopic][]) {
    const parts = row.pattern.split('/');
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = parts.every((part, i) => {
      const placeholder = /^\{(\w+)\}$/.exec(part);
      if (placeholder) {
        params[placeholder[1] as string] = segments[i] as string;
        return true;
      }
      return part === segments[i];
    });
    if (matches) return { name, topic: row, params };
  }
  return null;
}
