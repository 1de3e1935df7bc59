import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import {
  isDisabledRangeDay,
  monthPresetsWithin,
  presetMonths,
  presetRange,
  presetsWithin,
  RANGE_PRESETS,
  readRange,
  toIsoMoment,
  validateRange,
} from './date-range';

// A Wednesday afternoon.
const now = dayjs('2024-05-15T14:30:00');
const fmt = (range: [dayjs.Dayjs, dayjs.Dayjs]) => range.map((d) => d.format('YYYY-MM-DD HH:mm:ss'));

describe('presetRange', () => {
  it('gives the spec shortcuts as whole days ending no later than today', () => {
    expect(fmt(presetRange('yesterday', now))).toEqual(['2024-05-14 00:00:00', '2024-05-14 23:59:59']);
    expect(fmt(presetRange('today', now))).toEqual(['2024-05-15 00:00:00', '2024-05-15 23:59:59']);
    expect(fmt(presetRange('last3Days', now))).toEqual(['2024-05-13 00:00:00', '2024-05-15 23:59:59']);
    expect(fmt(presetRange('last7Days', now))).toEqual(['2024-05-09 00:00:00', '2024-05-15 23:59:59']);
    expect(fmt(presetRange('lastWeek', now))).toEqual(['2024-05-06 00:00:00', '2024-05-12 23:59:59']);
    expect(fmt(presetRange('lastMonth', now))).toEqual(['2024-04-01 00:00:00', '2024-04-30 23:59:59']);
    expect(fmt(presetRange('thisMonth', now))).toEqual(['2024-05-01 00:00:00', '2024-05-15 23:59:59']);
  });

  it('starts last week on Monday even on a Sunday', () => {
    expect(fmt(presetRange('lastWeek', dayjs('2024-05-19T10:00:00')))).toEqual([
      '2024-05-06 00:00:00',
      '2024-05-12 23:59:59',
    ]);
  });

  it('never offers a range the server refuses, even a 31-day month', () => {
    const april = dayjs('2024-04-10T09:00:00');
    for (const preset of presetsWithin(31, now)) {
      expect(validateRange(presetRange(preset, now), 31, now), preset).toBeUndefined();
    }
    for (const preset of presetsWithin(31, april)) {
      expect(validateRange(presetRange(preset, april), 31, april), `${preset} in April`).toBeUndefined();
    }
    // The long shortcuts come with a longer limit: a year's, and this year so far only within it.
    expect(presetsWithin(31, now)).not.toContain('last3Months');
    expect(presetsWithin(366, now)).toEqual(RANGE_PRESETS);
    expect(presetsWithin(184, now)).toEqual(RANGE_PRESETS.filter((p) => p !== 'lastYear'));
  });

  it('gives the long shortcuts of spec §9 as whole days too', () => {
    expect(fmt(presetRange('thisYear', now))).toEqual(['2024-01-01 00:00:00', '2024-05-15 23:59:59']);
    expect(fmt(presetRange('last1Month', now))).toEqual(['2024-04-16 00:00:00', '2024-05-15 23:59:59']);
    expect(fmt(presetRange('last3Months', now))).toEqual(['2024-02-16 00:00:00', '2024-05-15 23:59:59']);
    expect(fmt(presetRange('last6Months', now))).toEqual(['2023-11-16 00:00:00', '2024-05-15 23:59:59']);
    expect(fmt(presetRange('lastYear', now))).toEqual(['2023-01-01 00:00:00', '2023-12-31 23:59:59']);
    expect(presetMonths('last3Months', now).map((m) => m.format('YYYY-MM'))).toEqual(['2024-03', '2024-05']);
    expect(presetMonths('lastYear', now).map((m) => m.format('YYYY-MM'))).toEqual(['2023-01', '2023-12']);
    expect(monthPresetsWithin(3, now)).toEqual(['thisMonth', 'lastMonth', 'last3Months']);
  });
});

describe('validateRange', () => {
  const day = (text: string) => dayjs(text);

  it('wants both ends, in order', () => {
    expect(validateRange(null, 31, now)).toBe('mandatory');
    expect(validateRange([day('2024-05-10'), null], 31, now)).toBe('mandatory');
    expect(validateRange([day('2024-05-10'), day('2024-05-09')], 31, now)).toBe('timeRangeInvalid');
    expect(validateRange([day('2024-05-10'), day('2024-05-10')], 31, now)).toBe('timeRangeInvalid');
  });

  it('refuses an end after today 23:59:59 but takes one up to it', () => {
    expect(validateRange([day('2024-05-10'), day('2024-05-16T00:00:00')], 31, now)).toBe('outOfRange');
    expect(validateRange([day('2024-05-10'), day('2024-05-15T23:59:59')], 31, now)).toBeUndefined();
  });

  it('refuses a range longer than the limit', () => {
    expect(validateRange([day('2024-04-14T13:59:59'), day('2024-05-15T14:00:00')], 31, now)).toBe('timeRangeTooLong');
    expect(validateRange([day('2024-04-14T14:00:00'), day('2024-05-15T14:00:00')], 31, now)).toBeUndefined();
  });
});

describe('isDisabledRangeDay', () => {
  it('disables days after today', () => {
    expect(isDisabledRangeDay(dayjs('2024-05-16T00:00:00'), undefined, 31, now)).toBe(true);
    expect(isDisabledRangeDay(dayjs('2024-05-15T23:00:00'), undefined, 31, now)).toBe(false);
  });

  it('disables, once one end is picked, the days that would make the range too long', () => {
    const from = dayjs('2024-05-01T08:00:00');
    expect(isDisabledRangeDay(dayjs('2024-03-31'), from, 31, now)).toBe(true);
    expect(isDisabledRangeDay(dayjs('2024-04-01'), from, 31, now)).toBe(false);
    expect(isDisabledRangeDay(dayjs('2024-04-15'), dayjs('2024-05-15'), 31, now)).toBe(false);
    expect(isDisabledRangeDay(dayjs('2024-04-14'), dayjs('2024-05-15'), 31, now)).toBe(true);
  });
});

describe('readRange', () => {
  it('keeps a valid range from the URL as written', () => {
    const start = '2024-05-01T00:00:00+08:00';
    const end = '2024-05-02T00:00:00+08:00';
    expect(readRange(start, end, 31, now)).toEqual([start, end]);
  });

  it('falls back to the last 7 days when the URL has none or one the server would refuse', () => {
    const fallback = presetRange('last7Days', now).map(toIsoMoment);
    expect(readRange(null, null, 31, now)).toEqual(fallback);
    expect(readRange('2024-01-01T00:00:00Z', '2024-05-01T00:00:00Z', 31, now)).toEqual(fallback);
    expect(readRange('nonsense', '2024-05-01T00:00:00Z', 31, now)).toEqual(fallback);
  });

  it('writes moments as ISO 8601 with the offset', () => {
    expect(toIsoMoment(now)).toMatch(/^2024-05-15T14:30:00[+-]\d\d:\d\d$/);
  });
});
