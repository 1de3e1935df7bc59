import { z } from 'zod';

/*
 * A TOU tariff's activity calendar (DLMS class 20, with the special days table of class 11), shared by
 * the server (its rules at save and push), the web editor (drawing and preview) and the simulator (which
 * rate register a moment's energy goes to). Times are a meter's wall clock: a day profile's `00:00` is
 * the meter's midnight, whatever zone it keeps.
 */

/** Rates 1–4: the active energy import registers 1-0:1.8.1.255 … 1-0:1.8.4.255. */
export const TOU_RATES = [1, 2, 3, 4] as const;
export type TouRate = (typeof TOU_RATES)[number];
/** Switching times one day profile holds at most (a meter's table is bounded whatever the settings say). */
export const MAX_DAY_SWITCHES = 24;
/** spec §5: a tariff interval is at least 5 minutes. */
export const MIN_TARIFF_INTERVAL_MINUTES = 5;
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

const profileId = z.number('mandatory').int('wholeNumber').min(1, 'outOfRange').max(255, 'outOfRange');
const clockTime = z.string('mandatory').regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'timeFormat');
/** `MM-DD` of any year (29 February included); a day that no month has is refused. */
const monthDay = z
  .string('mandatory')
  .regex(/^\d\d-\d\d$/, 'tariffDateFormat')
  .refine((v) => isMonthDay(v), 'tariffDateOutsideYear');
/** A special day: `YYYY-MM-DD` once, or `MM-DD` every year. */
const specialDate = z
  .string('mandatory')
  .regex(/^(\d{4}-)?\d\d-\d\d$/, 'tariffDateFormat')
  .refine((v) => (v.length === 5 ? isMonthDay(v) : isCalendarDate(v)), 'tariffDateOutsideYear');

export const TouSwitchSchema = z.strictObject({
  /** From this time of day (HH:mm) until the next switch, `rate` applies. */
  time: clockTime,
  rate: z.number('mandatory').int('tariffUnknownRate').min(1, 'tariffUnknownRate').max(4, 'tariffUnknownRate'),
});
export type TouSwitch = z.infer<typeof TouSwitchSchema>;

export const TouDayProfileSchema = z.strictObject({
  dayId: profileId,
  /** Ordered, the first at 00:00, each at least MIN_TARIFF_INTERVAL_MINUTES after the one before. */
  switches: z.array(TouSwitchSchema).min(1, 'mandatory').max(MAX_DAY_SWITCHES, 'tooLong'),
});
export type TouDayProfile = z.infer<typeof TouDayProfileSchema>;

export const TouWeekProfileSchema = z.strictObject({
  weekId: profileId,
  /** The day profile of Monday … Sunday. */
  days: z.array(profileId).length(7, 'tariffWeekDays'),
});
export type TouWeekProfile = z.infer<typeof TouWeekProfileSchema>;

export const TouSeasonSchema = z.strictObject({
  /** `MM-DD`: the season runs from this day until the next season's start (the last wraps to the first). */
  start: monthDay,
  weekId: profileId,
});
export type TouSeason = z.infer<typeof TouSeasonSchema>;

export const TouSpecialDaySchema = z.strictObject({
  date: specialDate,
  dayId: profileId,
});
export type TouSpecialDay = z.infer<typeof TouSpecialDaySchema>;

/** The lists' own bounds only; the limitation settings and the rules between parts are `calendarIssues`. */
export const TouCalendarSchema = z.strictObject({
  seasons: z.array(TouSeasonSchema).min(1, 'mandatory').max(255, 'tooLong'),
  weeks: z.array(TouWeekProfileSchema).min(1, 'mandatory').max(255, 'tooLong'),
  days: z.array(TouDayProfileSchema).min(1, 'mandatory').max(255, 'tooLong'),
  specialDays: z.array(TouSpecialDaySchema).max(999, 'tooLong').default([]),
});
export type TouCalendar = z.infer<typeof TouCalendarSchema>;

/** The TOU limitation settings (System Settings; `sys_tariff_config`) a calendar is bounded by. */
export interface TouLimits {
  /** Distinct rates one tariff uses. */
  tariffValidCount: number;
  tariffDays: number;
  tariffWeeks: number;
  tariffSeasons: number;
  tariffSpecialDays: number;
}

export interface CalendarIssue {
  path: (string | number)[];
  /** A MESSAGES key. */
  key: string;
  params?: { max?: number; min?: number };
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function isMonthDay(v: string): boolean {
  const month = Number(v.slice(0, 2));
  const day = Number(v.slice(3, 5));
  return month >= 1 && month <= 12 && day >= 1 && day <= (DAYS_IN_MONTH[month - 1] ?? 0);
}
function isCalendarDate(v: string): boolean {
  const time = Date.parse(`${v}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === v;
}
export const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * What a calendar that passes its schema still gets wrong: switching times unordered, not starting at
 * midnight or closer than 5 minutes; profiles named twice or not at all; a week or day no season (or
 * special day) reaches; seasons unordered; and, given the limitation settings, any count above them
 * (`exceedingLimitation`, which points to those settings). Empty when the calendar may be saved.
 */
export function calendarIssues(calendar: TouCalendar, limits?: TouLimits): CalendarIssue[] {
  const issues: CalendarIssue[] = [];
  const dayIds = new Set<number>();
  calendar.days.forEach((day, d) => {
    if (dayIds.has(day.dayId)) issues.push({ path: ['days', d, 'dayId'], key: 'tariffDuplicateProfile' });
    dayIds.add(day.dayId);
    day.switches.forEach((s, i) => {
      const at = minutesOf(s.time);
      if (i === 0) {
        if (at !== 0) issues.push({ path: ['days', d, 'switches', 0, 'time'], key: 'tariffDayStart' });
        return;
      }
      const before = minutesOf(day.switches[i - 1]?.time ?? '00:00');
      if (at <= before) issues.push({ path: ['days', d, 'switches', i, 'time'], key: 'tariffSwitchOrder' });
      else if (at - before < MIN_TARIFF_INTERVAL_MINUTES)
        issues.push({ path: ['days', d, 'switches', i, 'time'], key: 'tariffInterval' });
    });
    const last = day.switches.at(-1);
    if (last && day.switches.length > 1 && 24 * 60 - minutesOf(last.time) < MIN_TARIFF_INTERVAL_MINUTES)
      issues.push({ path: ['days', d, 'switches', day.switches.length - 1, 'time'], key: 'tariffInterval' });
  });

  const weekIds = new Set<number>();
  const daysReached = new Set<number>();
  calendar.weeks.forEach((week, w) => {
    if (weekIds.has(week.weekId)) issues.push({ path: ['weeks', w, 'weekId'], key: 'tariffDuplicateProfile' });
    weekIds.add(week.weekId);
    week.days.forEach((dayId, i) => {
      if (!dayIds.has(dayId)) issues.push({ path: ['weeks', w, 'days', i], key: 'tariffUnknownDay' });
    });
  });

  const weeksReached = new Set<number>();
  calendar.seasons.forEach((season, s) => {
    if (!weekIds.has(season.weekId)) issues.push({ path: ['seasons', s, 'weekId'], key: 'tariffUnknownWeek' });
    weeksReached.add(season.weekId);
    const before = calendar.seasons[s - 1];
    if (before && season.start <= before.start)
      issues.push({ path: ['seasons', s, 'start'], key: 'tariffSeasonOrder' });
  });
  for (const week of calendar.weeks) if (weeksReached.has(week.weekId)) for (const d of week.days) daysReached.add(d);

  const dates = new Set<string>();
  calendar.specialDays.forEach((special, i) => {
    if (!dayIds.has(special.dayId)) issues.push({ path: ['specialDays', i, 'dayId'], key: 'tariffUnknownDay' });
    if (dates.has(special.date)) issues.push({ path: ['specialDays', i, 'date'], key: 'tariffDuplicateDate' });
    dates.add(special.date);
    daysReached.add(special.dayId);
  });

  calendar.weeks.forEach((week, w) => {
    if (!weeksReached.has(week.weekId)) issues.push({ path: ['weeks', w, 'weekId'], key: 'tariffUnreachableWeek' });
  });
  calendar.days.forEach((day, d) => {
    if (!daysReached.has(day.dayId)) issues.push({ path: ['days', d, 'dayId'], key: 'tariffUnreachableDay' });
  });

  if (limits) {
    const over = (path: string, count: number, max: number) => {
      if (count > max) issues.push({ path: [path], key: 'exceedingLimitation', params: { max } });
    };
    over('days', calendar.days.length, limits.tariffDays);
    over('weeks', calendar.weeks.length, limits.tariffWeeks);
    over('seasons', calendar.seasons.length, limits.tariffSeasons);
    over('specialDays', calendar.specialDays.length, limits.tariffSpecialDays);
    over('rates', ratesUsed(calendar).length, limits.tariffValidCount);
  }
  return issues;
}

/** The rates any day profile switches to, ascending. */
export function ratesUsed(calendar: TouCalendar): TouRate[] {
  const rates = new Set<number>();
  for (const day of calendar.days) for (const s of day.switches) rates.add(s.rate);
  return TOU_RATES.filter((r) => rates.has(r));
}

/** A wall-clock moment of the meter: a date and a time of day. */
export interface WallClock {
  /** `YYYY-MM-DD` */
  date: string;
  /** `HH:mm` */
  time: string;
}

export interface RateAt {
  rate: TouRate;
  /** Index into `calendar.seasons`, or null on a special day. */
  season: number | null;
  weekId: number | null;
  dayId: number;
  /** Index into `calendar.specialDays` when the date is one. */
  specialDay: number | null;
}

/** The day profile a date follows: a special day's (dated first, then every-year), else its season's week's. */
export function dayProfileOn(calendar: TouCalendar, date: string): Omit<RateAt, 'rate'> | null {
  const dated = calendar.specialDays.findIndex((s) => s.date === date);
  const yearly = dated >= 0 ? dated : calendar.specialDays.findIndex((s) => s.date === date.slice(5));
  const special = calendar.specialDays[yearly];
  if (special) return { season: null, weekId: null, dayId: special.dayId, specialDay: yearly };
  const seasons = calendar.seasons;
  if (seasons.length === 0) return null;
  const monthDayOf = date.slice(5);
  let season = seasons.length - 1;
  for (let i = 0; i < seasons.length; i++) if ((seasons[i]?.start ?? '') <= monthDayOf) season = i;
  const weekId = seasons[season]?.weekId ?? 0;
  const week = calendar.weeks.find((w) => w.weekId === weekId);
  if (!week) return null;
  const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
  const dayId = week.days[weekday];
  return dayId === undefined ? null : { season, weekId, dayId, specialDay: null };
}

/**
 * Which rate a calendar applies at a wall-clock moment, and why (season, week, day or special day).
 * Null when the calendar does not say (one with issues).
 */
export function rateAt(calendar: TouCalendar, at: WallClock): RateAt | null {
  const profile = dayProfileOn(calendar, at.date);
  if (!profile) return null;
  const day = calendar.days.find((d) => d.dayId === profile.dayId);
  if (!day) return null;
  const minute = minutesOf(at.time);
  let rate: number | undefined;
  for (const s of day.switches) if (minutesOf(s.time) <= minute) rate = s.rate;
  rate ??= day.switches.at(-1)?.rate;
  return rate === undefined ? null : { ...profile, rate: rate as TouRate };
}

/** A moment's wall clock in UTC (the simulator keeps its meters' clocks in UTC). */
export function utcWallClock(time: Date): WallClock {
  const iso = time.toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}
