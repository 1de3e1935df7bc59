import { z } from 'zod';
import { CONSUMER_TYPES } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { equals, subtree } from '../common/list';
import { ANALYTICS_AREA, analyticsApi, analyticsField, DevAddrFilterSchema, defineAnalytics } from './kit';

const PAGE = `${ANALYTICS_AREA}/monthlyConsumption`;
export const MONTHLY_CONSUMPTION_RES = { page: PAGE, detail: `${PAGE}/detail`, export: `${PAGE}/export` } as const;

/** spec §5: the list's period is limited to this many months (a row per meter and month). */
export const MAX_MONTHLY_CONSUMPTION_MONTHS = 12;
/** A meter's months on the detail page: the readings store keeps 36 months by default. */
export const MAX_MONTHLY_CONSUMPTION_DETAIL_MONTHS = 36;

const label = (key: string) => `analyticsMonthly.consumption.fields.${key}`;
const amount = (key: string) => field(z.number().nullable(), { label: label(key), widget: 'number' });
const count = (key: string) => field(z.number().int(), { label: label(key), widget: 'number' });
const monthField = () => field(z.string(), { label: 'analytics.fields.month', widget: 'text' });

/**
 * What a month of a meter shows: its daily consumption summed (each day the difference of the day's
 * and the day before's frozen registers), how many of its days are known — a month with missing days
 * sums only the known ones and says so —, and its highest interval demand.
 */
const monthFigures = {
  month: monthField(),
  consumption: amount('consumption'),
  /** Days of the month whose consumption is known. */
  daysKnown: count('daysKnown'),
  /** Days of the month up to today: all of a past month, today's day of this one. */
  monthDays: count('monthDays'),
  dailyAverage: amount('dailyAverage'),
  /** The highest interval demand of the month, kW. */
  demandMax: amount('demandMax'),
};

/** One meter's month, in the caller's grid scope; every month of the period has a row, known or not. */
export const MonthlyConsumptionRowSchema = storedRecord(
  z.object({
    meterId: analyticsField.meterId(),
    devAddr: analyticsField.devAddr(),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
    consumerType: analyticsField.consumerType(),
    ...monthFigures,
  }),
);
export type MonthlyConsumptionRow = z.infer<typeof MonthlyConsumptionRowSchema>;

export const monthlyConsumptionEntity = defineEntity({
  name: 'monthlyConsumption',
  record: MonthlyConsumptionRowSchema,
  pagePath: PAGE,
  columns: [
    { field: 'devAddr', sortable: true, width: 150 },
    { field: 'month', width: 100 },
    { field: 'gridName' },
    { field: 'dcuNo', width: 140 },
    { field: 'consumerType', width: 120 },
    { field: 'consumption', sortable: true, width: 150 },
    { field: 'daysKnown', width: 110 },
    { field: 'monthDays', width: 110 },
    { field: 'dailyAverage', sortable: true, width: 150 },
    { field: 'demandMax', sortable: true, width: 150 },
  ],
  filters: [
    subtree('gridId'),
    equals('dcuId', IdSchema),
    equals('devAddr', DevAddrFilterSchema),
    equals('consumerType', z.enum(CONSUMER_TYPES, 'invalidValue')),
  ],
  form: [],
  detail: ['devAddr', 'month', 'gridName', 'dcuNo', 'consumerType', 'consumption', 'daysKnown', 'monthDays'],
});

const monthPoint = z.object({ month: monthField(), consumption: amount('consumption') });

export const monthlyConsumptionAnalytics = defineAnalytics({
  entity: monthlyConsumptionEntity,
  period: { unit: 'month', maxMonths: MAX_MONTHLY_CONSUMPTION_MONTHS, defaultMonths: 3 },
  summary: z.object({
    meters: count('meters'),
    consumption: amount('consumption'),
    /** The period's consumption over its months with a known day. */
    monthlyAverage: amount('monthlyAverage'),
    peakMonth: field(z.string().nullable(), { label: label('peakMonth'), widget: 'text' }),
  }),
  point: monthPoint,
  chart: { kind: 'bar', x: 'month', xType: 'month', series: ['consumption'] },
});
export const monthlyConsumptionApi = analyticsApi(monthlyConsumptionAnalytics);

/** One month of one meter. */
export const MonthlyConsumptionMonthRowSchema = storedRecord(
  z.object({
    meterId: analyticsField.meterId(),
    ...monthFigures,
    intervals: count('intervals'),
  }),
);
export type MonthlyConsumptionMonthRow = z.infer<typeof MonthlyConsumptionMonthRowSchema>;

export const monthlyConsumptionDetailEntity = defineEntity({
  name: 'monthlyConsumptionDetail',
  record: MonthlyConsumptionMonthRowSchema,
  pagePath: MONTHLY_CONSUMPTION_RES.detail,
  columns: [
    { field: 'month', sortable: true, width: 110 },
    { field: 'consumption', sortable: true, width: 150 },
    { field: 'daysKnown', width: 110 },
    { field: 'monthDays', width: 110 },
    { field: 'dailyAverage', width: 150 },
    { field: 'demandMax', sortable: true, width: 150 },
    { field: 'intervals', width: 120 },
  ],
  filters: [],
  form: [],
  detail: ['month', 'consumption', 'daysKnown', 'monthDays', 'dailyAverage', 'demandMax', 'intervals'],
});

export const monthlyConsumptionDetailAnalytics = defineAnalytics({
  entity: monthlyConsumptionDetailEntity,
  period: { unit: 'month', maxMonths: MAX_MONTHLY_CONSUMPTION_DETAIL_MONTHS, defaultMonths: 12 },
  summary: z.object({
    devAddr: analyticsField.devAddr(),
    consumption: amount('consumption'),
    monthlyAverage: amount('monthlyAverage'),
    demandMax: amount('demandMax'),
  }),
  point: z.object({ month: monthField(), consumption: amount('consumption'), demandMax: amount('demandMax') }),
  chart: { kind: 'bar', x: 'month', xType: 'month', series: ['consumption'] },
  fixed: { meterId: IdSchema },
});
export const monthlyConsumptionDetailApi = analyticsApi(monthlyConsumptionDetailAnalytics);
