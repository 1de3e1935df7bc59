import { gridDevicesTopic, type LiveDeviceChange, LiveDeviceMessageSchema } from '@meterdesk/contracts';
import { useEffect, useMemo, useRef, useState } from 'react';
import { followTopics } from '@/app/live/broker-topics';
import { useLookup } from '@/fields/use-lookup';

/** What a page hears: the changes of devices under the nodes it follows, and how many a storm left out. */
export interface LiveDeviceUpdate {
  changes: LiveDeviceChange[];
  /**
   * Changes the server did not list (a storm past `MAX_LIVE_CHANGES` in one message): a page that
   * keeps per-device state reads again what it shows.
   */
  omitted: number;
}

/** How many recent changes are remembered to drop the copy that arrives on a second followed node. */
const REMEMBERED = 5_000;

/** A message's changes not heard before (a node and one above it both followed hear each change twice). */
export function freshChanges(changes: readonly LiveDeviceChange[], seen: Set<string>): LiveDeviceChange[] {
  const fresh: LiveDeviceChange[] = [];
  for (const c of changes) {
    const key = `${c.kind}:${c.id}:${c.change}:${c.at}`;
    if (seen.has(key)) continue;
    seen.add(key);
    fresh.push(c);
  }
  if (seen.size > REMEMBERED) {
    let drop = seen.size - REMEMBERED;
    for (const key of seen) {
      if (drop-- <= 0) break;
      seen.delete(key);
    }
  }
  return fresh;
}

/** A message as the server sends it (`LiveDeviceMessage`), or null for anything else. */
export function parseLiveMessage(payload: Uint8Array | string): LiveDeviceUpdate | null {
  try {
    const text = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
    const parsed = LiveDeviceMessageSchema.safeParse(JSON.parse(text));
    return parsed.success ? { changes: parsed.data.changes, omitted: parsed.data.omitted } : null;
  } catch {
    return null;
  }
}

/**
 * Follows the live changes (link online/offline, power down/up) of the devices under `gridIds`, or
 * under the caller's whole grid scope when none is given (the top nodes of the grid tree it sees).
 * `onChange` may change between renders without resubscribing. Answers whether the feed is live:
 * when it is not (no broker, a dropped connection, a node outside the scope), the page polls.
 * The broker lets a user follow only nodes within their grid scope and only while they hold a page
 * that shows devices (contracts `LIVE_DEVICE_RESOURCES`).
 */
export function useLiveDeviceChanges(
  gridIds: readonly string[] | undefined,
  onChange: (update: LiveDeviceUpdate) => void,
): { live: boolean } {
  const wholeScope = !gridIds?.length;
  const tree = useLookup('gridTree', undefined, wholeScope);
  const nodes = useMemo(
    () => (wholeScope ? tree.options.map((node) => node.value) : [...new Set(gridIds)]).sort(),
    [wholeScope, tree.options, gridIds],
  );
  const key = nodes.join(',');
  const listener = useRef(onChange);
  listener.current = onChange;
  const [live, setLive] = useState(false);

  useEffect(() => {
    if (!key) return;
    const seen = new Set<string>();
    const stop = followTopics(() => key.split(',').map(gridDevicesTopic), {
      onMessage: (_topic, payload) => {
        const update = parseLiveMessage(payload);
        if (!update) return;
        const changes = freshChanges(update.changes, seen);
        if (changes.length || update.omitted) listener.current({ changes, omitted: update.omitted });
      },
      onLive: setLive,
    });
    return () => {
      stop();
      setLive(false);
    };
  }, [key]);

  return { live };
}
