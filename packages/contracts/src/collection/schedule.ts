/**
 * A task's occurrences from its crontab (spec §3: starttime in seconds, freq, unit, count). Shared by
 * the task rules (the browser and the server) and the scheduler, so both agree on every run's time.
 */
export type ScheduleUnit = 'minute' | 'hour' | 'day' | 'week' | 'month';
export type RepairUnit = 'minute' | 'hour' | 'day';

export interface Schedule {
  starttime: number;
  freq: number;
  unit: ScheduleUnit;
  count: number;
}

const UNIT_MINUTES: Record<Exclude<ScheduleUnit, 'month'>, number> = {
  minute: 1,
  hour: 60,
  day: 1440,
  week: 7 * 1440,
};

const DAY_MS = 86_400_000;
/** Five past midnight (UTC, as every task schedule): the day's last interval and frozen row are in by then. */
const DAILY_START_OFFSET_MS = 5 * 60_000;

/** When a daily collection first runs: the coming day's 00:05 UTC (a new task's default, the demo task's start). */
export const nextDailyStart = (now: Date): Date =>
  new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS + DAILY_START_OFFSET_MS);

/** Spec §5: a task's frequency is not under 5 minutes. */
export const MIN_TASK_PERIOD_MINUTES = 5;

/** Minutes between two occurrences; a month counts its shortest, 28 days, for the rules. */
export function periodMinutes(s: Pick<Schedule, 'freq' | 'unit'>): number {
  return s.freq * (s.unit === 'month' ? 28 * 1440 : UNIT_MINUTES[s.unit]);
}

/**
 * The `index`-th occurrence (0 first). Months step by calendar month from the start's day and time
 * (UTC), a day the month lacks becoming its last (31 January, then 28 February, then 31 March).
 */
export function occurrenceAt(s: Schedule, index: number): Date {
  const start = new Date(s.starttime * 1000);
  if (s.unit !== 'month') return new Date(start.getTime() + index * periodMinutes(s) * 60_000);
  const month = start.getUTCMonth() + index * s.freq;
  const lastDay = new Date(Date.UTC(start.getUTCFullYear(), month + 1, 0)).getUTCDate();
  const at = new Date(start);
  at.setUTCDate(1);
  at.setUTCMonth(month);
  at.setUTCDate(Math.min(start.getUTCDate(), lastDay));
  return at;
}

/** The occurrence after `executed` have run, or null when the expected count is reached. */
export function nextOccurrence(s: Schedule, executed: number): Date | null {
  if (executed >= s.count) return null;
  if (executed > 0 && s.freq === 0) return null;
  return occurrenceAt(s, executed);
}

/** How long repair runs go on after an occurrence: repairFreq × repairCount of repairUnit. */
export function repairSpanMinutes(r: { repairFreq: number; repairUnit: RepairUnit; repairCount: number }): number {
  return r.repairFreq * r.repairCount * UNIT_MINUTES[r.repairUnit];
}
