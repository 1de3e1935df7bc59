import type { MessageKey } from '@meterdesk/contracts';
import dayjs, { type Dayjs } from 'dayjs';

export type DateRange = [Dayjs, Dayjs];

/** The spec's date shortcuts (§9); a picker offers those that fit its range limit (`presetsWithin`). */
export const RANGE_PRESETS = [
  'yesterday',
  'today',
  'last3Days',
  'last7Days',
  'lastWeek',
  'lastMonth',
  'thisMonth',
  'thisYear',
  'last1Month',
  'last3Months',
  'last6Months',
  'lastYear',
] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];
export const DEFAULT_RANGE_PRESET: RangePreset = 'last7Days';

const DAY_MS = 86_400_000;

/** Whole days up to the end of today, so a range keeps its meaning all day long (and a cached list its key). */
export function presetRange(preset: RangePreset, now: Dayjs = dayjs()): DateRange {
  const today = now.startOf('day');
  const endOfToday = now.endOf('day');
  switch (preset) {
    case 'yesterday':
      return [today.subtract(1, 'day'), today.subtract(1, 'day').endOf('day')];
    case 'today':
      return [today, endOfToday];
    case 'last3Days':
      return [today.subtract(2, 'day'), endOfToday];
    case 'last7Days':
      return [today.subtract(6, 'day'), endOfToday];
    case 'lastWeek': {
      // Weeks start on Monday whatever the locale says.
      const monday = today.subtract((today.day() + 6) % 7, 'day');
      return [monday.subtract(7, 'day'), monday.subtract(1, 'day').endOf('day')];
    }
    case 'lastMonth': {
      const first = today.startOf('month').subtract(1, 'month');
      return [first, first.endOf('month')];
    }
    case 'thisMonth':
      return [today.startOf('month'), endOfToday];
    case 'thisYear':
      return [today.startOf('year'), endOfToday];
    case 'last1Month':
      return [today.subtract(1, 'month').add(1, 'day'), endOfToday];
    case 'last3Months':
      return [today.subtract(3, 'month').add(1, 'day'), endOfToday];
    case 'last6Months':
      return [today.subtract(6, 'month').add(1, 'day'), endOfToday];
    case 'lastYear': {
      const first = today.startOf('year').subtract(1, 'year');
      return [first, first.endOf('year')];
    }
  }
}

/** Whole days a range touches, both ends included. */
export const daysSpanned = ([start, end]: DateRange) => end.startOf('day').diff(start.startOf('day'), 'day') + 1;

/** The shortcuts whose range fits `maxDays` days today (this year so far fits a year's limit only later in it). */
export function presetsWithin(maxDays: number, now: Dayjs = dayjs()): RangePreset[] {
  return RANGE_PRESETS.filter((preset) => daysSpanned(presetRange(preset, now)) <= maxDays);
}

/** The shortcuts that name whole months, for a picker of months. */
export const MONTH_PRESETS = ['thisMonth', 'lastMonth', 'last3Months', 'last6Months', 'thisYear', 'lastYear'] as const;
export type MonthPreset = (typeof MONTH_PRESETS)[number];

/** A month shortcut's first and last month. */
export function presetMonths(preset: MonthPreset, now: Dayjs = dayjs()): DateRange {
  const month = now.startOf('month');
  switch (preset) {
    case 'thisMonth':
      return [month, month];
    case 'lastMonth':
      return [month.subtract(1, 'month'), month.subtract(1, 'month')];
    case 'last3Months':
      return [month.subtract(2, 'month'), month];
    case 'last6Months':
      return [month.subtract(5, 'month'), month];
    case 'thisYear':
      return [month.startOf('year'), month];
    case 'lastYear':
      return [month.startOf('year').subtract(1, 'year'), month.startOf('year').subtract(1, 'month')];
  }
}

/** The month shortcuts that fit `maxMonths`. */
export function monthPresetsWithin(maxMonths: number, now: Dayjs = dayjs()): MonthPreset[] {
  return MONTH_PRESETS.filter((preset) => {
    const [start, end] = presetMonths(preset, now);
    return end.diff(start, 'month') + 1 <= maxMonths;
  });
}

/** spec §5: no date after today 23:59:59. */
export function isAfterToday(date: Dayjs, now: Dayjs = dayjs()): boolean {
  return date.isAfter(now.endOf('day'));
}

/**
 * antd's `disabledDate` for a range: after today, or (once the first end is picked) a day that would
 * make the range longer than `maxDays` whole days.
 */
export function isDisabledRangeDay(
  date: Dayjs,
  from: Dayjs | undefined,
  maxDays: number,
  now: Dayjs = dayjs(),
): boolean {
  if (isAfterToday(date, now)) return true;
  return from !== undefined && Math.abs(date.startOf('day').diff(from.startOf('day'), 'day')) >= maxDays;
}

/** The message key that refuses a range, or undefined when the server will take it. */
export function validateRange(
  range: readonly [Dayjs | null, Dayjs | null] | null | undefined,
  maxDays: number,
  now: Dayjs = dayjs(),
): MessageKey | undefined {
  const [start, end] = range ?? [null, null];
  if (!start || !end) return 'mandatory';
  if (!start.isBefore(end)) return 'timeRangeInvalid';
  if (isAfterToday(end, now)) return 'outOfRange';
  if (end.diff(start) > maxDays * DAY_MS) return 'timeRangeTooLong';
  return undefined;
}

/** ISO 8601 with the browser's offset, as the API wants moments. */
export function toIsoMoment(date: Dayjs): string {
  return date.format('YYYY-MM-DDTHH:mm:ssZ');
}

/** The range a list URL carries, or the default one when it carries none the server would take. */
export function readRange(
  start: string | null,
  end: string | null,
  maxDays: number,
  now: Dayjs = dayjs(),
): [string, string] {
  if (start && end) {
    const range: DateRange = [dayjs(start), dayjs(end)];
    if (range[0].isValid() && range[1].isValid() && !validateRange(range, maxDays, now)) return [start, end];
  }
  const [from, to] = presetRange(DEFAULT_RANGE_PRESET, now);
  return [toIsoMoment(from), toIsoMoment(to)];
}

/**
 * Enter commits what was typed into a date picker; the browser's own reading of it (submitting the
 * form around it) would act on the old value, and the typed one would be lost.
 */
export function keepTypedDate(event: { key: string; preventDefault(): void }): void {
  if (event.key === 'Enter') event.preventDefault();
}
