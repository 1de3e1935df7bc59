import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains } from '../common/list';
import { nameText, optionalText } from '../common/validation';
import { TouCalendarSchema } from './tou-calendar';

/** The largest price per kWh a rate takes (numeric(12,4) holds it). */
export const MAX_TARIFF_PRICE = 99_999_999;

/** A rate's price per kWh, for billing later: non-negative, at most four decimals. */
const price = () =>
  field(
    z
      .number('numberFormat')
      .min(0, 'outOfRange')
      .max(MAX_TARIFF_PRICE, 'outOfRange')
      .refine((v) => Math.abs(Math.round(v * 10_000) - v * 10_000) < 1e-6, 'decimalPlaces')
      .default(0),
    { widget: 'number' },
  );

const fields = {
  tariffName: field(nameText(100), { widget: 'text', unique: true, example: 'Residential TOU' }),
  remark: field(optionalText(500), { widget: 'textarea' }),
  price1: price(),
  price2: price(),
  price3: price(),
  price4: price(),
  /**
   * The activity calendar (seasons, week and day profiles, special days). The server answers the rules
   * between its parts and the TOU limitation settings (`calendarIssues`) as 400 issues whose path is
   * `calendar.<list>.<index>…`; a count over its limit is `exceedingLimitation` on `calendar.<list>`
   * (`calendar.rates` for the distinct rates used), with `params.max`.
   */
  calendar: field(TouCalendarSchema, { widget: 'group' }),
};

const count = () => field(z.number().int(), { widget: 'number' });

export const TariffSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    /** Derived from the calendar, for the list. */
    seasonCount: count(),
    weekCount: count(),
    dayCount: count(),
    specialDayCount: count(),
    /** The distinct rates the day profiles switch to, ascending (e.g. [1, 2, 3]). */
    rates: field(z.array(z.number().int()), { widget: 'text' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Tariff = z.infer<typeof TariffSchema>;

export const TariffCreateSchema = z.strictObject(fields);
export type TariffCreate = z.infer<typeof TariffCreateSchema>;
export type TariffCreateInput = z.input<typeof TariffCreateSchema>;

export const tariffEntity = defineEntity({
  name: 'tariff',
  record: TariffSchema,
  create: TariffCreateSchema,
  pagePath: '/parameterSetting/tariffManagement',
  columns: [
    { field: 'tariffName', sortable: true, width: 200 },
    { field: 'rates', width: 120 },
    { field: 'seasonCount', width: 110 },
    { field: 'weekCount', width: 110 },
    { field: 'dayCount', width: 110 },
    { field: 'specialDayCount', width: 120 },
    { field: 'remark' },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [contains('tariffName', 100)],
  form: ['tariffName', 'price1', 'price2', 'price3', 'price4', 'remark', 'calendar'],
  detail: [
    'tariffName',
    'rates',
    'price1',
    'price2',
    'price3',
    'price4',
    'seasonCount',
    'weekCount',
    'dayCount',
    'specialDayCount',
    'remark',
    'calendar',
    'createTime',
    'updateTime',
  ],
});
export type TariffListQuery = z.infer<typeof tariffEntity.listQuery>;
