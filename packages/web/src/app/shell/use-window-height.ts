import { useSyncExternalStore } from 'react';

function subscribe(listener: () => void): () => void {
  window.addEventListener('resize', listener);
  return () => window.removeEventListener('resize', listener);
}

export function useWindowHeight(): number {
  return useSyncExternalStore(subscribe, () => window.innerHeight);
}
