import { describe, expect, it } from 'vitest';
import { createTabStore } from './tab-store';

const KEY = 'meterdesk.tabs.test';
const make = (storage: Storage = sessionStorage) =>
  createTabStore({ storage, storageKey: KEY, pinnedKey: '/dashboard', fallbackLocation: '/' });
const keys = (store: ReturnType<typeof make>) => store.getState().tabs.map((tab) => tab.key);

describe('tab store', () => {
  it('opens a tab once per page and follows its query', () => {
    const store = make();
    store.open('/a', '/a');
    store.open('/b', '/b?id=1');
    store.open('/b', '/b?id=2');

    expect(store.getState()).toEqual({
      tabs: [
        { key: '/a', location: '/a' },
        { key: '/b', location: '/b?id=2' },
      ],
      activeKey: '/b',
    });
  });

  it('closing the active tab moves to its left neighbour and says where to go', () => {
    const store = make();
    store.open('/a', '/a?x=1');
    store.open('/b', '/b');
    store.open('/c', '/c');
    store.open('/b', '/b');

    expect(store.close('/b')).toBe('/a?x=1');
    expect(keys(store)).toEqual(['/a', '/c']);
    expect(store.getState().activeKey).toBe('/a');
  });

  it('closing another tab keeps the current page', () => {
    const store = make();
    store.open('/a', '/a');
    store.open('/b', '/b');

    expect(store.close('/a')).toBeNull();
    expect(store.getState()).toEqual({ tabs: [{ key: '/b', location: '/b' }], activeKey: '/b' });
  });

  it('never closes the pinned dashboard', () => {
    const store = make();
    store.pin();
    store.open('/a', '/a');

    expect(store.isClosable('/dashboard')).toBe(false);
    expect(store.close('/dashboard')).toBeNull();
    expect(keys(store)).toEqual(['/dashboard', '/a']);
  });

  it('pins the dashboard first without switching to it', () => {
    const store = make();
    store.open('/a', '/a');
    store.pin();
    store.pin();

    expect(keys(store)).toEqual(['/dashboard', '/a']);
    expect(store.getState().activeKey).toBe('/a');
  });

  it('close others keeps the given tab and the dashboard', () => {
    const store = make();
    store.pin();
    store.open('/a', '/a');
    store.open('/b', '/b');
    store.open('/c', '/c');

    expect(store.closeOthers('/b')).toBe('/b');
    expect(keys(store)).toEqual(['/dashboard', '/b']);
    expect(store.getState().activeKey).toBe('/b');
  });

  it('close all leaves the dashboard and goes there', () => {
    const store = make();
    store.pin();
    store.open('/a', '/a');
    store.open('/b', '/b');

    expect(store.closeAll()).toBe('/dashboard');
    expect(store.getState()).toEqual({
      tabs: [{ key: '/dashboard', location: '/dashboard' }],
      activeKey: '/dashboard',
    });
  });

  it('close all without a dashboard goes to the fallback', () => {
    const store = make();
    store.open('/a', '/a');

    expect(store.closeAll()).toBe('/');
    expect(store.getState().tabs).toEqual([]);
  });

  it('survives a reload through its storage', () => {
    const first = make();
    first.open('/a', '/a?curPage=2');
    first.open('/b', '/b');

    const reloaded = make();

    expect(reloaded.getState()).toEqual(first.getState());
  });

  it('ignores storage it cannot read', () => {
    sessionStorage.setItem(KEY, '{not json');
    expect(make().getState()).toEqual({ tabs: [], activeKey: null });

    sessionStorage.setItem(KEY, JSON.stringify({ tabs: [{ key: 1 }, { key: '/a', location: '/a' }], activeKey: '/z' }));
    expect(make().getState()).toEqual({ tabs: [{ key: '/a', location: '/a' }], activeKey: null });
  });

  it('drops tabs the user may no longer open', () => {
    const store = make();
    store.open('/a', '/a');
    store.open('/gone', '/gone');

    store.retain((key) => key !== '/gone');

    expect(store.getState()).toEqual({ tabs: [{ key: '/a', location: '/a' }], activeKey: null });
  });

  it('clear forgets everything, in storage too', () => {
    const store = make();
    store.open('/a', '/a');
    store.clear();

    expect(make().getState().tabs).toEqual([]);
  });

  it('beyond its limit closes the tab active longest ago, never the dashboard nor a held one', () => {
    const store = createTabStore({
      storage: sessionStorage,
      storageKey: KEY,
      pinnedKey: '/dashboard',
      maxTabs: 4,
      evictable: (tab) => tab.key !== '/held',
    });
    store.pin();
    store.open('/held', '/held');
    store.open('/a', '/a');
    store.open('/b', '/b');
    store.open('/a', '/a?x=1');
    store.open('/c', '/c');

    expect(keys(store)).toEqual(['/dashboard', '/held', '/a', '/c']);
    // The order of use survives a reload: /c, active longest ago, goes (by bar order it would be /held).
    store.open('/held', '/held');
    store.open('/a', '/a');
    const reloaded = createTabStore({ storage: sessionStorage, storageKey: KEY, pinnedKey: '/dashboard', maxTabs: 4 });
    reloaded.open('/d', '/d');
    expect(keys(reloaded)).toEqual(['/dashboard', '/held', '/a', '/d']);
  });

  it('notifies subscribers of changes', () => {
    const store = make();
    let seen = 0;
    const unsubscribe = store.subscribe(() => {
      seen += 1;
    });
    store.open('/a', '/a');
    store.open('/a', '/a');
    unsubscribe();
    store.open('/b', '/b');

    expect(seen).toBe(1);
  });
});
