import { DAY_SLOTS, intervalSlot, type MeterProfile, type ProfileChannelKey } from '@meterdesk/contracts';
import { type ChartData, specData } from '@/charts/chart-option';
import { addDays } from './meter-data-days';

/** The days before the chosen one its profile may be compared with. */
export const COMPARE_DAYS = { none: 0, dayBefore: 1, weekBefore: 6 } as const;
export type CompareChoice = keyof typeof COMPARE_DAYS;

/** The days whose profiles the tab overlays: the chosen day first, then the days before it. */
export const profileDays = (day: string, compare: CompareChoice) =>
  Array.from({ length: COMPARE_DAYS[compare] + 1 }, (_, i) => addDays(day, -i));

/**
 * One channel of days' profiles as the chart draws them: a line per day over the day's 96 slots, so
 * days share the axis, and a slot without an interval (or without a value) is a gap in its line.
 */
export function profileChartData(
  profiles: readonly MeterProfile[],
  channel: ProfileChannelKey,
  labels: { channel: string; time: string },
): ChartData {
  const points = profiles.flatMap((profile) =>
    profile.rows.map((row) => ({
      slot: intervalSlot(row.ts).slot,
      curve: profile.day,
      [channel]: row.values[channel],
    })),
  );
  return specData(
    { kind: 'line', x: 'slot', xType: 'category', series: [channel], seriesBy: 'curve', categories: DAY_SLOTS },
    points,
    (field) => (field === channel ? labels.channel : labels.time),
  );
}
