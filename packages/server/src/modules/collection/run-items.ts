import { OBIS, occurrenceAt, periodMinutes, type Schedule } from '@meterdesk/contracts';

/**
 * What a run reads and what it expects of each meter. A run covers the readings whose capture time lies
 * in (from, to]: a load profile row is stamped with its interval's end, a daily frozen row with the
 * midnight that closes its day, a monthly one with the first midnight of the month after. So a daily
 * task at 00:05 covers yesterday's 96 intervals (00:15 … 24:00) and yesterday's frozen row.
 */
export type ItemKind = 'profile' | 'daily' | 'monthly' | 'events';

export interface RunItem {
  cgcode: string;
  obis: string;
  kind: ItemKind;
}

/** The profile objects a collection order may name, and what each stores. */
export const ITEM_KINDS: Record<string, ItemKind> = {
  [OBIS.loadProfile]: 'profile',
  [OBIS.dailyProfile]: 'daily',
  [OBIS.monthlyBilling]: 'monthly',
  [OBIS.eventLog]: 'events',
};

export const INTERVAL_MS = 15 * 60_000;
const DAY_MS = 86_400_000;
/** A device answers at most 31 days of intervals in one read (and a run never asks more). */
export const MAX_PROFILE_SPAN_MS = 31 * DAY_MS;
/** Interval ranges in one read: the device protocol takes 64 items a command. */
export const MAX_RANGES_PER_READ = 60;

export interface Period {
  from: Date;
  to: Date;
}

/** A range of capture times to read, both ends included (as a profile read's {from, to} is answered). */
export interface Range {
  from: number;
  to: number;
}

/** The capture times a kind of row can have in (from, to], oldest first. */
export function captureTimes(kind: Exclude<ItemKind, 'events'>, period: Period): number[] {
  const from = period.from.getTime();
  const to = period.to.getTime();
  const out: number[] = [];
  if (kind === 'profile') {
    for (let ts = Math.floor(from / INTERVAL_MS) * INTERVAL_MS + INTERVAL_MS; ts <= to; ts += INTERVAL_MS) out.push(ts);
  } else if (kind === 'daily') {
    for (let ts = Math.floor(from / DAY_MS) * DAY_MS + DAY_MS; ts <= to; ts += DAY_MS) out.push(ts);
  } else {
    const start = new Date(from);
    let month = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
    while (month <= to) {
      out.push(month);
      const d = new Date(month);
      month = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    }
  }
  return out;
}

/** The stored key of a row captured at `ts` (reading_daily.day, reading_monthly.month), or its time. */
export function storedKey(kind: Exclude<ItemKind, 'events'>, ts: number): string {
  if (kind === 'profile') return new Date(ts).toISOString();
  if (kind === 'daily') return new Date(ts - DAY_MS).toISOString().slice(0, 10);
  const d = new Date(ts);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1)).toISOString().slice(0, 10);
}

/**
 * Missing capture times as contiguous ranges of the kind's grid; when there are more than a read
 * takes, the closest ranges merge (re-reading a few stored rows, which the store keeps once).
 */
export function gapRanges(expected: readonly number[], stored: ReadonlySet<number>): Range[] {
  const ranges: Range[] = [];
  let previous = -1;
  for (const [i, ts] of expected.entries()) {
    if (stored.has(ts)) continue;
    const last = ranges.at(-1);
    if (last && previous === i - 1) last.to = ts;
    else ranges.push({ from: ts, to: ts });
    previous = i;
  }
  while (ranges.length > MAX_RANGES_PER_READ) {
    let closest = 0;
    for (let i = 1; i < ranges.length - 1; i++) {
      const gap = (ranges[i + 1] as Range).from - (ranges[i] as Range).to;
      if (gap < (ranges[closest + 1] as Range).from - (ranges[closest] as Range).to) closest = i;
    }
    const [a, b] = [ranges[closest] as Range, ranges[closest + 1] as Range];
    ranges.splice(closest, 2, { from: a.from, to: b.to });
  }
  return ranges;
}

/** What a read item asks: a range of capture times, both ends included. */
export const rangeValue = (range: Range) => ({
  from: new Date(range.from).toISOString(),
  to: new Date(range.to).toISOString(),
});

/** A task's crontab as the run reads it (spec §3). */
export interface TaskCrontab extends Schedule {
  repairConf?: { repairFreq: number; repairUnit: 'minute' | 'hour' | 'day'; repairCount: number } | undefined;
}

/**
 * The period an occurrence covers: from the occurrence before it to it (calendar months for a monthly
 * task). A task without a period (one run) covers the day before its time.
 */
export function occurrencePeriod(crontab: Schedule, index: number): Period {
  const to = occurrenceAt(crontab, index);
  if (periodMinutes(crontab) === 0) return { from: new Date(to.getTime() - DAY_MS), to };
  return { from: occurrenceAt(crontab, index - 1), to };
}

/** The index of the latest occurrence at or before `at` on the task's grid (negative before its start). */
export function latestOccurrenceIndex(crontab: Schedule, at: Date): number {
  const period = periodMinutes(crontab) * 60_000;
  if (period === 0) return 0;
  let index = Math.floor((at.getTime() - crontab.starttime * 1000) / period);
  // A calendar month is longer than the 28 days periodMinutes counts: step to the exact one.
  while (occurrenceAt(crontab, index + 1) <= at) index++;
  while (occurrenceAt(crontab, index) > at) index--;
  return index;
}

const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: DAY_MS } as const;

/** When each repair of a run falls due: repairFreq × k after the run's time, k = 1 … repairCount. */
export function repairTimes(at: Date, repair: TaskCrontab['repairConf']): Date[] {
  if (!repair || repair.repairCount <= 0 || repair.repairFreq <= 0) return [];
  return Array.from(
    { length: repair.repairCount },
    (_, k) => new Date(at.getTime() + (k + 1) * repair.repairFreq * UNIT_MS[repair.repairUnit]),
  );
}
