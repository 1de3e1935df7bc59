/**
 * Half-filled forms by tab: switching to another tab unmounts a form, and coming back to its tab
 * brings back what was typed. A draft lives as long as its tab; a form opened afresh starts clean.
 */
const drafts = new Map<string, Record<string, unknown>>();

export const formDrafts = {
  get: (key: string) => drafts.get(key),
  set: (key: string, values: Record<string, unknown>) => void drafts.set(key, values),
  drop: (key: string) => void drafts.delete(key),
};
