import { describe, expect, it } from 'vitest';
import { DAY_MS, dailyFrozen, instantaneous, intervalProfile, meterModel, monthlyFrozen, registerAt } from './energy';
import { spontaneousEvents } from './events';

const SEED = 7;
const METER = 'SIM-M00010001';

describe('energy model', () => {
  it('gives the same profile for the same seed and meter, and another for another seed or meter', () => {
    const from = '2026-03-02T00:00:00.000Z';
    const to = '2026-03-03T00:00:00.000Z';
    const first = intervalProfile(SEED, METER, from, to);
    expect(intervalProfile(SEED, METER, from, to)).toEqual(first);
    expect(intervalProfile(SEED + 1, METER, from, to)).not.toEqual(first);
    expect(intervalProfile(SEED, 'SIM-M00010002', from, to)).not.toEqual(first);
    expect(first).toHaveLength(97);
    expect(first[0]!.ts).toBe(from);
  });

  it('answers a past day the same whenever it is asked, alone or inside a longer range', () => {
    const day = intervalProfile(SEED, METER, '2025-11-10T00:15:00Z', '2025-11-11T00:00:00Z');
    const week = intervalProfile(SEED, METER, '2025-11-07T00:00:00Z', '2025-11-14T00:00:00Z');
    const inWeek = week.filter((r) => r.ts > '2025-11-10T00:00:00.000Z' && r.ts <= '2025-11-11T00:00:00.000Z');
    expect(inWeek).toEqual(day);
  });

  it('keeps registers consistent with the summed intervals, and every interval non-negative', () => {
    const rows = intervalProfile(SEED, METER, '2026-01-01T00:00:00Z', '2026-01-15T00:00:00Z');
    for (const row of rows) {
      expect(row.energy).toBeGreaterThanOrEqual(0);
      expect(registerAt(SEED, METER, row.ts).activeImport).toBe(row.activeImport);
    }
    const summed = rows.slice(1).reduce((sum, r) => sum + r.energy, 0);
    expect(rows.at(-1)!.activeImport - rows[0]!.activeImport).toBe(summed);
  });

  it('freezes the daily values at the register of each midnight, and the monthly ones at the first of the month', () => {
    const daily = dailyFrozen(SEED, METER, '2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z', '3P4W');
    expect(daily).toHaveLength(29);
    for (const row of daily) {
      const registers = registerAt(SEED, METER, row.ts, '3P4W');
      expect(row.activeImport).toBe(registers.activeImport);
      expect(row.rates.reduce((a, b) => a + b, 0)).toBe(row.activeImport);
    }
    const monthly = monthlyFrozen(SEED, METER, '2025-12-15T00:00:00Z', '2026-03-01T00:00:00Z', '3P4W');
    expect(monthly.map((r) => r.ts)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-02-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
    expect(monthly[1]!.activeImport).toBe(daily[0]!.activeImport);
    // February's maximum demand is the highest of its days'.
    const febMax = Math.max(...daily.slice(1).map((r) => r.maxDemand));
    expect(monthly[2]!.maxDemand).toBe(febMax);
  });

  it('uses more energy every day, on a daily curve with evening above night, and sizes meters by wiring', () => {
    const days = dailyFrozen(SEED, METER, '2024-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
    for (let i = 1; i < days.length; i++) expect(days[i]!.activeImport).toBeGreaterThan(days[i - 1]!.activeImport);
    const rows = intervalProfile(SEED, METER, '2026-03-04T00:15:00Z', '2026-03-05T00:00:00Z');
    const at = (hhmm: string) => rows.find((r) => r.ts === `2026-03-04T${hhmm}:00.000Z`)!.energy;
    expect(at('19:45')).toBeGreaterThan(at('03:00'));
    const household = meterModel(SEED, METER, '1P2W').mean;
    const shop = meterModel(SEED, METER, '3P4W').mean;
    expect(shop).toBeGreaterThan(household);
    const spent = (days.at(-1)!.activeImport - days[0]!.activeImport) / (days.length - 1);
    expect(spent).toBeGreaterThan(household * 0.9);
    expect(spent).toBeLessThan(household * 1.1);
  });

  it('reads instantaneous values in their scaled units', () => {
    const now = instantaneous(meterModel(SEED, METER), Date.UTC(2026, 2, 4, 19, 40) + DAY_MS);
    expect(now.voltage).toBeGreaterThan(2200);
    expect(now.voltage).toBeLessThan(2400);
    expect(now.power).toBeGreaterThan(0);
    expect(now.current).toBe(Math.round((now.power / (now.voltage / 10)) * 1000));
  });

  it('raises outages and cover openings as a function of (seed, device, hour), each followed by its restoring event', () => {
    const rates = { powerOutagesPerDay: 2, coverOpensPerDay: 1 };
    const from = Date.UTC(2026, 0, 1);
    const to = Date.UTC(2026, 1, 1);
    const month = spontaneousEvents(SEED, 42, 'meter', from, to, rates);
    expect(spontaneousEvents(SEED, 42, 'meter', from, to, rates)).toEqual(month);
    const outages = month.filter((e) => e.code === 1);
    expect(outages.length).toBeGreaterThan(31);
    expect(outages.length).toBeLessThan(100);
    expect(outages[0]!.level).toBe('severe');
    expect(month.filter((e) => e.code === 2).length).toBeGreaterThanOrEqual(outages.length - 1);
    expect(month.some((e) => e.code === 40 || e.code === 44)).toBe(true);
    // A week read alone finds the same events as the month read in one go.
    const week = spontaneousEvents(SEED, 42, 'meter', from + 7 * DAY_MS, from + 14 * DAY_MS, rates);
    const inMonth = month.filter(
      (e) => Date.parse(e.time) >= from + 7 * DAY_MS && Date.parse(e.time) <= from + 14 * DAY_MS,
    );
    expect(week).toEqual(inMonth);
    expect(spontaneousEvents(SEED, 42, 'dcu', from, to, rates).every((e) => e.code === 80 || e.code === 81)).toBe(true);
  });
});
