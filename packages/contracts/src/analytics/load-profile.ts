import { z } from 'zod';
import { CONSUMER_TYPES } from '../archive/enums';
import { DAY_SLOTS, INTERVALS_PER_DAY } from '../collection/readings.api';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { equals, subtree } from '../common/list';
import { ANALYTICS_AREA, analyticsApi, analyticsField, DevAddrFilterSchema, defineAnalytics } from './kit';

const PAGE = `${ANALYTICS_AREA}/loadProfile`;
export const LOAD_PROFILE_RES = { page: PAGE, detail: `${PAGE}/detail`, export: `${PAGE}/export` } as const;

/** Curves overlaid on the detail page at most: meters on one day, or one meter's days. */
export const MAX_OVERLAY_CURVES = 10;
/** One meter's days overlaid at most (a week: weekdays against the weekend). */
export const MAX_OVERLAY_DAYS = 7;

/** A meter's load profile of a day: all its intervals, some, or none. */
export const PROFILE_STATES = ['complete', 'partial', 'none'] as const;
export type ProfileState = (typeof PROFILE_STATES)[number];
export const profileStateOf = (intervals: number): ProfileState =>
  intervals >= INTERVALS_PER_DAY ? 'complete' : intervals > 0 ? 'partial' : 'none';

const label = (key: string) => `analyticsMonthly.loadProfile.fields.${key}`;
const amount = (key: string) => field(z.number().nullable(), { label: label(key), widget: 'number' });
const count = (key: string) => field(z.number().int(), { label: label(key), widget: 'number' });
const stateField = () =>
  field(z.enum(PROFILE_STATES), {
    label: label('state'),
    widget: 'select',
    options: PROFILE_STATES.map((value) => ({ value, label: `analyticsMonthly.loadProfile.states.${value}` })),
  });

/**
 * A meter's load profile of the day from its day rollup (never its raw intervals): how many of the
 * day's 96 intervals are stored, its highest and average interval demand (kW) and the day's
 * consumption (kWh).
 */
export const LoadProfileRowSchema = storedRecord(
  z.object({
    meterId: analyticsField.meterId(),
    devAddr: analyticsField.devAddr(),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
    consumerType: analyticsField.consumerType(),
    state: stateField(),
    intervals: count('intervals'),
    /** Stored intervals of the day's 96, percent with one decimal. */
    completeness: field(z.number(), { label: label('completeness'), widget: 'number' }),
    demandMax: amount('demandMax'),
    demandAvg: amount('demandAvg'),
    consumption: amount('consumption'),
  }),
);
export type LoadProfileRow = z.infer<typeof LoadProfileRowSchema>;

export const loadProfileEntity = defineEntity({
  name: 'loadProfile',
  record: LoadProfileRowSchema,
  pagePath: PAGE,
  columns: [
    { field: 'devAddr', sortable: true, width: 150 },
    { field: 'gridName' },
    { field: 'dcuNo', width: 140 },
    { field: 'consumerType', width: 120 },
    { field: 'state', width: 120 },
    { field: 'intervals', sortable: true, width: 120 },
    { field: 'completeness', width: 120 },
    { field: 'demandMax', sortable: true, width: 150 },
    { field: 'demandAvg', width: 150 },
    { field: 'consumption', sortable: true, width: 150 },
  ],
  filters: [
    subtree('gridId'),
    equals('dcuId', IdSchema),
    equals('devAddr', DevAddrFilterSchema),
    equals('consumerType', z.enum(CONSUMER_TYPES, 'invalidValue')),
    equals('state', z.enum(PROFILE_STATES, 'invalidValue')),
  ],
  form: [],
  detail: ['devAddr', 'gridName', 'dcuNo', 'state', 'intervals', 'demandMax', 'demandAvg', 'consumption'],
});

export const loadProfileAnalytics = defineAnalytics({
  entity: loadProfileEntity,
  // One day, yesterday by default: today's profile is still arriving.
  period: { unit: 'day', maxDays: 1, defaultDays: 1, defaultEndsAgo: 1 },
  summary: z.object({
    /** Meters expected to report (installed, activated or in anomaly; not virtual), as the collection report counts them. */
    meters: count('meters'),
    metersComplete: count('metersComplete'),
    metersPartial: count('metersPartial'),
    metersNone: count('metersNone'),
    /** Stored intervals of the expected ones, percent. */
    completeness: amount('completeness'),
    demandMax: amount('demandMax'),
  }),
  point: z.object({ state: stateField(), meters: count('meters') }),
  chart: { kind: 'bar', x: 'state', xType: 'category', series: ['meters'] },
});
export const loadProfileApi = analyticsApi(loadProfileAnalytics);

/** One interval of one curve (ISO end of the interval), scaled: kW, kWh, kvarh, V, A. */
export const LoadProfileIntervalRowSchema = storedRecord(
  z.object({
    meterId: analyticsField.meterId(),
    devAddr: analyticsField.devAddr(),
    ts: field(z.string(), { label: label('ts'), widget: 'datetime' }),
    activePower: amount('activePower'),
    activeImport: amount('activeImport'),
    activeExport: amount('activeExport'),
    reactiveImport: amount('reactiveImport'),
    reactiveExport: amount('reactiveExport'),
    voltageL1: amount('voltageL1'),
    currentL1: amount('currentL1'),
  }),
);
export type LoadProfileIntervalRow = z.infer<typeof LoadProfileIntervalRowSchema>;

/** The channels a curve may draw, in the order the page offers them. */
export const LOAD_PROFILE_CURVE_CHANNELS = [
  'activePower',
  'activeImport',
  'activeExport',
  'reactiveImport',
  'reactiveExport',
  'voltageL1',
  'currentL1',
] as const;
export type LoadProfileCurveChannel = (typeof LOAD_PROFILE_CURVE_CHANNELS)[number];

export const loadProfileDetailEntity = defineEntity({
  name: 'loadProfileDetail',
  record: LoadProfileIntervalRowSchema,
  pagePath: LOAD_PROFILE_RES.detail,
  columns: [
    { field: 'ts', sortable: true, width: 180 },
    { field: 'devAddr', sortable: true, width: 150 },
    { field: 'activePower', sortable: true, width: 130 },
    { field: 'activeImport', width: 150 },
    { field: 'activeExport', width: 150 },
    { field: 'reactiveImport', width: 150 },
    { field: 'reactiveExport', width: 150 },
    { field: 'voltageL1', width: 110 },
    { field: 'currentL1', width: 110 },
  ],
  filters: [],
  form: [],
  detail: ['ts', 'devAddr', ...LOAD_PROFILE_CURVE_CHANNELS],
});

const curvePoint = z.object({
  /** The interval's end within its day, `HH:MM` (00:15 … 24:00): curves of different days share the axis. */
  slot: field(z.string(), { label: label('slot'), widget: 'text' }),
  /** The curve the point belongs to: the meter (several meters on a day) or the day (one meter's days). */
  curve: field(z.string(), { label: label('curve'), widget: 'text' }),
  activePower: amount('activePower'),
  activeImport: amount('activeImport'),
  activeExport: amount('activeExport'),
  reactiveImport: amount('reactiveImport'),
  reactiveExport: amount('reactiveExport'),
  voltageL1: amount('voltageL1'),
  currentL1: amount('currentL1'),
});

/** The meters of the detail: one or more, at most MAX_OVERLAY_CURVES, each within the caller's grid scope. */
export const OverlayMetersSchema = z
  .array(IdSchema, 'invalidValue')
  .min(1, 'mandatory')
  .max(MAX_OVERLAY_CURVES, 'tooLong')
  .describe(`Meters whose curves are overlaid (at most ${MAX_OVERLAY_CURVES}; several only on one day)`);

const dayCount = (period: { start: string; end: string }) =>
  (Date.parse(period.end) - Date.parse(period.start)) / 86_400_000 + 1;

export const loadProfileDetailAnalytics = defineAnalytics({
  entity: loadProfileDetailEntity,
  period: { unit: 'day', maxDays: MAX_OVERLAY_DAYS, defaultDays: 1, defaultEndsAgo: 1 },
  summary: z.object({
    curves: count('curves'),
    intervals: count('intervals'),
    expected: count('expected'),
    demandMax: amount('demandMax'),
    peakAt: field(z.string().nullable(), { label: label('peakAt'), widget: 'datetime' }),
  }),
  point: curvePoint,
  chart: {
    kind: 'line',
    x: 'slot',
    xType: 'category',
    series: ['activePower'],
    seriesBy: 'curve',
    categories: DAY_SLOTS,
  },
  fixed: { meterIds: OverlayMetersSchema },
  check: (body, period) => {
    const meters = Array.isArray(body.meterIds) ? body.meterIds.length : 0;
    return meters > 1 && dayCount(period) > 1 ? { path: 'meterIds', message: 'overlayOneDay' } : undefined;
  },
});
export const loadProfileDetailApi = analyticsApi(loadProfileDetailAnalytics);
