import { createContext, type ReactNode, useContext } from 'react';
import type { PermissionIndex } from './permission-index';

const PermissionContext = createContext<PermissionIndex | null>(null);

export function PermissionProvider({ index, children }: { index: PermissionIndex; children: ReactNode }) {
  return <PermissionContext.Provider value={index}>{children}</PermissionContext.Provider>;
}

/** The logged-in user's permitted tree; only pages inside the shell have one. */
export function usePermissions(): PermissionIndex {
  const index = useContext(PermissionContext);
  if (!index) throw new Error('usePermissions is used outside the shell');
  return index;
}
