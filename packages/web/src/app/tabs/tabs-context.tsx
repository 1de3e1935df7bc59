import { createContext, type ReactNode, useContext, useSyncExternalStore } from 'react';
import type { TabState, TabStore } from './tab-store';

const TabsContext = createContext<TabStore | null>(null);

export function TabsProvider({ store, children }: { store: TabStore; children: ReactNode }) {
  return <TabsContext.Provider value={store}>{children}</TabsContext.Provider>;
}

export function useTabStore(): TabStore {
  const store = useContext(TabsContext);
  if (!store) throw new Error('useTabStore is used outside the shell');
  return store;
}

export function useTabState(): TabState {
  const store = useTabStore();
  return useSyncExternalStore(store.subscribe, store.getState);
}
