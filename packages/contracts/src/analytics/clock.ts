import { z } from 'zod';
import { CONSUMER_TYPES } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { equals, subtree } from '../common/list';
import { ANALYTICS_AREA, analyticsApi, analyticsField, DevAddrFilterSchema, defineAnalytics } from './kit';

export const CLOCK_MONITORING_RES = { page: `${ANALYTICS_AREA}/clockMonitoring` } as const;

/** A clock off by this much either way is listed unless the filter says otherwise. */
export const DEFAULT_CLOCK_THRESHOLD_SECONDS = 60;
/** The largest threshold the filter takes: a day. */
export const MAX_CLOCK_THRESHOLD_SECONDS = 86_400;

const label = (key: string) => `analyticsClock.fields.${key}`;
const count = (key: string) => field(z.number().int(), { label: label(key), widget: 'number' });

/**
 * Seconds either way: from the filter bar a number, or its digits as text (a reloaded URL); a day at most.
 */
export const ClockThresholdSchema = z.preprocess(
  (value) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
  z
    .number('invalidValue')
    .int('wholeNumber')
    .min(0, 'outOfRange')
    .max(MAX_CLOCK_THRESHOLD_SECONDS, 'outOfRange')
    .describe(
      `Lists the meters whose latest clock check is off by at least this many seconds either way; ${DEFAULT_CLOCK_THRESHOLD_SECONDS} when absent`,
    ),
);

/**
 * A meter's latest clock check within the period (meter clock − head-end clock, seconds), and whether
 * the meter can be reached now (itself and its DCU online), as a clock sync needs.
 */
export const ClockRowSchema = storedRecord(
  z.object({
    meterId: analyticsField.meterId(),
    devAddr: analyticsField.devAddr(),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
    consumerType: analyticsField.consumerType(),
    deviationSeconds: field(z.number().int(), { label: label('deviationSeconds'), widget: 'number' }),
    checkedAt: field(z.string(), { label: label('checkedAt'), widget: 'datetime' }),
    online: field(z.boolean(), { label: label('online'), widget: 'switch' }),
  }),
);
export type ClockRow = z.infer<typeof ClockRowSchema>;

export const clockMonitoringEntity = defineEntity({
  name: 'clockMonitoring',
  record: ClockRowSchema,
  pagePath: CLOCK_MONITORING_RES.page,
  columns: [
    { field: 'devAddr', sortable: true, width: 150 },
    { field: 'gridName' },
    { field: 'dcuNo', width: 140 },
    // Sorted by its size: the clocks furthest off either way first.
    { field: 'deviationSeconds', sortable: true, width: 150 },
    { field: 'checkedAt', sortable: true, width: 180 },
    { field: 'online', width: 100 },
  ],
  filters: [
    subtree('gridId'),
    equals('dcuId', IdSchema),
    equals('devAddr', DevAddrFilterSchema),
    equals('consumerType', z.enum(CONSUMER_TYPES, 'invalidValue')),
    // The threshold: a meter is listed when its clock is off by at least this much either way.
    equals('deviationSeconds', ClockThresholdSchema),
  ],
  form: [],
  detail: ['devAddr', 'gridName', 'dcuNo', 'deviationSeconds', 'checkedAt', 'online'],
});

/** How far off the checked clocks are, in bands of seconds (the chart's bars). */
export const CLOCK_BANDS = [
  { name: '0–59 s', from: 0 },
  { name: '60–299 s', from: 60 },
  { name: '300–899 s', from: 300 },
  { name: '900–3599 s', from: 900 },
  { name: '≥ 3600 s', from: 3600 },
] as const;

export const clockMonitoringAnalytics = defineAnalytics({
  entity: clockMonitoringEntity,
  title: 'analyticsClock.title',
  // The checks looked at: a meter counts when its latest check falls in the period.
  period: { unit: 'day', maxDays: 92, defaultDays: 30 },
  summary: z.object({
    meters: count('meters'),
    checked: count('checked'),
    /** The threshold the page applies (the filter's, or the default). */
    threshold: count('threshold'),
    beyond: count('beyond'),
    /** The deviation furthest from zero, with its sign. */
    largest: field(z.number().int().nullable(), { label: label('largest'), widget: 'number' }),
  }),
  point: z.object({
    band: field(z.string(), { label: label('band'), widget: 'text' }),
    meters: count('meters'),
  }),
  chart: { kind: 'bar', x: 'band', xType: 'category', series: ['meters'] },
});
export const clockMonitoringApi = analyticsApi(clockMonitoringAnalytics);
