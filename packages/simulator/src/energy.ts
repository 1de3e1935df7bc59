import type { FleetMeter } from '@meterdesk/contracts';
import { draw, hashString, PURPOSE } from './random';

/*
 * Energy as a closed-form function of (seed, meter, time), so any past period can be answered and
 * answers the same later:
 *
 *   register(day D) = base + mean·(D − D₀) + g(D) − g(D₀)
 *   g(D) = weekly(D) + seasonal(D) + noise(D)        (each bounded)
 *
 * so a day's energy, register(D+1) − register(D), is mean·(weekday factor + season) plus a bounded
 * difference of noise, always positive. A day's energy is spread over its 96 quarter hours along a
 * daily curve (morning and evening peaks for households, business hours for commerce) with a little
 * noise, rounded cumulatively so the intervals sum to the day exactly. Days are UTC days.
 */

export type Wiring = FleetMeter['wiring'];
/** A time: a Date, an ISO string or epoch milliseconds. */
export type When = Date | string | number;

export const DAY_MS = 86_400_000;
export const SLOT_MS = 900_000;
const SLOTS = 96;
/** Every simulated meter was installed then; nothing is recorded before. */
export const INSTALLED_MS = Date.UTC(2000, 0, 1);
const INSTALLED_DAY = INSTALLED_MS / DAY_MS;
const YEAR_DAYS = 365.25;
const SEASON_AMPLITUDE = 0.15;

export interface MeterModel {
  seed: number;
  key: number;
  commercial: boolean;
  phases: number;
  /** Mean daily energy, Wh. */
  mean: number;
  noise: number;
  base: number;
  /** Shares of rates 1–3 (rate 4 takes the rest). */
  split: [number, number, number];
  reactiveRatio: number;
  /** The last day whose intervals were spread: reads walk a day's 96 intervals one after another. */
  cachedDay: number;
  cachedCumulative: Int32Array | null;
}

const HOUSEHOLD_WEEKDAY = 0.952;
const HOUSEHOLD_WEEKEND = 1.12;
const COMMERCIAL_WEEKDAY = 1.2;
const COMMERCIAL_WEEKEND = 0.5;

const models = new Map<string, MeterModel>();
const MODEL_CACHE = 100_000;

export function meterModel(seed: number, devAddr: string, wiring: Wiring = '1P2W'): MeterModel {
  const id = `${seed}|${wiring}|${devAddr}`;
  const cached = models.get(id);
  if (cached) return cached;
  const key = hashString(devAddr);
  const commercial = wiring !== '1P2W';
  // Households use 5–15 kWh a day; shops and small businesses on three phases 40–160 kWh.
  const size = draw(seed, key, PURPOSE.size);
  const mean = commercial ? 40_000 + 120_000 * size : 5_000 + 10_000 * size;
  const lowestFactor = (commercial ? COMMERCIAL_WEEKEND : HOUSEHOLD_WEEKDAY) - SEASON_AMPLITUDE;
  const a = 0.2 + 0.15 * draw(seed, key, PURPOSE.split, 1);
  const b = 0.3 + 0.15 * draw(seed, key, PURPOSE.split, 2);
  const c = 0.15 + 0.1 * draw(seed, key, PURPOSE.split, 3);
  const model: MeterModel = {
    seed,
    key,
    commercial,
    phases: wiring === '1P2W' ? 1 : 3,
    mean,
    noise: 0.2 * mean * lowestFactor,
    base: Math.round(mean * 365 * (0.5 + 3 * draw(seed, key, PURPOSE.base))),
    split: [a, b, c],
    reactiveRatio: 0.15 + 0.2 * draw(seed, key, PURPOSE.split, 4),
    cachedDay: Number.NaN,
    cachedCumulative: null,
  };
  if (models.size >= MODEL_CACHE) models.clear();
  models.set(id, model);
  return model;
}

export function toMs(when: When): number {
  const ms = when instanceof Date ? when.getTime() : typeof when === 'string' ? Date.parse(when) : when;
  if (!Number.isFinite(ms)) throw new RangeError(`not a time: ${String(when)}`);
  return ms;
}

const weekend = (day: number) => {
  const dow = (((day + 4) % 7) + 7) % 7;
  return dow === 0 || dow === 6;
};

function dayFactor(m: MeterModel, day: number): number {
  if (m.commercial) return weekend(day) ? COMMERCIAL_WEEKEND : COMMERCIAL_WEEKDAY;
  return weekend(day) ? HOUSEHOLD_WEEKEND : HOUSEHOLD_WEEKDAY;
}

/** The week's running excess over the mean; back to zero at each week's start because the factors average 1. */
function weekly(m: MeterModel, day: number): number {
  let sum = 0;
  for (let d = day - (((day % 7) + 7) % 7); d < day; d++) sum += dayFactor(m, d) - 1;
  return m.mean * sum;
}

function g(m: MeterModel, day: number): number {
  const seasonal =
    ((m.mean * SEASON_AMPLITUDE * YEAR_DAYS) / (2 * Math.PI)) * Math.sin((2 * Math.PI * day) / YEAR_DAYS);
  const noise = m.noise * (2 * draw(m.seed, m.key, PURPOSE.dayNoise, day) - 1);
  return weekly(m, day) + seasonal + noise;
}

/** Active import register at 00:00 UTC of `day` (days since the epoch), Wh. */
function registerAtDay(m: MeterModel, day: number): number {
  const d = Math.max(day, INSTALLED_DAY);
  return Math.round(m.base + m.mean * (d - INSTALLED_DAY) + g(m, d) - g(m, INSTALLED_DAY));
}

const gauss = (h: number, centre: number, width: number) => Math.exp(-(((h - centre) / width) ** 2) / 2);
const curve = (fn: (hour: number) => number) => Float64Array.from({ length: SLOTS }, (_, k) => fn((k + 0.5) / 4));
const CURVES = {
  householdWeekday: curve((h) => 0.3 + 0.7 * gauss(h, 7.25, 1) + gauss(h, 19.5, 1.8) + 0.25 * gauss(h, 13, 2.5)),
  householdWeekend: curve((h) => 0.35 + 0.6 * gauss(h, 9.5, 1.6) + gauss(h, 19, 2) + 0.4 * gauss(h, 13.5, 2.5)),
  commercialWeekday: curve((h) => 0.25 + 1 / (1 + Math.exp(-(h - 8) * 2)) - 1 / (1 + Math.exp(-(h - 18.5) * 2))),
  commercialWeekend: curve((h) => 0.25 + 0.25 / (1 + Math.exp(-(h - 9) * 2)) - 0.25 / (1 + Math.exp(-(h - 14) * 2))),
};

/** Cumulative energy (Wh) at each quarter-hour boundary of `day`: 97 values from 0 to the day's energy. */
function dayCumulative(m: MeterModel, day: number): Int32Array {
  if (m.cachedDay === day && m.cachedCumulative) return m.cachedCumulative;
  const energy = registerAtDay(m, day + 1) - registerAtDay(m, day);
  const shape = m.commercial
    ? weekend(day)
      ? CURVES.commercialWeekend
      : CURVES.commercialWeekday
    : weekend(day)
      ? CURVES.householdWeekend
      : CURVES.householdWeekday;
  const weights = new Float64Array(SLOTS);
  let total = 0;
  for (let k = 0; k < SLOTS; k++) {
    weights[k] = shape[k]! * (0.8 + 0.4 * draw(m.seed, m.key, PURPOSE.slotNoise, day, k));
    total += weights[k]!;
  }
  const cumulative = new Int32Array(SLOTS + 1);
  let running = 0;
  for (let k = 0; k < SLOTS; k++) {
    running += weights[k]!;
    cumulative[k + 1] = Math.round((energy * running) / total);
  }
  cumulative[SLOTS] = energy;
  m.cachedDay = day;
  m.cachedCumulative = cumulative;
  return cumulative;
}

/**
 * One UTC day of a meter, for a history written in bulk (millions of meter-days, where building each
 * interval row would cost more than the write): the active import register at 00:00 and the
 * cumulative energy at the day's 97 quarter-hour boundaries, from 0 to the day's energy. So interval
 * k (ending at 00:15 + k × 15 min) holds `cumulative[k + 1] − cumulative[k]` and the register at its end
 * is `start + cumulative[k + 1]`, as `intervalRows` answers. The array is the model's cache: read it
 * before asking for another day.
 */
export function meterDay(m: MeterModel, day: number): { start: number; cumulative: Int32Array } {
  return { start: registerAtDay(m, day), cumulative: dayCumulative(m, day) };
}

export interface Registers {
  /** Active energy import (+A) total and rates 1–4, Wh. */
  activeImport: number;
  rates: [number, number, number, number];
  activeExport: number;
  reactiveImport: number;
  reactiveExport: number;
}

/** Active import register at an instant (Wh), interpolated within its quarter hour. */
export function activeImportAt(m: MeterModel, ms: number): number {
  if (ms <= INSTALLED_MS) return m.base;
  const day = Math.floor(ms / DAY_MS);
  const intoDay = ms - day * DAY_MS;
  const slot = Math.floor(intoDay / SLOT_MS);
  const cumulative = dayCumulative(m, day);
  const within = (cumulative[slot + 1]! - cumulative[slot]!) * ((intoDay - slot * SLOT_MS) / SLOT_MS);
  return registerAtDay(m, day) + cumulative[slot]! + Math.floor(within);
}

/**
 * Rates 1–4 of a meter without a TOU calendar (and until its first activation, tou.ts): a fixed
 * per-meter split of the total keeps each closed-form and never decreasing; rate 4 takes the rest.
 */
export function fixedSplit(m: Pick<MeterModel, 'split'>, total: number): Registers['rates'] {
  const r1 = Math.floor(total * m.split[0]);
  const r2 = Math.floor(total * m.split[1]);
  const r3 = Math.floor(total * m.split[2]);
  return [r1, r2, r3, total - r1 - r2 - r3];
}

export function registersOf(m: Pick<MeterModel, 'split' | 'reactiveRatio'>, total: number): Registers {
  return {
    activeImport: total,
    rates: fixedSplit(m, total),
    activeExport: 0,
    reactiveImport: Math.floor(total * m.reactiveRatio),
    reactiveExport: Math.floor(total * 0.01),
  };
}

export function registersAt(m: MeterModel, when: When): Registers {
  return registersOf(m, activeImportAt(m, toMs(when)));
}

/** The meter's registers at any instant, consistent with its intervals. */
export function registerAt(seed: number, devAddr: string, when: When, wiring: Wiring = '1P2W'): Registers {
  return registersAt(meterModel(seed, devAddr, wiring), when);
}

export interface IntervalRow {
  /** End of the interval (the capture time), ISO. */
  ts: string;
  /** Energy in the interval, Wh. */
  energy: number;
  /** Active import register at `ts`, Wh. */
  activeImport: number;
}

/** Interval rows captured every `periodMs` (a multiple of 15 minutes) with from ≤ ts ≤ to. */
export function intervalRows(m: MeterModel, from: When, to: When, periodMs = SLOT_MS): IntervalRow[] {
  const start = Math.max(Math.ceil(toMs(from) / periodMs) * periodMs, INSTALLED_MS + periodMs);
  const end = toMs(to);
  const rows: IntervalRow[] = [];
  let previous = start - periodMs;
  let previousRegister = activeImportAt(m, previous);
  for (let ts = start; ts <= end; ts += periodMs) {
    const register = activeImportAt(m, ts);
    rows.push({ ts: new Date(ts).toISOString(), energy: register - previousRegister, activeImport: register });
    previous = ts;
    previousRegister = register;
  }
  return rows;
}

/** The 15-minute load profile of a meter between two times (capture times included at both ends). */
export function intervalProfile(seed: number, devAddr: string, from: When, to: When, wiring: Wiring = '1P2W') {
  return intervalRows(meterModel(seed, devAddr, wiring), from, to);
}

/** Highest 15-minute demand of a day, W. */
function maxDemandOfDay(m: MeterModel, day: number): number {
  const cumulative = dayCumulative(m, day);
  let max = 0;
  for (let k = 0; k < SLOTS; k++) max = Math.max(max, cumulative[k + 1]! - cumulative[k]!);
  return max * 4;
}

export interface FrozenRow extends Registers {
  /** The freezing instant (00:00 UTC), ISO. */
  ts: string;
  /** Highest 15-minute demand of the period that ended at `ts`, W. */
  maxDemand: number;
}

const frozenRow = (m: MeterModel, ms: number, maxDemand: number): FrozenRow => ({
  ts: new Date(ms).toISOString(),
  ...registersOf(m, registerAtDay(m, ms / DAY_MS)),
  maxDemand,
});

export function dailyRows(m: MeterModel, from: When, to: When): FrozenRow[] {
  const first = Math.max(Math.ceil(toMs(from) / DAY_MS), INSTALLED_DAY + 1);
  const last = Math.floor(toMs(to) / DAY_MS);
  const rows: FrozenRow[] = [];
  for (let day = first; day <= last; day++) rows.push(frozenRow(m, day * DAY_MS, maxDemandOfDay(m, day - 1)));
  return rows;
}

/** Daily frozen values: the registers at each midnight in the range and the previous day's maximum demand. */
export function dailyFrozen(seed: number, devAddr: string, from: When, to: When, wiring: Wiring = '1P2W') {
  return dailyRows(meterModel(seed, devAddr, wiring), from, to);
}

export function monthlyRows(m: MeterModel, from: When, to: When): FrozenRow[] {
  const start = new Date(Math.max(toMs(from), INSTALLED_MS + 1));
  const end = toMs(to);
  let month = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1);
  if (month < start.getTime()) month = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
  const rows: FrozenRow[] = [];
  while (month <= end) {
    const date = new Date(month);
    const previous = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 1, 1);
    let maxDemand = 0;
    for (let day = previous / DAY_MS; day < month / DAY_MS; day++)
      maxDemand = Math.max(maxDemand, maxDemandOfDay(m, day));
    rows.push(frozenRow(m, month, maxDemand));
    month = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  }
  return rows;
}

/** Monthly billing values: the registers at 00:00 UTC of each month's first day, with the month before's maximum demand. */
export function monthlyFrozen(seed: number, devAddr: string, from: When, to: When, wiring: Wiring = '1P2W') {
  return monthlyRows(meterModel(seed, devAddr, wiring), from, to);
}

export interface Instantaneous {
  /** Decivolts (scaler −1). */
  voltage: number;
  /** Milliamperes (scaler −3). */
  current: number;
  /** W. */
  power: number;
}

/** Voltage, current and power at an instant: the power follows the quarter hour's energy. */
export function instantaneous(m: MeterModel, when: When): Instantaneous {
  const ms = toMs(when);
  const slotStart = Math.floor(ms / SLOT_MS) * SLOT_MS;
  const slotEnergy = activeImportAt(m, slotStart + SLOT_MS) - activeImportAt(m, slotStart);
  const tenSeconds = Math.floor(ms / 10_000);
  const power = Math.round(slotEnergy * 4 * (0.9 + 0.2 * draw(m.seed, m.key, PURPOSE.instant, tenSeconds)));
  const voltage = Math.round(2300 * (1 + 0.06 * (draw(m.seed, m.key, PURPOSE.instant, tenSeconds, 1) - 0.5)));
  return { voltage, current: Math.round((power / m.phases / (voltage / 10)) * 1000), power };
}
