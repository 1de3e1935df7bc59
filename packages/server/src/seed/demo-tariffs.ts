import type { TouCalendar } from '@meterdesk/contracts';
import type { tariff } from '../db/schema';

/*
 * The demo's TOU tariffs (Riyadh: Friday and Saturday are the weekend; Monday … Sunday in a week
 * profile). Both pass `calendarIssues` under the seeded TOU limits.
 */

const WEEKEND_FRI_SAT = (weekday: number, weekend: number) => [
  weekday,
  weekday,
  weekday,
  weekday,
  weekend,
  weekend,
  weekday,
];

/** Three rates: peak (1) on summer afternoons, shoulder (2), off-peak (3) at night; a milder winter. */
const RESIDENTIAL: TouCalendar = {
  seasons: [
    { start: '01-01', weekId: 2 },
    { start: '05-01', weekId: 1 },
    { start: '10-01', weekId: 2 },
  ],
  weeks: [
    { weekId: 1, days: WEEKEND_FRI_SAT(1, 2) },
    { weekId: 2, days: WEEKEND_FRI_SAT(3, 2) },
  ],
  days: [
    {
      dayId: 1,
      switches: [
        { time: '00:00', rate: 3 },
        { time: '08:00', rate: 2 },
        { time: '12:00', rate: 1 },
        { time: '17:00', rate: 2 },
        { time: '23:00', rate: 3 },
      ],
    },
    {
      dayId: 2,
      switches: [
        { time: '00:00', rate: 3 },
        { time: '09:00', rate: 2 },
        { time: '22:00', rate: 3 },
      ],
    },
    {
      dayId: 3,
      switches: [
        { time: '00:00', rate: 3 },
        { time: '07:00', rate: 2 },
        { time: '22:00', rate: 3 },
      ],
    },
  ],
  specialDays: [],
};

/** Two rates: business hours (1) and the rest (2); national holidays are billed as closed days. */
const COMMERCIAL: TouCalendar = {
  seasons: [{ start: '01-01', weekId: 1 }],
  weeks: [{ weekId: 1, days: WEEKEND_FRI_SAT(1, 2) }],
  days: [
    {
      dayId: 1,
      switches: [
        { time: '00:00', rate: 2 },
        { time: '08:00', rate: 1 },
        { time: '18:00', rate: 2 },
      ],
    },
    { dayId: 2, switches: [{ time: '00:00', rate: 2 }] },
  ],
  specialDays: [
    // Founding Day and National Day.
    { date: '02-22', dayId: 2 },
    { date: '09-23', dayId: 2 },
  ],
};

export const DEMO_TARIFFS = {
  residential: {
    tariffName: 'Residential TOU',
    remark: 'Three rates, summer peak',
    prices: [0.3, 0.18, 0.1],
    calendar: RESIDENTIAL,
  },
  commercial: {
    tariffName: 'Commercial TOU',
    remark: 'Business hours; holidays off-peak',
    prices: [0.3, 0.2],
    calendar: COMMERCIAL,
  },
} as const;
export type DemoTariff = keyof typeof DEMO_TARIFFS;

/** The demo tariffs' rows, their names after `prefix` (a scale run's), their ids from `idOf`. */
export function demoTariffRows(idOf: (key: DemoTariff) => string, prefix = ''): (typeof tariff.$inferInsert)[] {
  return (Object.keys(DEMO_TARIFFS) as DemoTariff[]).map((key) => {
    const t = DEMO_TARIFFS[key];
    const [price1 = 0, price2 = 0, price3 = 0] = t.prices;
    return {
      id: idOf(key),
      tariffName: `${prefix}${t.tariffName}`,
      remark: t.remark,
      price1,
      price2,
      price3,
      price4: 0,
      calendar: t.calendar,
      revision: 1,
    };
  });
}
