import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { meter, powerGrid, readingDaily, tariff } from '../../db/schema';
import { meterDaySource } from './virtual-meter';

/**
 * What the billing reports know of one meter over a period [startDay, endDay] (UTC days): its
 * consumption summed from the daily rollups (a virtual meter's from its members', meterDaySource), the
 * days of the period that lack one, its tariff's prices, and how its energy split over the four TOU
 * rates (its frozen rate registers at the end of the period minus those closing the day before it
 * starts) and what it exported over the period (for a solar plant), both null while a register is missing.
 */
export interface MeterFigures {
  id: string;
  devAddr: string;
  gridId: string;
  gridName: string;
  /** kWh; null when no day of the period is known. */
  consumption: number | null;
  missingDays: number;
  prices: [number, number, number, number] | null;
  rates: [number, number, number, number] | null;
  /** kWh exported over the period; null when a register is missing. */
  exported: number | null;
}

interface FigureRow {
  id: string;
  dev_addr: string;
  grid_id: string;
  grid_name: string;
  consumption: string | null;
  known: number;
  price1: string | null;
  price2: string | null;
  price3: string | null;
  price4: string | null;
  r1: string | null;
  r2: string | null;
  r3: string | null;
  r4: string | null;
  exported: string | null;
}

const kwh = (wh: string | null) => (wh === null ? null : Number(wh) / 1000);

/** The figures of the meters `where` selects (over `meter m`), at most `limit` of them after id `after`, by id. */
export async function meterFigures(
  db: Executor,
  where: SQL,
  period: { startDay: string; endDay: string },
  page: { after?: string; limit?: number } = {},
): Promise<MeterFigures[]> {
  const { startDay, endDay } = period;
  const days = (Date.parse(endDay) - Date.parse(startDay)) / 86_400_000 + 1;
  const rate = (n: number) => sql.raw(`e.active_import_t${n} - b.active_import_t${n}`);
  const rows = await rowsOf<FigureRow>(
    db,
    sql`select m.id, m.dev_addr, m.grid_id, g.grid_name, c.consumption::text as consumption, c.known::int as known,
        t.price1::text as price1, t.price2::text as price2, t.price3::text as price3, t.price4::text as price4,
        (${rate(1)})::text as r1, (${rate(2)})::text as r2, (${rate(3)})::text as r3, (${rate(4)})::text as r4,
        (e.active_export - b.active_export)::text as exported
      from ${meter} m
      join ${powerGrid} g on g.id = m.grid_id
      left join ${tariff} t on t.id = m.tariff_id
      cross join lateral (select sum(r.consumption) as consumption, count(r.consumption) as known
        from ${meterDaySource(sql`m.id`, startDay, endDay, sql`m.virtual`)}) c
      left join ${readingDaily} e on e.meter_id = m.id and e.day = ${endDay}::date
      left join ${readingDaily} b on b.meter_id = m.id and b.day = ${startDay}::date - 1
      where ${where} ${page.after ? sql`and m.id > ${page.after}` : sql``}
      order by m.id ${page.limit ? sql`limit ${page.limit}` : sql``}`,
  );
  return rows.map((r) => {
    const prices = [r.price1, r.price2, r.price3, r.price4];
    const rates = [r.r1, r.r2, r.r3, r.r4];
    return {
      id: r.id,
      devAddr: r.dev_addr,
      gridId: r.grid_id,
      gridName: r.grid_name,
      consumption: r.known > 0 ? kwh(r.consumption) : null,
      missingDays: days - r.known,
      prices: r.price1 === null ? null : (prices.map(Number) as MeterFigures['prices']),
      rates: rates.every((v) => v !== null) ? (rates.map((v) => Number(v) / 1000) as MeterFigures['rates']) : null,
      exported: kwh(r.exported),
    };
  });
}

/**
 * The amount of `consumption` kWh at the tariff's prices: split over the TOU rates in the proportions
 * the rate registers moved over the period when they are known and moved, all at rate 1's price
 * otherwise. Null without prices (no tariff) or without a consumption.
 */
export function energyAmount(
  consumption: number | null,
  prices: MeterFigures['prices'],
  rates: MeterFigures['rates'],
): number | null {
  if (consumption === null || prices === null) return null;
  const total = rates ? rates.reduce((sum, r) => sum + r, 0) : 0;
  if (!rates || total <= 0) return consumption * prices[0];
  return rates.reduce((sum, r, i) => sum + (consumption * r * (prices[i] ?? 0)) / total, 0);
}

/** Money with two decimals. */
export const cents = (v: number): number => Math.round(v * 100) / 100;
export const money = (v: number | null): number | null => (v === null ? null : cents(v));
/** kWh with three decimals. */
export const energy = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

/** `v` rounded to the nearest multiple of `base` (a rule's rounding base, never 0), kept to two decimals. */
export function roundTo(v: number, base: number): number {
  return Math.round(Math.round(v / base) * base * 100) / 100;
}
