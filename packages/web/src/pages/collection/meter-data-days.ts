const DAY_MS = 86_400_000;

/** Today's UTC date: the readings store files days by UTC, and the server refuses a day after it. */
export const utcToday = (now: Date = new Date()) => now.toISOString().slice(0, 10);

export const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** spec §5: no day after today 23:59:59. */
export const isAfterToday = (day: string, now: Date = new Date()) => day > utcToday(now);

/** The spec §9 shortcuts that name one day. */
export const dayShortcuts = (now: Date = new Date()) => ({
  yesterday: addDays(utcToday(now), -1),
  today: utcToday(now),
});

export type FrozenKind = 'daily' | 'monthly';

/**
 * The frozen values shown beside a day: its daily values for the 31 days up to it, or its monthly
 * values for the 12 months up to its own (the server allows 92 and 731 days).
 */
export function frozenRange(kind: FrozenKind, day: string): { startDay: string; endDay: string } {
  if (kind === 'daily') return { startDay: addDays(day, -30), endDay: day };
  const [year, month] = day.split('-').map(Number) as [number, number];
  const first = new Date(Date.UTC(year, month - 1 - 11, 1)).toISOString().slice(0, 10);
  return { startDay: first, endDay: day };
}
