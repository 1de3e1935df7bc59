import { z } from 'zod';
import { CONSUMER_TYPES } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { equals, subtree } from '../common/list';
import { ANALYTICS_AREA, analyticsApi, analyticsField, DevAddrFilterSchema, defineAnalytics } from './kit';

const CUMULATIVE = `${ANALYTICS_AREA}/cumulativeEnergy`;
export const CUMULATIVE_ENERGY_RES = { page: CUMULATIVE, detail: `${CUMULATIVE}/detail` } as const;
export const ENERGY_GAIN_RES = { page: `${ANALYTICS_AREA}/energyGain` } as const;

/** The tariff rates of the active import register (T1–T4), as the chart and the columns name them. */
export const TARIFF_RATES = ['T1', 'T2', 'T3', 'T4'] as const;

/** spec §5: the detail's period and the gain's two dates span at most this many days. */
export const MAX_REGISTER_DAYS = 92;
export const MAX_GAIN_DAYS = 366;

const label = (key: string) => `analyticsEnergy.fields.${key}`;
/** A register in kWh (kvarh) with three decimals; null when no frozen value is known. */
const energy = (key: string) => field(z.number().nullable(), { label: label(key), widget: 'number' });
const count = (key: string) => field(z.number().int(), { label: label(key), widget: 'number' });
const day = (key: string) => field(z.string().nullable(), { label: label(key), widget: 'text' });

const registers = {
  activeImport: energy('activeImport'),
  activeImportT1: energy('activeImportT1'),
  activeImportT2: energy('activeImportT2'),
  activeImportT3: energy('activeImportT3'),
  activeImportT4: energy('activeImportT4'),
  activeExport: energy('activeExport'),
  reactiveImport: energy('reactiveImport'),
  reactiveExport: energy('reactiveExport'),
};
export const REGISTER_FIELDS = Object.keys(registers) as (keyof typeof registers)[];
const registerColumns = REGISTER_FIELDS.map((f) => ({ field: f, width: 140 }));

const meterFilters = [
  subtree('gridId'),
  equals('dcuId', IdSchema),
  equals('devAddr', DevAddrFilterSchema),
  equals('consumerType', z.enum(CONSUMER_TYPES, 'invalidValue')),
] as const;

/**
 * A meter's registers at the chosen date: the values frozen at the midnight that closes it, or, when
 * that day is missing, the latest frozen before it — `readingDay` says which day they are. A meter
 * with no frozen value up to the date shows no registers.
 */
export const CumulativeEnergyRowSchema = storedRecord(
  z.object({
    meterId: analyticsField.meterId(),
    devAddr: analyticsField.devAddr(),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
    consumerType: analyticsField.consumerType(),
    readingDay: day('readingDay'),
    ...registers,
  }),
);
export type CumulativeEnergyRow = z.infer<typeof CumulativeEnergyRowSchema>;

export const cumulativeEnergyEntity = defineEntity({
  name: 'cumulativeEnergy',
  record: CumulativeEnergyRowSchema,
  pagePath: CUMULATIVE_ENERGY_RES.page,
  columns: [
    { field: 'devAddr', sortable: true, width: 150 },
    { field: 'gridName' },
    { field: 'dcuNo', width: 140 },
    { field: 'consumerType', width: 120 },
    { field: 'readingDay', width: 120 },
    ...registerColumns,
  ],
  filters: meterFilters,
  form: [],
  detail: ['devAddr', 'gridName', 'dcuNo', 'consumerType', 'readingDay', ...REGISTER_FIELDS],
});

export const cumulativeEnergyAnalytics = defineAnalytics({
  entity: cumulativeEnergyEntity,
  title: 'analyticsEnergy.titles.cumulativeEnergy',
  // One date: the registers frozen at its end. Today has none yet, so the page opens on yesterday.
  period: { unit: 'day', maxDays: 1, defaultDays: 1, defaultEndsAgo: 1 },
  summary: z.object({
    meters: count('meters'),
    /** Meters whose registers were frozen at the date itself (the others show an earlier day or none). */
    metersAtDate: count('metersAtDate'),
    activeImport: energy('activeImport'),
    activeExport: energy('activeExport'),
    reactiveImport: energy('reactiveImport'),
    reactiveExport: energy('reactiveExport'),
  }),
  // The meters' active import at the date split by tariff rate.
  point: z.object({
    rate: field(z.enum(TARIFF_RATES), { label: label('rate'), widget: 'text' }),
    activeImport: energy('activeImport'),
  }),
  chart: { kind: 'bar', x: 'rate', xType: 'category', series: ['activeImport'] },
});
export const cumulativeEnergyApi = analyticsApi(cumulativeEnergyAnalytics);

/** One meter's registers frozen at the end of one day. */
export const RegisterDayRowSchema = storedRecord(
  z.object({
    day: field(z.string(), { label: 'analytics.fields.day', widget: 'text' }),
    meterId: analyticsField.meterId(),
    ...registers,
    /** The highest demand of the day, kW. */
    maxDemand: energy('maxDemand'),
  }),
);
export type RegisterDayRow = z.infer<typeof RegisterDayRowSchema>;

export const cumulativeEnergyDetailEntity = defineEntity({
  name: 'cumulativeEnergyDetail',
  record: RegisterDayRowSchema,
  pagePath: CUMULATIVE_ENERGY_RES.detail,
  columns: [{ field: 'day', sortable: true, width: 130 }, ...registerColumns, { field: 'maxDemand', width: 140 }],
  filters: [],
  form: [],
  detail: ['day', ...REGISTER_FIELDS, 'maxDemand'],
});

const ratePoint = {
  day: field(z.string(), { label: 'analytics.fields.day', widget: 'text' }),
  activeImportT1: energy('activeImportT1'),
  activeImportT2: energy('activeImportT2'),
  activeImportT3: energy('activeImportT3'),
  activeImportT4: energy('activeImportT4'),
  activeImport: energy('activeImport'),
};

export const cumulativeEnergyDetailAnalytics = defineAnalytics({
  entity: cumulativeEnergyDetailEntity,
  title: 'analyticsEnergy.titles.cumulativeEnergyDetail',
  period: { unit: 'day', maxDays: MAX_REGISTER_DAYS, defaultDays: 31 },
  summary: z.object({
    devAddr: analyticsField.devAddr(),
    /** The last day of the period with frozen values, and its registers. */
    lastDay: day('lastDay'),
    activeImport: energy('activeImport'),
    activeExport: energy('activeExport'),
    /** Days of the period with frozen values. */
    daysKnown: count('daysKnown'),
  }),
  // A line per tariff rate over the period (the register climbing), the total above them.
  point: z.object(ratePoint),
  chart: {
    kind: 'line',
    x: 'day',
    xType: 'day',
    series: ['activeImportT1', 'activeImportT2', 'activeImportT3', 'activeImportT4', 'activeImport'],
  },
  fixed: { meterId: IdSchema },
});
export const cumulativeEnergyDetailApi = analyticsApi(cumulativeEnergyDetailAnalytics);

/*
 * Energy gain: what each meter's registers rose between the start of the period (the values frozen
 * at the midnight that opens its first day) and its end (those frozen at the midnight that closes its
 * last day) — over whole days, the same span the consumption pages sum day by day. Only a meter with
 * both frozen values has a gain. A register that went down (a replaced meter, a reset register) gives
 * a negative gain: shown as it is, never hidden or taken for zero, so the list's far end names the
 * meters an operator must look at; the grid-node figures add only the gains that are not negative and
 * count the others.
 */
export const EnergyGainRowSchema = storedRecord(
  z.object({
    meterId: analyticsField.meterId(),
    devAddr: analyticsField.devAddr(),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
    consumerType: analyticsField.consumerType(),
    /** Active import frozen when the period opens (the day before its first) and when it closes. */
    startImport: energy('startImport'),
    endImport: energy('endImport'),
    gain: energy('gain'),
    gainT1: energy('gainT1'),
    gainT2: energy('gainT2'),
    gainT3: energy('gainT3'),
    gainT4: energy('gainT4'),
    exportGain: energy('exportGain'),
  }),
);
export type EnergyGainRow = z.infer<typeof EnergyGainRowSchema>;

export const energyGainEntity = defineEntity({
  name: 'energyGain',
  record: EnergyGainRowSchema,
  pagePath: ENERGY_GAIN_RES.page,
  columns: [
    { field: 'devAddr', sortable: true, width: 150 },
    { field: 'gridName' },
    { field: 'dcuNo', width: 140 },
    { field: 'consumerType', width: 120 },
    { field: 'gain', sortable: true, width: 140 },
    { field: 'gainT1', width: 120 },
    { field: 'gainT2', width: 120 },
    { field: 'gainT3', width: 120 },
    { field: 'gainT4', width: 120 },
    { field: 'exportGain', width: 140 },
    { field: 'startImport', width: 150 },
    { field: 'endImport', width: 150 },
  ],
  filters: meterFilters,
  form: [],
  detail: [
    'devAddr',
    'gridName',
    'dcuNo',
    'consumerType',
    'gain',
    'gainT1',
    'gainT2',
    'gainT3',
    'gainT4',
    'exportGain',
    'startImport',
    'endImport',
  ],
});

const gainFigures = z.object({
  meters: count('meters'),
  /** Meters with both frozen values: those whose gain is known. */
  metersWithGain: count('metersWithGain'),
  gain: energy('gain'),
  /** Meters whose registers went down over the period (replaced, reset): their gain is negative. */
  metersDecreased: count('metersDecreased'),
});
/** The largest gains of the period, one bar each: the chart of either view. */
const gainPoint = z.object({
  name: field(z.string(), { label: label('name'), widget: 'text' }),
  gain: energy('gain'),
});
/** Bars in the gain chart: the first page's largest, enough to compare without crowding the axis. */
export const GAIN_CHART_BARS = 10;

export const energyGainAnalytics = defineAnalytics({
  entity: energyGainEntity,
  title: 'analyticsEnergy.titles.energyGain',
  // A gain ends at a day's frozen registers: the last whole week, as today's are not frozen yet.
  period: { unit: 'day', maxDays: MAX_GAIN_DAYS, defaultDays: 7, defaultEndsAgo: 1 },
  summary: gainFigures,
  point: gainPoint,
  chart: { kind: 'bar', x: 'name', xType: 'category', series: ['gain'] },
});
export const energyGainApi = analyticsApi(energyGainAnalytics);

/** A grid node's gain: the sum over the meters of its subtree. */
export const EnergyGainNodeRowSchema = storedRecord(
  z.object({
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    meters: count('meters'),
    metersWithGain: count('metersWithGain'),
    gain: energy('gain'),
    metersDecreased: count('metersDecreased'),
  }),
);
export type EnergyGainNodeRow = z.infer<typeof EnergyGainNodeRowSchema>;

/**
 * The grid-node view of energy gain: the chosen node's children (the caller's scope roots when none is
 * chosen), each with the gain of its whole subtree, largest first; a node without children is listed itself.
 */
export const energyGainGridEntity = defineEntity({
  name: 'energyGainGrid',
  record: EnergyGainNodeRowSchema,
  pagePath: ENERGY_GAIN_RES.page,
  columns: [
    { field: 'gridName', sortable: true },
    { field: 'meters', width: 110 },
    { field: 'metersWithGain', width: 140 },
    { field: 'gain', sortable: true, width: 150 },
    { field: 'metersDecreased', width: 150 },
  ],
  filters: [subtree('gridId')],
  form: [],
  detail: ['gridName', 'meters', 'metersWithGain', 'gain', 'metersDecreased'],
});

export const energyGainGridAnalytics = defineAnalytics({
  entity: energyGainGridEntity,
  title: 'analyticsEnergy.titles.energyGainGrid',
  period: { unit: 'day', maxDays: MAX_GAIN_DAYS, defaultDays: 7, defaultEndsAgo: 1 },
  summary: gainFigures,
  point: gainPoint,
  chart: { kind: 'bar', x: 'name', xType: 'category', series: ['gain'] },
});
export const energyGainGridApi = analyticsApi(energyGainGridAnalytics);
