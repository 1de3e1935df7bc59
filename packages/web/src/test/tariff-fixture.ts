import type { Tariff, TariffAssociated } from '@meterdesk/contracts';

const id = (n: number) => n.toString(16).padStart(32, '0');

/** A stored two-rate tariff: one season, one week, a day off-peak at night. */
export function tariffFixture(overrides: Partial<Tariff> = {}): Tariff {
  return {
    id: id(700),
    tariffName: 'Residential TOU',
    remark: '',
    price1: 0.85,
    price2: 0.35,
    price3: 0,
    price4: 0,
    calendar: {
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
    },
    seasonCount: 1,
    weekCount: 1,
    dayCount: 1,
    specialDayCount: 0,
    rates: [1, 2],
    createTime: '2026-01-02T08:00:00.000Z',
    updateTime: '2026-01-02T08:00:00.000Z',
    ...overrides,
  };
}

/** A meter (or POC) using the tariff, numbered `n`. */
export function associatedFixture(kind: TariffAssociated['kind'], n: number): TariffAssociated {
  const serial = `TOU${String(n).padStart(4, '0')}`;
  return {
    id: id(800 + n),
    kind,
    devAddr: serial,
    pocNo: `P${serial}`,
    consumerName: `Consumer ${n}`,
    gridName: 'Substation A',
    syncStatus: kind === 'poc' ? 1 : null,
    online: true,
    takenTariffName: 'Residential TOU',
    takenTime: '2026-01-03T00:00:00.000Z',
  };
}
