import { useEffect, useRef } from 'react';
import { type LiveDeviceUpdate, useLiveDeviceChanges } from './live-devices';

/** Live changes bunch into at most one new reading of a page per this long (a storm is hundreds a second). */
export const LIVE_REFRESH_GAP_MS = 1000;
/** Without the live feed (no broker, a dropped connection) a page that polls reads itself again this often. */
export const POLL_MS = 30_000;

export interface LiveRefreshOptions {
  /** Whether an update may change what the page shows. */
  concerns: (update: LiveDeviceUpdate) => boolean;
  /** Reads the page again (invalidates its queries). */
  refresh: () => void;
  /** Refresh every POLL_MS while the feed is not live. */
  poll?: boolean;
}

/**
 * Reads a page again when a device under `gridIds` (the caller's whole scope without) changes in a way
 * it `concerns`: the first change at once, the next ones at most once per LIVE_REFRESH_GAP_MS. The
 * server's figures answer, not the changes themselves (a DCU going dark takes its meters with it,
 * which no per-device change tells). Answers whether the feed is live.
 */
export function useLiveRefresh(gridIds: readonly string[] | undefined, options: LiveRefreshOptions): boolean {
  const latest = useRef(options);
  latest.current = options;
  const due = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const last = useRef(0);
  const { live } = useLiveDeviceChanges(gridIds, (update) => {
    if (!latest.current.concerns(update) || due.current) return;
    due.current = setTimeout(
      () => {
        due.current = undefined;
        last.current = Date.now();
        latest.current.refresh();
      },
      Math.max(0, last.current + LIVE_REFRESH_GAP_MS - Date.now()),
    );
  });
  useEffect(() => () => clearTimeout(due.current), []);
  const poll = options.poll ?? false;
  useEffect(() => {
    if (live || !poll) return;
    const timer = setInterval(() => latest.current.refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [live, poll]);
  return live;
}
