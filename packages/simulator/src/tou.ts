import {
  ACTIVITY_CALENDAR,
  calendarIssues,
  dayProfileOn,
  minutesOf,
  OBIS,
  RESULT_CODES,
  type ResultCode,
  SPECIAL_DAYS_TABLE,
  type TouCalendar,
  TouCalendarSchema,
  type TouDayProfile,
  utcWallClock,
} from '@meterdesk/contracts';
import { activeImportAt, DAY_MS, fixedSplit, type MeterModel } from './energy';

/*
 * A meter's time of use: the activity calendar (class 20, active and passive) and the special days
 * table (class 11), and the rate registers 1–4 they fill.
 *
 * Before a meter's first activation the rates are the fixed per-meter split of the total (energy.ts).
 * Each activation starts an epoch at the true instant it happened: the rates at that instant are its
 * base, and from then on the energy of every stretch the calendar gives one rate (the stretches between
 * its switching times, UTC days) is added to that rate, the energy of a stretch being the difference
 * of the closed-form total at its ends. So the rates sum to the total, never decrease, and any past
 * instant reads the same later. Each epoch keeps the rates at every midnight it has been asked past,
 * so a register read a year after the activation adds one day, not 35,000 quarter hours.
 */

type Rates = [number, number, number, number];

/** The calendar an epoch runs: the class 20 profiles with the special days written with them. */
type Calendar = Pick<TouCalendar, 'seasons' | 'weeks' | 'days' | 'specialDays'>;

interface Epoch {
  /** True time (ms) of the activation. */
  from: number;
  calendar: Calendar;
  base: Rates;
  firstDay: number;
  /** `midnights[i]`: the rates at 00:00 of day `firstDay + 1 + i`. */
  midnights: Rates[];
}

interface CalendarParts {
  name: string | null;
  seasons: TouCalendar['seasons'] | null;
  weeks: TouCalendar['weeks'] | null;
  days: TouCalendar['days'] | null;
}

const NO_PARTS: CalendarParts = { name: null, seasons: null, weeks: null, days: null };

/** One activation waiting for the meter's clock. */
interface Armed {
  /** The activation time as the meter's clock reads it, ms. */
  at: number;
  /** No earlier than when it was armed, nor than the last clock set: the meter switches from there. */
  notBefore: number;
}

const A = ACTIVITY_CALENDAR.attributes;
/** The order of attributes 2–5 and 6–9. */
const PARTS = ['name', 'seasons', 'weeks', 'days'] as const;
/** A value a writable attribute accepts, or undefined. */
type Check = (value: unknown) => unknown;
const parsedBy =
  (schema: { safeParse(v: unknown): { success: boolean; data?: unknown } }): Check =>
  (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  };
const isoTime: Check = (v) =>
  typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v) && Number.isFinite(Date.parse(v)) ? v : undefined;
const calendarName: Check = (v) => (typeof v === 'string' && v.length <= 255 ? v : undefined);
const specialDayList: Check = (v) => (Array.isArray(v) ? parsedBy(TouCalendarSchema.shape.specialDays)(v) : undefined);

/** What each writable attribute accepts, and the part of the passive calendar it writes. */
const WRITABLE: Record<string, { check: Check; part: keyof Calendar | 'name' | 'activation' }> = {
  [`${OBIS.activityCalendar}/${A.calendarNamePassive}`]: { check: calendarName, part: 'name' },
  [`${OBIS.activityCalendar}/${A.seasonsPassive}`]: {
    check: parsedBy(TouCalendarSchema.shape.seasons),
    part: 'seasons',
  },
  [`${OBIS.activityCalendar}/${A.weeksPassive}`]: { check: parsedBy(TouCalendarSchema.shape.weeks), part: 'weeks' },
  [`${OBIS.activityCalendar}/${A.daysPassive}`]: { check: parsedBy(TouCalendarSchema.shape.days), part: 'days' },
  [`${OBIS.activityCalendar}/${A.activatePassiveTime}`]: { check: isoTime, part: 'activation' },
  [`${OBIS.specialDays}/${SPECIAL_DAYS_TABLE.attributes.entries}`]: { check: specialDayList, part: 'specialDays' },
};

/** Whether a set item addresses the calendar or the special days (written together, see `write`). */
export const isCalendarWrite = (item: { obis: string; classId: number; attribute: number }) =>
  `${item.obis}/${item.attribute}` in WRITABLE &&
  item.classId === (item.obis === OBIS.specialDays ? SPECIAL_DAYS_TABLE.classId : ACTIVITY_CALENDAR.classId);

export interface CalendarItem {
  obis: string;
  attribute: number;
  value?: unknown;
}

export class MeterCalendar {
  active: CalendarParts & { specialDays: TouCalendar['specialDays'] } = { ...NO_PARTS, specialDays: [] };
  passive: CalendarParts & { specialDays: TouCalendar['specialDays'] } = { ...NO_PARTS, specialDays: [] };
  /** Attribute 10 as last written (ISO), kept after the activation as a meter keeps it. */
  activationTime: string | null = null;
  armed: Armed | null = null;
  /** True time (ms) of the last activation. */
  activatedAt: number | null = null;
  private readonly epochs: Epoch[] = [];

  /** Attributes 2–10 of class 20 (2–5 the active calendar, 6–9 the passive) and attribute 2 of class 11. */
  read(obis: string, attribute: number): unknown {
    if (obis === OBIS.specialDays) return this.passive.specialDays;
    if (attribute === A.activatePassiveTime) return this.activationTime;
    const parts = attribute >= A.calendarNamePassive ? this.passive : this.active;
    return parts[PARTS[(attribute - A.calendarNameActive) % PARTS.length]!];
  }

  /**
   * A command's writes of the passive calendar (6–10) and the special days, together or not at all:
   * each value against its part's schema, then the passive calendar they leave against the rules
   * between its parts (when it has all three parts; writing the activation time needs them). Answers
   * each item's code by its index. Arming with a time already past activates at the next settle.
   */
  write(items: CalendarItem[], now: number): ResultCode[] {
    const codes = items.map((): ResultCode => RESULT_CODES.success);
    const draft = { ...this.passive };
    let activation: string | null = null;
    items.forEach((item, i) => {
      const writable = WRITABLE[`${item.obis}/${item.attribute}`]!;
      const value = writable.check(item.value);
      if (value === undefined) codes[i] = RESULT_CODES.failure;
      else if (writable.part === 'activation') activation = value as string;
      else Object.assign(draft, { [writable.part]: value });
    });
    const calendar = completeCalendar(draft);
    // An inconsistent calendar is no one item's fault (days a week no longer names): all of them fail.
    if (calendar ? calendarIssues(calendar).length > 0 : activation !== null)
      return codes.map(() => RESULT_CODES.failure);
    if (codes.includes(RESULT_CODES.failure)) return codes.map(() => RESULT_CODES.failure);
    this.passive = draft;
    if (activation !== null) {
      this.activationTime = activation;
      this.armed = { at: Date.parse(activation), notBefore: now };
    }
    return codes;
  }

  /** Method 1, activate_passive_calendar: the passive calendar now, if it is whole and valid. */
  activatePassive(model: MeterModel, now: number): boolean {
    const calendar = completeCalendar(this.passive);
    if (!calendar || calendarIssues(calendar).length > 0) return false;
    this.activate(model, now);
    return true;
  }

  /**
   * Activates the armed calendar once the meter's clock has reached its time: at the true instant it
   * did (`trueTimeOf`), never before it was armed or the clock last set, never after `now`.
   */
  settle(model: MeterModel, now: number, deviceTime: number, trueTimeOf: (deviceMs: number) => number): void {
    if (!this.armed || deviceTime < this.armed.at) return;
    const reached = Math.ceil(trueTimeOf(this.armed.at));
    this.activate(model, Math.min(now, Math.max(reached, this.armed.notBefore)));
  }

  /** The clock is about to be set: an armed activation waits for the new clock from now on. */
  clockSet(now: number): void {
    if (this.armed) this.armed.notBefore = Math.max(this.armed.notBefore, now);
  }

  /** Rates 1–4 at a true instant; null before the first activation (the fixed split applies). */
  ratesAt(model: MeterModel, ms: number): Rates | null {
    let epoch: Epoch | undefined;
    for (let i = this.epochs.length - 1; i >= 0 && !epoch; i--) if (this.epochs[i]!.from <= ms) epoch = this.epochs[i];
    if (!epoch) return null;
    const day = Math.floor(ms / DAY_MS);
    if (day === epoch.firstDay) return add(epoch.base, energyByRate(model, epoch.calendar, epoch.from, ms));
    while (epoch.midnights.length < day - epoch.firstDay) {
      const i = epoch.midnights.length;
      const before = i === 0 ? epoch.base : epoch.midnights[i - 1]!;
      const start = i === 0 ? epoch.from : (epoch.firstDay + i) * DAY_MS;
      epoch.midnights.push(add(before, energyByRate(model, epoch.calendar, start, (epoch.firstDay + i + 1) * DAY_MS)));
    }
    return add(epoch.midnights[day - epoch.firstDay - 1]!, energyByRate(model, epoch.calendar, day * DAY_MS, ms));
  }

  private activate(model: MeterModel, at: number): void {
    const calendar = completeCalendar(this.passive)!;
    const last = this.epochs.at(-1);
    const from = Math.max(at, last?.from ?? at);
    const base = this.ratesAt(model, from) ?? fixedSplit(model, activeImportAt(model, from));
    this.epochs.push({ from, calendar, base, firstDay: Math.floor(from / DAY_MS), midnights: [] });
    this.active = { ...this.passive };
    this.activatedAt = from;
    this.armed = null;
  }
}

function completeCalendar(parts: CalendarParts & { specialDays: TouCalendar['specialDays'] }): Calendar | null {
  const { seasons, weeks, days, specialDays } = parts;
  return seasons && weeks && days ? { seasons, weeks, days, specialDays } : null;
}

const add = (a: Rates, b: Rates): Rates => [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]];

/** The stretches of a day profile as [from minute, to minute, rate]: before its first switch, its last rate. */
function stretches(day: TouDayProfile | undefined): [number, number, number][] {
  if (!day || day.switches.length === 0) return [[0, 24 * 60, 1]];
  const out: [number, number, number][] = [];
  const first = minutesOf(day.switches[0]!.time);
  if (first > 0) out.push([0, first, day.switches.at(-1)!.rate]);
  day.switches.forEach((s, i) => {
    const next = day.switches[i + 1];
    out.push([minutesOf(s.time), next ? minutesOf(next.time) : 24 * 60, s.rate]);
  });
  return out;
}

/** Energy of [from, to] (one UTC day, `to` at most the next midnight) by the rate the calendar names. */
function energyByRate(m: MeterModel, calendar: Calendar, from: number, to: number): Rates {
  const rates: Rates = [0, 0, 0, 0];
  if (to <= from) return rates;
  const midnight = Math.floor(from / DAY_MS) * DAY_MS;
  const profile = dayProfileOn(calendar as TouCalendar, utcWallClock(new Date(midnight)).date);
  const day = profile ? calendar.days.find((d) => d.dayId === profile.dayId) : undefined;
  for (const [start, end, rate] of stretches(day)) {
    const a = Math.max(from, midnight + start * 60_000);
    const b = Math.min(to, midnight + end * 60_000);
    if (b > a) rates[rate - 1] = (rates[rate - 1] ?? 0) + activeImportAt(m, b) - activeImportAt(m, a);
  }
  return rates;
}
