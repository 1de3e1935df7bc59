/** One open page. `key` is the route path; `location` adds the query so a tab reopens where it was. */
export interface TabEntry {
  key: string;
  location: string;
}

export interface TabState {
  tabs: readonly TabEntry[];
  activeKey: string | null;
}

export interface TabStore {
  getState(): TabState;
  subscribe(listener: () => void): () => void;
  /**
   * Adds the tab, or moves an open one to its new location, and makes it active. A new tab beyond
   * `maxTabs` closes the least recently used one that may go.
   */
  open(key: string, location: string): void;
  /** Each close returns the location to show next when the active tab closed, otherwise null. */
  close(key: string): string | null;
  closeOthers(key: string): string | null;
  closeAll(): string | null;
  /** Puts the pinned tab first if it is missing, without switching to it. */
  pin(): void;
  /** Forgets every tab, e.g. at logout. */
  clear(): void;
  /** Drops tabs the user may no longer open (restored from an earlier permission set). */
  retain(keep: (key: string) => boolean): void;
  isClosable(key: string): boolean;
}

interface TabStoreOptions {
  /** Where the state survives a reload: sessionStorage in the app, nothing in some tests. */
  storage?: Pick<Storage, 'getItem' | 'setItem'>;
  storageKey: string;
  /** The tab that cannot be closed (the dashboard). */
  pinnedKey?: string;
  /** Where to go when the last tab closed. */
  fallbackLocation?: string;
  /** The most tabs open at once; more would crowd the tab bar and its pages' state without end. */
  maxTabs?: number;
  /** Whether a tab may be closed to make room (one holding a half-filled form may not). */
  evictable?: (tab: TabEntry) => boolean;
}

/** What the storage keeps: the state, and the open tabs' keys from least to most recently active. */
interface Stored {
  state: TabState;
  used: readonly string[];
}

const EMPTY: TabState = { tabs: [], activeKey: null };

function isTabEntry(value: unknown): value is TabEntry {
  const entry = value as TabEntry | null;
  return typeof entry?.key === 'string' && typeof entry.location === 'string';
}

function restore(options: TabStoreOptions): Stored {
  try {
    const raw = options.storage?.getItem(options.storageKey);
    if (!raw) return { state: EMPTY, used: [] };
    const parsed = JSON.parse(raw) as { tabs?: unknown; activeKey?: unknown; used?: unknown };
    const tabs = Array.isArray(parsed.tabs) ? parsed.tabs.filter(isTabEntry) : [];
    const activeKey = tabs.find((tab) => tab.key === parsed.activeKey)?.key ?? null;
    const used = Array.isArray(parsed.used) ? parsed.used.filter((key) => typeof key === 'string') : [];
    return { state: { tabs, activeKey }, used };
  } catch {
    return { state: EMPTY, used: [] };
  }
}

/** `used` with `key` moved to its end (the most recent) and keys no longer open left out. */
function touch(used: readonly string[], tabs: readonly TabEntry[], key: string | null): string[] {
  const open = new Set(tabs.map((tab) => tab.key));
  return [...used.filter((k) => k !== key && open.has(k)), ...(key ? [key] : [])];
}

export function createTabStore(options: TabStoreOptions): TabStore {
  let { state, used } = restore(options);
  const listeners = new Set<() => void>();
  const isClosable = (key: string) => key !== options.pinnedKey;

  const commit = (next: TabState) => {
    state = next;
    used = touch(used, next.tabs, next.activeKey);
    try {
      options.storage?.setItem(options.storageKey, JSON.stringify({ ...state, used }));
    } catch {
      // Storage full or blocked: the tabs still work for this page view.
    }
    for (const listener of listeners) listener();
  };

  /**
   * Keeps `tabs`; if the active tab is gone, activates `preferred`, else the nearest tab to its left,
   * and returns the location to show.
   */
  const keep = (tabs: TabEntry[], preferred?: string): string | null => {
    if (tabs.some((tab) => tab.key === state.activeKey)) {
      commit({ ...state, tabs });
      return null;
    }
    const index = state.tabs.findIndex((tab) => tab.key === state.activeKey);
    const onTheLeft = state.tabs.slice(0, Math.max(index, 0)).filter((tab) => tabs.includes(tab));
    const next = tabs.find((tab) => tab.key === preferred) ?? onTheLeft.at(-1) ?? tabs[0];
    commit({ tabs, activeKey: next?.key ?? null });
    return next?.location ?? options.fallbackLocation ?? '/';
  };

  /**
   * Beyond `maxTabs`, the tabs active longest ago go, never the one being opened, the pinned one, or one
   * the caller holds on to; tabs not seen active (stored by an older version) count as the oldest.
   */
  const makeRoom = (tabs: TabEntry[], activeKey: string): TabEntry[] => {
    const max = options.maxTabs ?? Number.POSITIVE_INFINITY;
    if (tabs.length <= max) return tabs;
    const recency = (tab: TabEntry) => used.indexOf(tab.key);
    const oldest = tabs
      .filter((tab) => tab.key !== activeKey && isClosable(tab.key) && (options.evictable?.(tab) ?? true))
      .sort((a, b) => recency(a) - recency(b))
      .slice(0, tabs.length - max);
    return tabs.filter((tab) => !oldest.includes(tab));
  };

  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    open(key, location) {
      const existing = state.tabs.find((tab) => tab.key === key);
      if (existing?.location === location && state.activeKey === key) return;
      const tabs = existing
        ? state.tabs.map((tab) => (tab.key === key ? { key, location } : tab))
        : makeRoom([...state.tabs, { key, location }], key);
      commit({ tabs, activeKey: key });
    },
    close(key) {
      if (!isClosable(key)) return null;
      return keep(state.tabs.filter((tab) => tab.key !== key));
    },
    closeOthers(key) {
      return keep(
        state.tabs.filter((tab) => tab.key === key || !isClosable(tab.key)),
        key,
      );
    },
    closeAll() {
      return keep(state.tabs.filter((tab) => !isClosable(tab.key)));
    },
    pin() {
      const key = options.pinnedKey;
      if (!key || state.tabs.some((tab) => tab.key === key)) return;
      commit({ ...state, tabs: [{ key, location: key }, ...state.tabs] });
    },
    clear() {
      commit(EMPTY);
    },
    retain(predicate) {
      if (state.tabs.every((tab) => predicate(tab.key))) return;
      const tabs = state.tabs.filter((tab) => predicate(tab.key));
      commit({ tabs, activeKey: tabs.some((tab) => tab.key === state.activeKey) ? state.activeKey : null });
    },
    isClosable,
  };
}
