import { RES } from '../permissions';

/**
 * The pages that show devices' live state: a caller holding none of them hears no live device change.
 * Pages that come to show it join the list.
 */
export const LIVE_DEVICE_RESOURCES = [
  '/dataAnalytic/networkMonitor',
  '/archiveSetting/meter',
  '/archiveSetting/DCU',
  '/archiveSetting/gis',
] as const;

/**
 * Every broker topic a browser may subscribe to, in one table. The server's broker allows a
 * subscription only when the topic matches a row, the caller holds the row's resource (one of them,
 * for a list) and owns the topic: `user` rows carry the caller's own username, `job` rows a job the
 * caller started, `grid` rows a grid node within the caller's grid scope.
 * Wildcards are never allowed. Browsers publish nothing. A new browser topic is a new row here.
 */
export const BROWSER_TOPICS = {
  /** The caller's unread notice count: `{count}`. */
  noticeUnread: { pattern: 'notice/{username}/unread', owner: 'user', resource: RES.noticeSubscribe },
  /** Progress of a long job (an import, an export, a batch) the caller started. */
  progress: { pattern: 'progress/{jobId}', owner: 'job', resource: null },
  /**
   * Live changes of the devices placed in the node's subtree (`LiveDeviceMessage`): the server
   * publishes each change on the topic of the device's node and of every node above it, so one
   * subscription per node a page shows (a user's scope roots, a filter's node) hears its whole subtree.
   */
  /** The caller's own recharges changing state (`RechargeChange`), as the prepaid page shows them live. */
  recharges: { pattern: 'prepaid/{username}/recharges', owner: 'user', resource: RES.prepaid },
  gridDevices: { pattern: 'live/grid/{gridId}/devices', owner: 'grid', resource: LIVE_DEVICE_RESOURCES },
} as const satisfies Record<string, BrowserTopic>;

export interface BrowserTopic {
  /** Segments; `{name}` stands for one whole segment. */
  pattern: string;
  /**
   * `user`: the `{username}` segment must be the caller; `job`: the caller must have started `{jobId}`;
   * `grid`: `{gridId}` must be a grid node within the caller's grid scope.
   */
  owner: 'user' | 'job' | 'grid';
  /** A resource the caller must hold besides owning the topic; a list: any one of them. */
  resource: string | readonly string[] | null;
}

export type BrowserTopicName = keyof typeof BROWSER_TOPICS;

const fill = (pattern: string, values: Record<string, string>) =>
  pattern.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? `{${name}}`);

/** Browser topic of a user's unread count. */
export const noticeUnreadTopic = (username: string) => fill(BROWSER_TOPICS.noticeUnread.pattern, { username });
/** Browser topic of a job's progress. */
export const progressTopic = (jobId: string) => fill(BROWSER_TOPICS.progress.pattern, { jobId });
/** Browser topic of a user's recharges. */
export const rechargeTopic = (username: string) => fill(BROWSER_TOPICS.recharges.pattern, { username });
/** Browser topic of the live device changes under a grid node. */
export const gridDevicesTopic = (gridId: string) => fill(BROWSER_TOPICS.gridDevices.pattern, { gridId });

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
