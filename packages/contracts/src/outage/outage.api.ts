import { z } from 'zod';
import { EXPORT_FORMATS } from '../archive/archive-api';
import { GIS_RES } from '../archive/gis.api';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { PageQuerySchema, pageOf } from '../common/paging';

/**
 * Outages: meters (and DCUs) whose latest power event is a power-down with no later power-up, as the
 * readings writer keeps them (`device_power`), rolled up the grid tree. Shown as a layer and a panel
 * of the GIS page; the network monitor may show the same calls.
 */
export const OUTAGE_RES = {
  /** Pages that show outages. */
  view: [GIS_RES, '/dataAnalytic/networkMonitor'],
  export: `${GIS_RES}/export`,
  /** Demo and test runs: black out a grid node's devices in the simulator. */
  simulate: `${GIS_RES}/simulateOutage`,
} as const;

const gridId = IdSchema.optional().describe(
  "A grid node within the caller's scope (404 naming gridId otherwise); the caller's whole scope when absent",
);
const moment = z.string().describe('ISO 8601 time');

export const OutageQuerySchema = z.strictObject({ gridId });
export type OutageQuery = z.infer<typeof OutageQuerySchema>;

/** A grid node with dark meters or DCUs in its subtree. */
export const OutageNodeSchema = z.object({
  gridId: IdSchema,
  gridCode: z.string(),
  gridName: z.string(),
  /** 0 region, 1 substation, 2 feeder, 3 transformer area. */
  gridType: z.number().int(),
  /** Its parent in the answer; null for a top node of the answer. */
  parentId: IdSchema.nullable(),
  /** 0 for a top node of the answer. */
  depth: z.number().int(),
  /** Meters placed in the node itself, and how many of them are dark. */
  ownMeters: z.number().int(),
  ownDarkMeters: z.number().int(),
  /** Over the node's subtree. */
  darkMeters: z.number().int(),
  darkConsumers: z.number().int().describe('Consumers supplied through the dark meters (their POCs)'),
  darkDcus: z.number().int(),
  /** Transformer areas in the subtree (the node itself included), and those whose every meter is dark. */
  areas: z.number().int(),
  darkAreas: z.number().int(),
  /** Every own meter dark (a node holding meters), or every transformer area below it dark (a node above). */
  dark: z.boolean(),
  /** The earliest power-down among the subtree's dark devices. */
  since: moment,
  /** Where the node's own dark meters lie (the middle of their bounding box) and how far they spread, metres; null when none has a position. */
  center: z.object({ lat: z.number(), lng: z.number(), radius: z.number() }).nullable(),
});
export type OutageNode = z.infer<typeof OutageNodeSchema>;

export const OutageSummarySchema = z.object({
  darkMeters: z.number().int(),
  darkConsumers: z.number().int(),
  darkDcus: z.number().int(),
  /** Transformer areas whose every meter is dark, and those with at least one dark meter. */
  darkAreas: z.number().int(),
  affectedAreas: z.number().int(),
  /** The earliest power-down still dark; null when nothing is. */
  since: moment.nullable(),
  /** The nodes with dark devices below them, parents before children, siblings by name. */
  nodes: z.array(OutageNodeSchema),
});
export type OutageSummary = z.infer<typeof OutageSummarySchema>;

/** A dark meter, as the outage panel's list and its export show it. */
export const DarkMeterSchema = z.object({
  meterId: IdSchema,
  devAddr: z.string(),
  gridId: IdSchema,
  gridName: z.string(),
  dcuNo: z.string(),
  consumerCode: z.string(),
  consumerName: z.string(),
  darkSince: moment,
});
export type DarkMeter = z.infer<typeof DarkMeterSchema>;

/** The dark meter list's columns, in order: the panel's table and the export read them (labels `outage.fields.*`). */
export const DARK_METER_COLUMNS = [
  'devAddr',
  'gridName',
  'dcuNo',
  'consumerCode',
  'consumerName',
  'darkSince',
] as const satisfies readonly (keyof DarkMeter)[];

export const DarkMeterQuerySchema = PageQuerySchema.extend({ gridId });
export type DarkMeterQuery = z.infer<typeof DarkMeterQuerySchema>;

export const OutageExportSchema = z.strictObject({
  gridId,
  format: z.enum(EXPORT_FORMATS, 'invalidValue').default('xlsx'),
});
export type OutageExport = z.infer<typeof OutageExportSchema>;

const bound = (min: number, max: number) => z.number('numberFormat').min(min, 'outOfRange').max(max, 'outOfRange');

/** The map's viewport, as the GIS points call takes it. */
export const OutagePointsQuerySchema = z
  .strictObject({
    west: bound(-180, 180),
    south: bound(-90, 90),
    east: bound(-180, 180),
    north: bound(-90, 90),
    zoom: z.number().int('invalidValue').min(0, 'outOfRange').max(22, 'outOfRange'),
    gridId,
  })
  .refine((q) => q.south <= q.north, { path: ['north'], message: 'outOfRange' });
export type OutagePointsQuery = z.infer<typeof OutagePointsQuerySchema>;

export const OutagePointsSchema = z.object({
  /** A cell holding one dark meter is that meter. */
  points: z.array(z.object({ id: IdSchema, lat: z.number(), lng: z.number(), label: z.string(), since: moment })),
  clusters: z.array(z.object({ lat: z.number(), lng: z.number(), count: z.number().int() })),
  /** Dark meters in view. */
  total: z.number().int(),
  /** Dark meters of the node (or scope) with no position: listed in the panel, not on the map. */
  unplaced: z.number().int(),
});
export type OutagePoints = z.infer<typeof OutagePointsSchema>;

export const SimulatedOutageSchema = z.strictObject({
  gridId: IdSchema.describe("A grid node within the caller's scope (400 gridNotFound otherwise)"),
  powered: z.boolean().describe('false: black out the devices placed in the node and below; true: restore them'),
});
export type SimulatedOutage = z.infer<typeof SimulatedOutageSchema>;

const tag = 'outage';
const access = needs(...OUTAGE_RES.view);

export const outageApi = {
  summary: defineOperation({
    path: '/outage/summary',
    access,
    tag,
    summary:
      "Outages within the caller's grid scope rolled up the grid tree: which transformer areas and feeders are dark, how many meters, consumers and DCUs, since when",
    request: OutageQuerySchema,
    response: OutageSummarySchema,
  }),
  meters: defineOperation({
    path: '/outage/meters',
    access,
    tag,
    summary: 'The dark meters of a grid node (or the caller’s scope), longest dark first',
    request: DarkMeterQuerySchema,
    response: pageOf(DarkMeterSchema),
  }),
  points: defineOperation({
    path: '/outage/points',
    access,
    tag,
    summary: 'The dark meters in the map’s viewport, clustered for the zoom as the GIS points are',
    request: OutagePointsQuerySchema,
    response: OutagePointsSchema,
  }),
  export: defineOperation({
    path: '/outage/export',
    access: needs(OUTAGE_RES.export),
    tag,
    summary: 'The dark meters of a grid node (or the caller’s scope) as a spreadsheet or PDF',
    request: OutageExportSchema,
    response: z.unknown(),
  }),
  simulate: defineOperation({
    path: '/simulator/power',
    access: needs(OUTAGE_RES.simulate),
    tag,
    summary:
      'Demo and test runs: black out (or restore) the devices placed in a grid node and below in the device simulator the server runs; 409 simulatorNotRunning without one',
    request: SimulatedOutageSchema,
    response: z.object({
      meters: z.number().int().describe('Meters told'),
      dcus: z.number().int().describe('DCUs told'),
    }),
    audit: 'other',
  }),
};
