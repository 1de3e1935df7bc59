import {
  ACTIVE_IMPORT_RATES,
  ACTIVITY_CALENDAR,
  type DeviceProfileRow,
  type DeviceReply,
  type FleetMeter,
  OBIS,
  rateAt,
  SPECIAL_DAYS_TABLE,
  type TouCalendar,
  utcWallClock,
} from '@meterdesk/contracts';
import { describe, expect, it } from 'vitest';
import { Device, type ExecutionContext, executeCommand } from './device';
import { DeviceRegistry } from './devices';
import { fixedSplit, meterModel } from './energy';
import { DEFAULT_KNOBS } from './knobs';
import { hashString } from './random';

const SEED = 5;
const A = ACTIVITY_CALENDAR.attributes;
const H = 3_600_000;

/** Weekdays: rate 1 from 00:00, 2 from 08:00, 3 from 20:00; weekends rate 4 from 12:00; 4 March all rate 4. */
const CALENDAR: TouCalendar = {
  seasons: [{ start: '01-01', weekId: 1 }],
  weeks: [{ weekId: 1, days: [1, 1, 1, 1, 1, 2, 2] }],
  days: [
    {
      dayId: 1,
      switches: [
        { time: '00:00', rate: 1 },
        { time: '08:00', rate: 2 },
        { time: '20:00', rate: 3 },
      ],
    },
    {
      dayId: 2,
      switches: [
        { time: '00:00', rate: 1 },
        { time: '12:00', rate: 4 },
      ],
    },
    { dayId: 3, switches: [{ time: '00:00', rate: 4 }] },
  ],
  specialDays: [{ date: '2026-03-04', dayId: 3 }],
};

let reqs = 0;
function run(d: Device, now: number, op: 'get' | 'set' | 'action', items: unknown[][]): DeviceReply {
  const ctx: ExecutionContext = {
    now,
    emit: () => {},
    clockLimitMs: 3_600_000,
    eventLog: () => [],
    metersBehind: () => [],
    broadcastLost: () => false,
  };
  const cmd = {
    reqId: `tou-${++reqs}`,
    attempt: 1,
    op,
    deadline: new Date(now + 60_000).toISOString(),
    items: items.map(([obis, classId, attribute, value]) => ({
      obis: obis as string,
      classId: classId as number,
      attribute: attribute as number,
      ...(value === undefined ? {} : { value }),
    })),
  };
  return executeCommand(d, cmd, ctx);
}

const calendarItems = (calendar: TouCalendar, name: string, activation: string) => [
  [OBIS.activityCalendar, 20, A.calendarNamePassive, name],
  [OBIS.activityCalendar, 20, A.seasonsPassive, calendar.seasons],
  [OBIS.activityCalendar, 20, A.weeksPassive, calendar.weeks],
  [OBIS.activityCalendar, 20, A.daysPassive, calendar.days],
  [OBIS.specialDays, 11, SPECIAL_DAYS_TABLE.attributes.entries, calendar.specialDays],
  [OBIS.activityCalendar, 20, A.activatePassiveTime, activation],
];

const MONDAY = Date.parse('2026-03-02T00:00:00Z');

/** A meter whose clock runs an hour ahead of true time, the calendar written at 06:00 to activate at 10:00 its time. */
function meterWithCalendar(key: string): Device {
  const d = new Device('meter', key, hashString(key), meterModel(SEED, key));
  d.driftPerMs = 0;
  d.setClock(MONDAY + 5 * H, MONDAY + 6 * H);
  const written = run(d, MONDAY + 6 * H, 'set', [
    ...calendarItems(CALENDAR, 'Two-rate weekdays', '2026-03-02T10:00:00Z'),
    [OBIS.loadProfile, 7, 3, [OBIS.clock, OBIS.activeImport, ...ACTIVE_IMPORT_RATES]],
  ]);
  expect(written.code).toBe('00');
  return d;
}

const loadProfile = (d: Device, now: number, from: number, to: number) =>
  run(d, now, 'get', [[OBIS.loadProfile, 7, 2, { from: new Date(from).toISOString(), to: new Date(to).toISOString() }]])
    .items![0]!.value as DeviceProfileRow[];
const ratesOf = (row: DeviceProfileRow) => ACTIVE_IMPORT_RATES.map((obis) => row.values[obis]!);

describe('time of use in the simulated meter', () => {
  it('puts each interval from the activation on into the rate the calendar names, special days included', () => {
    const d = meterWithCalendar('TOU-M1');
    const now = Date.parse('2026-03-07T18:00:00Z');
    const rows = loadProfile(d, now, MONDAY, now);
    const activation = MONDAY + 9 * H;
    expect(d.calendar!.activatedAt).toBe(activation);
    const seen = new Set<string>();
    for (let i = 1; i < rows.length; i++) {
      const row = rows[i]!;
      const rates = ratesOf(row);
      const total = row.values[OBIS.activeImport]!;
      expect(rates.reduce((a, b) => a + b, 0)).toBe(total);
      const before = ratesOf(rows[i - 1]!);
      const energy = total - rows[i - 1]!.values[OBIS.activeImport]!;
      const start = Date.parse(row.ts) - 900_000;
      if (start < activation) {
        // The passive calendar does not apply before its activation: the meter's fixed split.
        expect(rates).toEqual(fixedSplit(d.model!, total));
        continue;
      }
      const rate = rateAt(CALENDAR, utcWallClock(new Date(start)))!.rate;
      seen.add(`${utcWallClock(new Date(start)).date} ${rate}`);
      expect(rates.map((r, k) => r - before[k]!)).toEqual([1, 2, 3, 4].map((k) => (k === rate ? energy : 0)));
    }
    // Monday from 09:00 (rate 2, then 3), the special day (rate 4 only), the weekend's rates 1 and 4.
    expect([...seen].filter((s) => s.startsWith('2026-03-02')).sort()).toEqual(['2026-03-02 2', '2026-03-02 3']);
    expect([...seen].filter((s) => s.startsWith('2026-03-04'))).toEqual(['2026-03-04 4']);
    expect([...seen].filter((s) => s.startsWith('2026-03-05')).sort()).toEqual([
      '2026-03-05 1',
      '2026-03-05 2',
      '2026-03-05 3',
    ]);
    expect([...seen].filter((s) => s.startsWith('2026-03-07')).sort()).toEqual(['2026-03-07 1', '2026-03-07 4']);

    // Registers read now, daily frozen rows and the profile agree.
    const registers = run(
      d,
      now,
      'get',
      ACTIVE_IMPORT_RATES.map((obis) => [obis, 3, 2]),
    ).items!.map((i) => i.value);
    expect(registers).toEqual(ratesOf(rows.at(-1)!));
    const daily = run(d, now, 'get', [
      [OBIS.dailyProfile, 7, 2, { from: '2026-03-03T00:00:00Z', to: '2026-03-07T00:00:00Z' }],
    ]).items![0]!.value as DeviceProfileRow[];
    for (const row of daily) expect(ratesOf(row)).toEqual(ratesOf(rows.find((r) => r.ts === row.ts)!));
  });

  it('answers the same registers after a restart given the same calendar, whatever is read first', () => {
    const now = Date.parse('2026-03-06T07:30:00Z');
    const first = meterWithCalendar('TOU-M2');
    const expected = loadProfile(first, now, MONDAY, now);
    const again = meterWithCalendar('TOU-M2');
    // The latest registers first (the days between are summed then), the past afterwards.
    const latest = run(
      again,
      now,
      'get',
      ACTIVE_IMPORT_RATES.map((obis) => [obis, 3, 2]),
    ).items!.map((i) => i.value);
    expect(latest).toEqual(ratesOf(expected.at(-1)!));
    expect(loadProfile(again, now, MONDAY, now)).toEqual(expected);
    for (let i = 1; i < expected.length; i++) {
      const previous = ratesOf(expected[i - 1]!);
      expect(ratesOf(expected[i]!).every((r, k) => r >= previous[k]!)).toBe(true);
    }
  });

  it('keeps the passive calendar passive until its time, reads both back, and activates at once by method 1', () => {
    const d = meterWithCalendar('TOU-M3');
    const beforeTime = MONDAY + 8.5 * H;
    const read = (now: number, attribute: number) =>
      run(d, now, 'get', [[OBIS.activityCalendar, 20, attribute]]).items![0]!.value;
    expect(read(beforeTime, A.calendarNameActive)).toBeNull();
    expect(read(beforeTime, A.daysActive)).toBeNull();
    expect(read(beforeTime, A.calendarNamePassive)).toBe('Two-rate weekdays');
    expect(read(beforeTime, A.daysPassive)).toEqual(CALENDAR.days);
    expect(read(beforeTime, A.activatePassiveTime)).toBe('2026-03-02T10:00:00Z');
    expect(run(d, beforeTime, 'get', [[OBIS.specialDays, 11, 2]]).items![0]!.value).toEqual(CALENDAR.specialDays);
    const rows = loadProfile(d, beforeTime, MONDAY, beforeTime);
    for (const row of rows) expect(ratesOf(row)).toEqual(fixedSplit(d.model!, row.values[OBIS.activeImport]!));
    expect(read(MONDAY + 9.5 * H, A.calendarNameActive)).toBe('Two-rate weekdays');
    expect(read(MONDAY + 9.5 * H, A.seasonsActive)).toEqual(CALENDAR.seasons);

    // A second calendar (all rate 3), activated at once whatever its time says.
    const flat: TouCalendar = {
      seasons: [{ start: '01-01', weekId: 7 }],
      weeks: [{ weekId: 7, days: [9, 9, 9, 9, 9, 9, 9] }],
      days: [{ dayId: 9, switches: [{ time: '00:00', rate: 3 }] }],
      specialDays: [],
    };
    const at = MONDAY + 30 * H;
    expect(run(d, at, 'set', calendarItems(flat, 'Flat', '2027-01-01T00:00:00Z')).code).toBe('00');
    expect(read(at, A.calendarNameActive)).toBe('Two-rate weekdays');
    expect(run(d, at, 'action', [[OBIS.activityCalendar, 20, ACTIVITY_CALENDAR.methods.activatePassive, 0]]).code).toBe(
      '00',
    );
    expect(read(at, A.calendarNameActive)).toBe('Flat');
    const later = loadProfile(d, at + 3 * H, at, at + 3 * H);
    const r0 = ratesOf(later[0]!);
    const r1 = ratesOf(later.at(-1)!);
    expect([r1[0]! - r0[0]!, r1[1]! - r0[1]!, r1[3]! - r0[3]!]).toEqual([0, 0, 0]);
    expect(r1[2]! - r0[2]!).toBe(later.at(-1)!.values[OBIS.activeImport]! - later[0]!.values[OBIS.activeImport]!);
  });

  it('fails an invalid calendar (02) and writes none of it; other items of the command still run (01)', () => {
    const d = meterWithCalendar('TOU-M4');
    const now = MONDAY + 7 * H;
    const tooShort = structuredClone(CALENDAR);
    tooShort.days[0]!.switches[1]!.time = '00:03';
    const refused = run(d, now, 'set', [
      ...calendarItems(tooShort, 'Too short', '2026-03-03T00:00:00Z'),
      [OBIS.pushSetup, 40, 4, ['00:30']],
    ]);
    expect(refused.code).toBe('01');
    expect(refused.items!.map((i) => i.code)).toEqual(['02', '02', '02', '02', '02', '02', '00']);
    const passive = run(d, now, 'get', [
      [OBIS.activityCalendar, 20, A.calendarNamePassive],
      [OBIS.activityCalendar, 20, A.activatePassiveTime],
    ]).items!.map((i) => i.value);
    expect(passive).toEqual(['Two-rate weekdays', '2026-03-02T10:00:00Z']);

    // A part against its schema (rate 5), a week naming no day profile, an activation time that is no time.
    const unknownRate = structuredClone(CALENDAR.days);
    unknownRate[1]!.switches[1]!.rate = 5;
    const withName = run(d, now, 'set', [
      [OBIS.activityCalendar, 20, A.calendarNamePassive, 'Rate five'],
      [OBIS.activityCalendar, 20, A.daysPassive, unknownRate],
    ]);
    expect(withName.items!.map((i) => i.code)).toEqual(['02', '02']);
    expect(run(d, now, 'get', [[OBIS.activityCalendar, 20, A.calendarNamePassive]]).items![0]!.value).toBe(
      'Two-rate weekdays',
    );
    expect(
      run(d, now, 'set', [[OBIS.activityCalendar, 20, A.weeksPassive, [{ weekId: 1, days: [1, 1, 1, 1, 1, 1, 8] }]]])
        .code,
    ).toBe('02');
    expect(run(d, now, 'set', [[OBIS.activityCalendar, 20, A.activatePassiveTime, 'tomorrow']]).code).toBe('02');
    // The active calendar is read only.
    expect(run(d, now, 'set', [[OBIS.activityCalendar, 20, A.calendarNameActive, 'x']]).code).toBe('02');
    expect(d.calendar!.activatedAt).toBeNull();
  });

  it('a meter made to fail its first calendar write (--fail-calendar-once) fails it once, and takes the same write again', () => {
    const registry = new DeviceRegistry(SEED, { ...DEFAULT_KNOBS, calendarFailsOnce: '3$' }, new URL('mqtt://x'));
    const d = registry.add('meter', 'TOU-M3', { wiring: '1P2W' } as FleetMeter);
    expect(registry.add('meter', 'TOU-M5', { wiring: '1P2W' } as FleetMeter).faults.failCalendarWrites).toBe(0);
    const now = MONDAY + 7 * H;
    const write = () => run(d, now, 'set', [...calendarItems(CALENDAR, 'Fails once', '2026-03-03T00:00:00Z')]);
    expect(write().code).toBe('02');
    expect(write().code).toBe('00');
  });

  it('arms nothing on a meter that has no whole passive calendar, and has no active one until it does', () => {
    const d = new Device('meter', 'TOU-M5', hashString('TOU-M5'), meterModel(SEED, 'TOU-M5'));
    const now = MONDAY;
    expect(run(d, now, 'get', [[OBIS.activityCalendar, 20, A.calendarNameActive]]).items![0]!.value).toBeNull();
    expect(run(d, now, 'set', [[OBIS.activityCalendar, 20, A.activatePassiveTime, '2026-03-02T01:00:00Z']]).code).toBe(
      '02',
    );
    expect(run(d, now, 'action', [[OBIS.activityCalendar, 20, 1, 0]]).code).toBe('02');
  });
});
