import { z } from 'zod';
import { CONSUMER_TYPES } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { equals, subtree } from '../common/list';
import { ANALYTICS_AREA, analyticsApi, analyticsField, DevAddrFilterSchema, defineAnalytics } from './kit';

const PAGE = `${ANALYTICS_AREA}/consumptionData`;
export const CONSUMPTION_RES = { page: PAGE, detail: `${PAGE}/detail` } as const;

/** spec §5: the period is limited to this many days. */
export const MAX_CONSUMPTION_DAYS = 31;

const kwh = (key: string) =>
  field(z.number().nullable(), { label: `analytics.consumption.fields.${key}`, widget: 'number' });
const count = (key: string) =>
  field(z.number().int(), { label: `analytics.consumption.fields.${key}`, widget: 'number' });
const kw = (key: string) =>
  field(z.number().nullable(), { label: `analytics.consumption.fields.${key}`, widget: 'number' });

/**
 * A meter's active-import consumption over the period, from the daily rollups (each day the difference
 * of the day's and the day before's frozen registers): kWh with three decimals, null when no day of the
 * period is known.
 */
export const ConsumptionRowSchema = storedRecord(
  z.object({
    meterId: analyticsField.meterId(),
    devAddr: analyticsField.devAddr(),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
    consumerType: analyticsField.consumerType(),
    consumption: kwh('consumption'),
    /** Days of the period whose consumption is known. */
    daysKnown: count('daysKnown'),
    dailyAverage: kwh('dailyAverage'),
    /** The highest interval demand of the period, kW. */
    demandMax: kw('demandMax'),
  }),
);
export type ConsumptionRow = z.infer<typeof ConsumptionRowSchema>;

const meterFilters = [
  subtree('gridId'),
  equals('dcuId', IdSchema),
  equals('devAddr', DevAddrFilterSchema),
  equals('consumerType', z.enum(CONSUMER_TYPES, 'invalidValue')),
] as const;

export const consumptionEntity = defineEntity({
  name: 'consumption',
  record: ConsumptionRowSchema,
  pagePath: PAGE,
  columns: [
    { field: 'devAddr', sortable: true, width: 150 },
    { field: 'gridName' },
    { field: 'dcuNo', width: 140 },
    { field: 'consumerType', width: 120 },
    { field: 'consumption', sortable: true, width: 150 },
    { field: 'daysKnown', width: 110 },
    { field: 'dailyAverage', sortable: true, width: 150 },
    { field: 'demandMax', sortable: true, width: 150 },
  ],
  filters: meterFilters,
  form: [],
  detail: ['devAddr', 'gridName', 'dcuNo', 'consumerType', 'consumption', 'daysKnown', 'dailyAverage', 'demandMax'],
});

const figures = z.object({
  meters: count('meters'),
  consumption: kwh('consumption'),
  dailyAverage: kwh('dailyAverage'),
  peakDay: field(z.string().nullable(), { label: 'analytics.consumption.fields.peakDay', widget: 'text' }),
});
const dayPoint = z.object({
  day: field(z.string(), { label: 'analytics.fields.day', widget: 'text' }),
  consumption: kwh('consumption'),
});

export const consumptionAnalytics = defineAnalytics({
  entity: consumptionEntity,
  period: { unit: 'day', maxDays: MAX_CONSUMPTION_DAYS, defaultDays: 7 },
  summary: figures,
  point: dayPoint,
  chart: { kind: 'bar', x: 'day', xType: 'day', series: ['consumption'] },
});
export const consumptionApi = analyticsApi(consumptionAnalytics);

/** One day of one meter. */
export const ConsumptionDayRowSchema = storedRecord(
  z.object({
    day: field(z.string(), { label: 'analytics.fields.day', widget: 'text' }),
    meterId: analyticsField.meterId(),
    consumption: kwh('consumption'),
    demandMin: kw('demandMin'),
    demandAvg: kw('demandAvg'),
    demandMax: kw('demandMax'),
    intervals: count('intervals'),
  }),
);
export type ConsumptionDayRow = z.infer<typeof ConsumptionDayRowSchema>;

export const consumptionDetailEntity = defineEntity({
  name: 'consumptionDetail',
  record: ConsumptionDayRowSchema,
  pagePath: CONSUMPTION_RES.detail,
  columns: [
    { field: 'day', sortable: true, width: 130 },
    { field: 'consumption', sortable: true, width: 150 },
    { field: 'demandMin', width: 150 },
    { field: 'demandAvg', width: 150 },
    { field: 'demandMax', sortable: true, width: 150 },
    { field: 'intervals', width: 120 },
  ],
  filters: [],
  form: [],
  detail: ['day', 'consumption', 'demandMin', 'demandAvg', 'demandMax', 'intervals'],
});

export const consumptionDetailAnalytics = defineAnalytics({
  entity: consumptionDetailEntity,
  period: { unit: 'day', maxDays: 92, defaultDays: 31 },
  summary: z.object({
    devAddr: analyticsField.devAddr(),
    consumption: kwh('consumption'),
    dailyAverage: kwh('dailyAverage'),
    demandMax: kw('demandMax'),
  }),
  point: z.object({
    day: field(z.string(), { label: 'analytics.fields.day', widget: 'text' }),
    consumption: kwh('consumption'),
    demandMax: kw('demandMax'),
  }),
  chart: { kind: 'bar', x: 'day', xType: 'day', series: ['consumption'] },
  fixed: { meterId: IdSchema },
});
export const consumptionDetailApi = analyticsApi(consumptionDetailAnalytics);
