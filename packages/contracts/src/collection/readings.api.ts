import { z } from 'zod';
import { METER_RES } from '../archive/meter.api';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { EVENT_LEVELS } from '../device/protocol';

/** Intervals in a day of the 15-minute load profile. */
export const INTERVALS_PER_DAY = 96;

const DAY_MS = 86_400_000;
const INTERVAL_MINUTES = (24 * 60) / INTERVALS_PER_DAY;
const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** A day's intervals by their end, `00:15` … `24:00`: the axis curves of different days share. */
export const DAY_SLOTS: readonly string[] = Array.from({ length: INTERVALS_PER_DAY }, (_, i) =>
  hhmm((i + 1) * INTERVAL_MINUTES),
);

/**
 * The UTC day an interval belongs to and its slot in it, from the interval's end (ISO): an interval
 * belongs to the day its end closes, so 24:00 is its day's last, not the next day's first.
 */
export function intervalSlot(ts: string): { day: string; slot: string } {
  const end = Date.parse(ts);
  const dayStart = Math.floor((end - 1) / DAY_MS) * DAY_MS;
  return { day: new Date(dayStart).toISOString().slice(0, 10), slot: hhmm((end - dayStart) / 60_000) };
}
/** spec §5: a date range is limited to a number of days (whole days, both ends included). */
export const MAX_DAILY_RANGE_DAYS = 92;
export const MAX_MONTHLY_RANGE_DAYS = 731;
export const MAX_EVENT_RANGE_DAYS = 31;

const isDay = (day: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(Date.parse(day)) && new Date(day).toISOString().startsWith(day);

/** A calendar day (UTC, as the readings store files its rows), `YYYY-MM-DD`; 2026-02-30 is none. */
export const DaySchema = z.string('mandatory').refine(isDay, { message: 'invalidDate' });

const meterDay = z.strictObject({ meterId: IdSchema, day: DaySchema });
const meterRange = z.strictObject({ meterId: IdSchema, startDay: DaySchema, endDay: DaySchema });
export type MeterDayQuery = z.infer<typeof meterDay>;
export type MeterRangeQuery = z.infer<typeof meterRange>;

/** The load profile's channels, in the order the screens show them. */
export const PROFILE_CHANNEL_KEYS = [
  'activeImport',
  'activeExport',
  'reactiveImport',
  'reactiveExport',
  'activePower',
  'voltageL1',
  'currentL1',
] as const;
export type ProfileChannelKey = (typeof PROFILE_CHANNEL_KEYS)[number];

/** The registers of a daily or monthly frozen row. */
export const FROZEN_REGISTER_KEYS = [
  'activeImport',
  'activeImportT1',
  'activeImportT2',
  'activeImportT3',
  'activeImportT4',
  'activeExport',
  'reactiveImport',
  'reactiveExport',
  'maxDemand',
] as const;
export type FrozenRegisterKey = (typeof FROZEN_REGISTER_KEYS)[number];

/** A column of readings: its OBIS item and the unit its values are in (after the catalogue's scaler). */
export const ReadingChannelSchema = z.object({
  key: z.string(),
  obis: z.string(),
  unit: z.string().describe("The unit's symbol ('' for none)"),
});
export type ReadingChannel = z.infer<typeof ReadingChannelSchema>;

const values = <K extends readonly [string, ...string[]]>(keys: K) =>
  z.object(
    Object.fromEntries(keys.map((k) => [k, z.number().nullable()])) as Record<K[number], z.ZodNullable<z.ZodNumber>>,
  );

export const ProfileRowSchema = z.object({
  ts: z.string().describe('ISO 8601, the end of the interval'),
  values: values(PROFILE_CHANNEL_KEYS),
});
export const MeterProfileSchema = z.object({
  day: z.string(),
  /** Intervals a complete day holds; `rows.length` short of it is what is missing. */
  expected: z.number().int(),
  channels: z.array(ReadingChannelSchema),
  rows: z.array(ProfileRowSchema),
});
export type MeterProfile = z.infer<typeof MeterProfileSchema>;

export const FrozenRowSchema = z.object({
  /** The day the midnight freeze closes (daily), or the month's first day (monthly). */
  day: z.string(),
  values: values(FROZEN_REGISTER_KEYS),
});
export const MeterFrozenSchema = z.object({ channels: z.array(ReadingChannelSchema), rows: z.array(FrozenRowSchema) });
export type MeterFrozen = z.infer<typeof MeterFrozenSchema>;

export const MeterEventRowSchema = z.object({
  time: z.string(),
  code: z.number().int(),
  /** The event definition's name, or '' for a code the catalogue lacks. */
  name: z.string(),
  level: z.enum(EVENT_LEVELS),
  data: z.record(z.string(), z.unknown()).nullable(),
});
export type MeterEventRow = z.infer<typeof MeterEventRowSchema>;

/** Events in a range: at most this many, newest first. */
export const MAX_EVENT_ROWS = 1000;

/** The meter detail page shows them: whoever may open a meter's detail reads its readings. */
const access = needs(METER_RES.detail);
const tag = 'readings';

export const readingsApi = {
  profile: defineOperation({
    path: '/readings/profile',
    access,
    tag,
    summary: `readings: a meter's load profile of one day (UTC; up to ${INTERVALS_PER_DAY} intervals), scaled by the OBIS catalogue; 404 outside the caller's grid scope`,
    request: meterDay,
    response: MeterProfileSchema,
  }),
  daily: defineOperation({
    path: '/readings/daily',
    access,
    tag,
    summary: `readings: a meter's daily frozen registers for days in [startDay, endDay] (at most ${MAX_DAILY_RANGE_DAYS} days, none after today), scaled`,
    request: meterRange,
    response: MeterFrozenSchema,
  }),
  monthly: defineOperation({
    path: '/readings/monthly',
    access,
    tag,
    summary: `readings: a meter's monthly frozen registers for months starting in [startDay, endDay] (at most ${MAX_MONTHLY_RANGE_DAYS} days, none after today), scaled`,
    request: meterRange,
    response: MeterFrozenSchema,
  }),
  events: defineOperation({
    path: '/readings/events',
    access,
    tag,
    summary: `readings: a meter's events on days in [startDay, endDay] (at most ${MAX_EVENT_RANGE_DAYS} days, none after today), newest first, at most ${MAX_EVENT_ROWS}`,
    request: meterRange,
    response: z.array(MeterEventRowSchema),
  }),
};

export const READING_RANGE_LIMITS = {
  daily: MAX_DAILY_RANGE_DAYS,
  monthly: MAX_MONTHLY_RANGE_DAYS,
  events: MAX_EVENT_RANGE_DAYS,
} as const;
