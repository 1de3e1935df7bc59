import { useTabStore } from '@/app/tabs/tabs-context';

/** The list as its tab left it (page, sort, filters), or its bare path when no tab is open. */
export function useListLocation(pagePath: string): string {
  const store = useTabStore();
  return store.getState().tabs.find((tab) => tab.key === pagePath)?.location ?? pagePath;
}
