import {
  MAX_DAY_SWITCHES,
  MIN_TARIFF_INTERVAL_MINUTES,
  minutesOf,
  TOU_RATES,
  type TouCalendar,
  type TouDayProfile,
  type TouRate,
} from '@meterdesk/contracts';

/*
 * The editor's changes to a calendar, each a new calendar (the editor and its preview redraw from it).
 * They keep the calendar schema-valid (times HH:mm, rates 1–4, fresh profile numbers); the rules
 * between its parts are left to `calendarIssues`, which shows the user where a change broke one.
 */

export const DAY_MINUTES = 24 * 60;
/** A dragged switch moves in steps of the shortest interval the spec allows. */
export const SNAP_MINUTES = MIN_TARIFF_INTERVAL_MINUTES;

export const clockText = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/**
 * A new tariff's calendar: one season from 1 January, one week whose seven days follow one day
 * profile, which is off-peak at night and normal by day: the smallest calendar a meter takes, already
 * showing a switch to move.
 */
export function newCalendar(): TouCalendar {
  return {
    seasons: [{ start: '01-01', weekId: 1 }],
    weeks: [{ weekId: 1, days: [1, 1, 1, 1, 1, 1, 1] }],
    days: [
      {
        dayId: 1,
        switches: [
          { time: '00:00', rate: 2 },
          { time: '07:00', rate: 1 },
          { time: '23:00', rate: 2 },
        ],
      },
    ],
    specialDays: [],
  };
}

export interface Segment {
  /** Index of the switch that starts it. */
  index: number;
  rate: number;
  start: number;
  end: number;
}

/** The day's stretches between switches, in minutes; a bar draws one per switch. */
export function segmentsOf(day: TouDayProfile): Segment[] {
  return day.switches.map((s, index) => {
    const next = day.switches[index + 1];
    const start = minutesOf(s.time);
    return { index, rate: s.rate, start, end: next ? Math.max(start, minutesOf(next.time)) : DAY_MINUTES };
  });
}

const nextId = (ids: readonly number[]) => Math.min(255, Math.max(0, ...ids) + 1);

function withDay(calendar: TouCalendar, d: number, change: (day: TouDayProfile) => TouDayProfile): TouCalendar {
  return { ...calendar, days: calendar.days.map((day, i) => (i === d ? change(day) : day)) };
}

/**
 * A switch in the middle of the day's longest stretch, to the rate after that stretch's: null when
 * the day is full or no stretch has room for two intervals.
 */
export function addSwitch(calendar: TouCalendar, d: number): TouCalendar | null {
  const day = calendar.days[d];
  if (!day || day.switches.length >= MAX_DAY_SWITCHES) return null;
  const longest = segmentsOf(day).reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
  if (longest.end - longest.start < 2 * MIN_TARIFF_INTERVAL_MINUTES) return null;
  const middle = Math.round((longest.start + longest.end) / 2 / SNAP_MINUTES) * SNAP_MINUTES;
  const rate = TOU_RATES[(TOU_RATES.indexOf(longest.rate as TouRate) + 1) % TOU_RATES.length] as TouRate;
  const switches = [...day.switches];
  switches.splice(longest.index + 1, 0, { time: clockText(middle), rate });
  return withDay(calendar, d, () => ({ ...day, switches }));
}

export const setSwitch = (calendar: TouCalendar, d: number, s: number, change: { time?: string; rate?: TouRate }) =>
  withDay(calendar, d, (day) => ({
    ...day,
    switches: day.switches.map((sw, i) => (i === s ? { ...sw, ...change } : sw)),
  }));

export const removeSwitch = (calendar: TouCalendar, d: number, s: number) =>
  withDay(calendar, d, (day) => ({ ...day, switches: day.switches.filter((_, i) => i !== s) }));

/** Where a dragged switch may go: after the one before it and before the one after it, an interval apart. */
export function dragRange(day: TouDayProfile, s: number): [number, number] {
  const before = day.switches[s - 1];
  const after = day.switches[s + 1];
  return [
    before ? minutesOf(before.time) + MIN_TARIFF_INTERVAL_MINUTES : 0,
    (after ? minutesOf(after.time) : DAY_MINUTES) - MIN_TARIFF_INTERVAL_MINUTES,
  ];
}

/** A new day profile copying the last one's switches, so it starts as something to change. */
export function addDay(calendar: TouCalendar): TouCalendar {
  const dayId = nextId(calendar.days.map((d) => d.dayId));
  const switches = calendar.days.at(-1)?.switches ?? [{ time: '00:00', rate: 1 }];
  return { ...calendar, days: [...calendar.days, { dayId, switches }] };
}

export const removeDay = (calendar: TouCalendar, d: number): TouCalendar => ({
  ...calendar,
  days: calendar.days.filter((_, i) => i !== d),
});

/** A new week profile following the first day profile every day. */
export function addWeek(calendar: TouCalendar): TouCalendar {
  const weekId = nextId(calendar.weeks.map((w) => w.weekId));
  const dayId = calendar.days[0]?.dayId ?? 1;
  return { ...calendar, weeks: [...calendar.weeks, { weekId, days: Array(7).fill(dayId) as number[] }] };
}

export const removeWeek = (calendar: TouCalendar, w: number): TouCalendar => ({
  ...calendar,
  weeks: calendar.weeks.filter((_, i) => i !== w),
});

export const setWeekDay = (calendar: TouCalendar, w: number, weekday: number, dayId: number): TouCalendar => ({
  ...calendar,
  weeks: calendar.weeks.map((week, i) =>
    i === w ? { ...week, days: week.days.map((id, k) => (k === weekday ? dayId : id)) } : week,
  ),
});

const monthDayAfter = (monthDay: string, months: number) => {
  const month = ((Number(monthDay.slice(0, 2)) - 1 + months) % 12) + 1;
  return `${String(month).padStart(2, '0')}-01`;
};

/** A season three months after the last one's start (on the 1st), following the last week profile. */
export function addSeason(calendar: TouCalendar): TouCalendar {
  const last = calendar.seasons.at(-1);
  const start = last ? monthDayAfter(last.start, 3) : '01-01';
  const weekId = calendar.weeks.at(-1)?.weekId ?? 1;
  return { ...calendar, seasons: [...calendar.seasons, { start, weekId }] };
}

export const setSeason = (calendar: TouCalendar, s: number, change: { start?: string; weekId?: number }) => ({
  ...calendar,
  seasons: calendar.seasons.map((season, i) => (i === s ? { ...season, ...change } : season)),
});

export const removeSeason = (calendar: TouCalendar, s: number): TouCalendar => ({
  ...calendar,
  seasons: calendar.seasons.filter((_, i) => i !== s),
});

/** A special day on 1 January (a holiday nearly every calendar has), following the last day profile. */
export function addSpecialDay(calendar: TouCalendar): TouCalendar {
  const taken = new Set(calendar.specialDays.map((s) => s.date));
  const date = ['01-01', '05-01', '10-01', '12-25', '12-26'].find((d) => !taken.has(d)) ?? '01-01';
  const dayId = calendar.days.at(-1)?.dayId ?? 1;
  return { ...calendar, specialDays: [...calendar.specialDays, { date, dayId }] };
}

export const setSpecialDay = (calendar: TouCalendar, i: number, change: { date?: string; dayId?: number }) => ({
  ...calendar,
  specialDays: calendar.specialDays.map((special, k) => (k === i ? { ...special, ...change } : special)),
});

export const removeSpecialDay = (calendar: TouCalendar, i: number): TouCalendar => ({
  ...calendar,
  specialDays: calendar.specialDays.filter((_, k) => k !== i),
});
