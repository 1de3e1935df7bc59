import { describe, expect, it } from 'vitest';
import { nextOccurrence, occurrenceAt, periodMinutes, repairSpanMinutes } from './schedule';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('task schedule', () => {
  it('steps by its frequency and unit from the start time', () => {
    const daily = { starttime: at('2026-12-01T01:00:00Z'), freq: 1, unit: 'day' as const, count: 30 };
    expect(occurrenceAt(daily, 0).toISOString()).toBe('2026-12-01T01:00:00.000Z');
    expect(occurrenceAt(daily, 2).toISOString()).toBe('2026-12-03T01:00:00.000Z');
    const quarter = { ...daily, freq: 15, unit: 'minute' as const };
    expect(occurrenceAt(quarter, 4).toISOString()).toBe('2026-12-01T02:00:00.000Z');
  });

  it('steps months by the calendar, a missing day becoming the month’s last', () => {
    const monthly = { starttime: at('2026-01-31T00:30:00Z'), freq: 1, unit: 'month' as const, count: 12 };
    expect(occurrenceAt(monthly, 1).toISOString()).toBe('2026-02-28T00:30:00.000Z');
    expect(occurrenceAt(monthly, 2).toISOString()).toBe('2026-03-31T00:30:00.000Z');
    expect(occurrenceAt(monthly, 13).toISOString()).toBe('2027-02-28T00:30:00.000Z');
  });

  it('has no next occurrence once the expected count has run, nor a second one of a one-shot task', () => {
    const s = { starttime: at('2026-12-01T00:00:00Z'), freq: 1, unit: 'hour' as const, count: 3 };
    expect(nextOccurrence(s, 2)?.toISOString()).toBe('2026-12-01T02:00:00.000Z');
    expect(nextOccurrence(s, 3)).toBeNull();
    expect(nextOccurrence({ ...s, freq: 0, count: 5 }, 1)).toBeNull();
  });

  it('measures the period and the repair span in minutes', () => {
    expect(periodMinutes({ freq: 1, unit: 'day' })).toBe(1440);
    expect(periodMinutes({ freq: 2, unit: 'week' })).toBe(20160);
    expect(repairSpanMinutes({ repairFreq: 30, repairUnit: 'minute', repairCount: 4 })).toBe(120);
  });
});
