import { describe, expect, it } from 'vitest';
import { calendarIssues, rateAt, type TouCalendar, TouCalendarSchema, type TouLimits } from './tou-calendar';

/** Summer and winter; weekends cheap all day; Christmas a special day. */
const calendar: TouCalendar = {
  seasons: [
    { start: '01-01', weekId: 1 },
    { start: '06-01', weekId: 2 },
    { start: '10-01', weekId: 1 },
  ],
  weeks: [
    { weekId: 1, days: [1, 1, 1, 1, 1, 3, 3] },
    { weekId: 2, days: [2, 2, 2, 2, 2, 3, 3] },
  ],
  days: [
    {
      dayId: 1,
      switches: [
        { time: '00:00', rate: 4 },
        { time: '07:00', rate: 2 },
        { time: '17:00', rate: 1 },
        { time: '21:00', rate: 2 },
        { time: '23:00', rate: 4 },
      ],
    },
    {
      dayId: 2,
      switches: [
        { time: '00:00', rate: 3 },
        { time: '12:00', rate: 1 },
        { time: '18:00', rate: 3 },
      ],
    },
    { dayId: 3, switches: [{ time: '00:00', rate: 4 }] },
  ],
  specialDays: [{ date: '12-25', dayId: 3 }],
};
const limits: TouLimits = {
  tariffValidCount: 4,
  tariffDays: 8,
  tariffWeeks: 4,
  tariffSeasons: 4,
  tariffSpecialDays: 20,
};
const keys = (c: TouCalendar, l?: TouLimits) => calendarIssues(c, l).map((i) => `${i.path.join('.')}:${i.key}`);
const edited = (change: (c: TouCalendar) => void) => {
  const copy = structuredClone(calendar);
  change(copy);
  return copy;
};

describe('TOU calendar', () => {
  it('accepts a well-formed calendar and says which rate applies when, and why', () => {
    expect(TouCalendarSchema.parse(calendar)).toEqual(calendar);
    expect(keys(calendar, limits)).toEqual([]);
    // 2026-07-15 is a Wednesday in the summer season.
    expect(rateAt(calendar, { date: '2026-07-15', time: '12:00' })).toMatchObject({ rate: 1, season: 1, dayId: 2 });
    expect(rateAt(calendar, { date: '2026-07-15', time: '11:59' })).toMatchObject({ rate: 3 });
    // Winter, Monday evening peak; a Saturday all off-peak; Christmas whatever the weekday.
    expect(rateAt(calendar, { date: '2026-11-30', time: '17:30' })).toMatchObject({ rate: 1, season: 2, weekId: 1 });
    expect(rateAt(calendar, { date: '2026-11-28', time: '17:30' })).toMatchObject({ rate: 4, dayId: 3 });
    expect(rateAt(calendar, { date: '2026-12-25', time: '17:30' })).toMatchObject({
      rate: 4,
      specialDay: 0,
      season: null,
    });
  });

  it('wraps the year: before the first season starts, the last one applies', () => {
    const late = edited((c) => {
      c.seasons = [
        { start: '03-01', weekId: 1 },
        { start: '09-01', weekId: 2 },
      ];
    });
    expect(rateAt(late, { date: '2026-02-02', time: '12:00' })).toMatchObject({ season: 1, weekId: 2, rate: 1 });
  });

  it('refuses intervals under 5 minutes, unordered times and a day not starting at midnight', () => {
    const bad = edited((c) => {
      const day = c.days[0];
      if (!day) throw new Error('fixture');
      day.switches = [
        { time: '00:10', rate: 1 },
        { time: '06:00', rate: 2 },
        { time: '06:04', rate: 1 },
        { time: '05:00', rate: 2 },
        { time: '23:58', rate: 3 },
      ];
    });
    expect(keys(bad)).toEqual([
      'days.0.switches.0.time:tariffDayStart',
      'days.0.switches.2.time:tariffInterval',
      'days.0.switches.3.time:tariffSwitchOrder',
      'days.0.switches.4.time:tariffInterval',
    ]);
  });

  it('refuses a week or day no season reaches, unknown profiles and unordered seasons', () => {
    const bad = edited((c) => {
      c.seasons = [
        { start: '06-01', weekId: 2 },
        { start: '01-01', weekId: 9 },
      ];
      c.weeks.push({ weekId: 3, days: [1, 1, 1, 1, 1, 1, 7] });
      c.specialDays = [];
    });
    expect(keys(bad)).toEqual([
      'weeks.2.days.6:tariffUnknownDay',
      'seasons.1.weekId:tariffUnknownWeek',
      'seasons.1.start:tariffSeasonOrder',
      'weeks.0.weekId:tariffUnreachableWeek',
      'weeks.2.weekId:tariffUnreachableWeek',
      'days.0.dayId:tariffUnreachableDay',
    ]);
  });

  it('refuses counts over the limitation settings with exceedingLimitation naming the bound', () => {
    const tight: TouLimits = {
      tariffValidCount: 3,
      tariffDays: 2,
      tariffWeeks: 2,
      tariffSeasons: 2,
      tariffSpecialDays: 0,
    };
    expect(calendarIssues(calendar, tight)).toEqual([
      { path: ['days'], key: 'exceedingLimitation', params: { max: 2 } },
      { path: ['seasons'], key: 'exceedingLimitation', params: { max: 2 } },
      { path: ['specialDays'], key: 'exceedingLimitation', params: { max: 0 } },
      { path: ['rates'], key: 'exceedingLimitation', params: { max: 3 } },
    ]);
  });

  it('refuses a season start outside the year, an unknown rate and a malformed special day', () => {
    const bad = edited((c) => {
      (c.seasons[1] as { start: string }).start = '02-30';
      (c.days[0]?.switches[1] as { rate: number }).rate = 5;
      c.specialDays = [{ date: '2026-13-01', dayId: 3 }];
    });
    const result = TouCalendarSchema.safeParse(bad);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => `${i.path.join('.')}:${i.message}`)).toEqual([
      'seasons.1.start:tariffDateOutsideYear',
      'days.0.switches.1.rate:tariffUnknownRate',
      'specialDays.0.date:tariffDateOutsideYear',
    ]);
  });
});
