import { ACTIVE_IMPORT_RATES, type DeviceEvent, type DeviceProfileRow, EVENT_LEVELS, OBIS } from '@meterdesk/contracts';
import type { EveryField } from '../db/rows';
import type {
  clockCheck,
  dcuEvent,
  linkChange,
  meterEvent,
  readingDaily,
  readingMonthly,
  readingProfile,
} from '../db/schema';

export type ProfileRow = typeof readingProfile.$inferInsert;
export type DailyRow = typeof readingDaily.$inferInsert;
export type MonthlyRow = typeof readingMonthly.$inferInsert;
export type MeterEventRow = typeof meterEvent.$inferInsert;
export type DcuEventRow = typeof dcuEvent.$inferInsert;
export type LinkChangeRow = typeof linkChange.$inferInsert;
export type ClockCheckRow = typeof clockCheck.$inferInsert;

/** What one write stores, table by table. */
export interface ReadingBatch {
  profile?: ProfileRow[];
  daily?: DailyRow[];
  monthly?: MonthlyRow[];
  meterEvents?: MeterEventRow[];
  dcuEvents?: DcuEventRow[];
  linkChanges?: LinkChangeRow[];
  clockChecks?: ClockCheckRow[];
}

/** The load profile's capture objects and the columns that hold them. */
export const PROFILE_CHANNELS = {
  activeImport: OBIS.activeImport,
  activeExport: OBIS.activeExport,
  reactiveImport: OBIS.reactiveImport,
  reactiveExport: OBIS.reactiveExport,
  activePower: OBIS.activePower,
  voltageL1: OBIS.voltageL1,
  currentL1: OBIS.currentL1,
} as const satisfies Partial<Record<keyof ProfileRow, string>>;

/** The registers a daily or monthly frozen row carries and their columns. */
export const FROZEN_CHANNELS = {
  activeImport: OBIS.activeImport,
  activeImportT1: ACTIVE_IMPORT_RATES[0],
  activeImportT2: ACTIVE_IMPORT_RATES[1],
  activeImportT3: ACTIVE_IMPORT_RATES[2],
  activeImportT4: ACTIVE_IMPORT_RATES[3],
  activeExport: OBIS.activeExport,
  reactiveImport: OBIS.reactiveImport,
  reactiveExport: OBIS.reactiveExport,
  maxDemand: OBIS.maxDemand,
} as const satisfies Partial<Record<keyof DailyRow, string>>;

const DAY_MS = 86_400_000;

/** A finite integer, or null for a channel the row lacks or a value no register holds. */
const integerOf = (value: unknown): number | null =>
  typeof value === 'number' && Number.isSafeInteger(value) ? value : null;

/**
 * The channels' values added to `row` by column, for the frozen rows (one per meter per day or
 * month, where a literal per table would say the columns twice for little gain). The column list is
 * walked from an array made once: no entries array and spread per row.
 */
function withChannels<R extends object, K extends string>(
  row: R,
  columns: readonly (readonly [K, string])[],
  values: Record<string, number>,
) {
  const out = row as R & Record<K, number | null>;
  for (const [column, obis] of columns) (out as Record<K, number | null>)[column] = integerOf(values[obis]);
  return out;
}
const FROZEN_COLUMNS = Object.entries(FROZEN_CHANNELS) as [keyof typeof FROZEN_CHANNELS, string][];

/**
 * Capture times by their text. A push carries the same 96 interval ends for each of its meters, and
 * parsing one costs several times looking it up. The times are shared between rows: never mutated.
 */
const capturedAt = new Map<string, Date>();
const CAPTURED_AT_MAX = 10_000;

function timeOf(text: string): Date {
  let at = capturedAt.get(text);
  if (at === undefined) {
    if (capturedAt.size >= CAPTURED_AT_MAX) capturedAt.clear();
    at = new Date(text);
    capturedAt.set(text, at);
  }
  return at;
}

/**
 * Interval rows as read (`…/reply` of a load profile read, or pushed): one row per capture time.
 * Written out column by column, unlike the frozen rows: a profile push is thousands of rows, and a
 * row built whole in one literal costs a tenth of one grown field by field (`withChannels`).
 * `EveryField` keeps the literal in step with the table.
 */
export function profileRows(meterId: string, rows: readonly DeviceProfileRow[]): ProfileRow[] {
  return rows.map(({ ts, values: v }) => {
    const row = {
      meterId,
      ts: timeOf(ts),
      activeImport: integerOf(v[PROFILE_CHANNELS.activeImport]),
      activeExport: integerOf(v[PROFILE_CHANNELS.activeExport]),
      reactiveImport: integerOf(v[PROFILE_CHANNELS.reactiveImport]),
      reactiveExport: integerOf(v[PROFILE_CHANNELS.reactiveExport]),
      activePower: integerOf(v[PROFILE_CHANNELS.activePower]),
      voltageL1: integerOf(v[PROFILE_CHANNELS.voltageL1]),
      currentL1: integerOf(v[PROFILE_CHANNELS.currentL1]),
    };
    return row satisfies EveryField<ProfileRow>;
  });
}

/**
 * A daily frozen row is captured at the midnight that closes its day: `day` is the day it closes
 * (its registers are that day's end, its maximum demand that day's), so a day's consumption is its
 * row minus the day before's.
 */
export function dailyRows(meterId: string, rows: readonly DeviceProfileRow[]): DailyRow[] {
  return rows.map((row) =>
    withChannels(
      { meterId, day: new Date(Date.parse(row.ts) - DAY_MS).toISOString().slice(0, 10) },
      FROZEN_COLUMNS,
      row.values,
    ),
  );
}

/** A monthly row is captured at 00:00 of a month's first day and closes the month before: `month` is that month's first day. */
export function monthlyRows(meterId: string, rows: readonly DeviceProfileRow[]): MonthlyRow[] {
  return rows.map((row) => {
    const at = new Date(row.ts);
    const month = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 1, 1));
    return withChannels({ meterId, month: month.toISOString().slice(0, 10) }, FROZEN_COLUMNS, row.values);
  });
}

export const levelOf = (level: DeviceEvent['level']) => EVENT_LEVELS.indexOf(level);

export function meterEventRows(meterId: string, events: readonly DeviceEvent[]): MeterEventRow[] {
  return events.map((e) => ({
    meterId,
    ts: new Date(e.time),
    code: e.code,
    level: levelOf(e.level),
    data: e.data ?? null,
  }));
}
