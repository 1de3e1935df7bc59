import { z } from 'zod';
import { field } from '../common/entity';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { METER_STATUSES, type MeterStatus } from './enums';

/** spec §9: the map opens here. */
export const MAP_CENTER = { lat: 24.6, lng: 46.6 } as const;
export const MAP_ZOOM = 12;
export const GIS_KINDS = ['consumer', 'meter', 'dcu'] as const;
export type GisKind = (typeof GIS_KINDS)[number];
/** Single points listed at most per answer; beyond that the view shows clusters only. */
export const MAX_GIS_POINTS = 2000;

export const GIS_RES = '/archiveSetting/gis';

const bound = (min: number, max: number) => z.number('numberFormat').min(min, 'outOfRange').max(max, 'outOfRange');

export const GisQuerySchema = z
  .strictObject({
    west: bound(-180, 180),
    south: bound(-90, 90),
    east: bound(-180, 180),
    north: bound(-90, 90),
    zoom: z.number().int('invalidValue').min(0, 'outOfRange').max(22, 'outOfRange'),
    // The map's filter bar draws these three from their meta, as a list's bar draws its filters.
    kinds: field(
      z
        .array(z.enum(GIS_KINDS, 'invalidValue'))
        .min(1, 'mandatory')
        .max(3, 'tooLong')
        .default([...GIS_KINDS]),
      {
        label: 'gis.fields.kinds',
        widget: 'select',
        multiple: true,
        options: GIS_KINDS.map((kind) => ({ value: kind, label: `gis.kinds.${kind}` })),
      },
    ),
    gridId: field(IdSchema.optional(), { label: 'gis.fields.gridId', widget: 'treeSelect', lookup: 'gridTree' }),
    meterStatus: field(
      z
        .array(
          z.union(METER_STATUSES.map((s) => z.literal(s)) as unknown as [z.ZodLiteral<MeterStatus>], 'invalidValue'),
        )
        .max(6, 'tooLong')
        .optional(),
      {
        label: 'gis.fields.meterStatus',
        widget: 'select',
        multiple: true,
        options: METER_STATUSES.map((status) => ({ value: status, label: `meter.statuses.${status}` })),
      },
    ),
  })
  .refine((q) => q.south <= q.north, { path: ['north'], message: 'outOfRange' });
export type GisQuery = z.infer<typeof GisQuerySchema>;

export const GisClusterSchema = z.object({
  kind: z.enum(GIS_KINDS),
  lat: z.number(),
  lng: z.number(),
  count: z.number().int(),
});
export type GisCluster = z.infer<typeof GisClusterSchema>;

export const GisPointSchema = z.object({
  kind: z.enum(GIS_KINDS),
  id: IdSchema,
  lat: z.number(),
  lng: z.number(),
  /** The business key shown on the marker: consumer code, meter serial, DCU number. */
  label: z.string(),
  /** Meter status 0–5; for a consumer, 1 when protected; for a DCU, 0. */
  status: z.number().int(),
});
export type GisPoint = z.infer<typeof GisPointSchema>;

export const GisAnswerSchema = z.object({
  clusters: z.array(GisClusterSchema),
  points: z.array(GisPointSchema),
  /** Everything in view, clustered or not. */
  total: z.number().int(),
});
export type GisAnswer = z.infer<typeof GisAnswerSchema>;

export const GisConfigSchema = z.object({
  /** A Leaflet tile URL template; null: no tiles (an offline control room), markers on a plain background. */
  tileUrl: z.string().nullable(),
  attribution: z.string(),
  center: z.object({ lat: z.number(), lng: z.number() }),
  zoom: z.number().int(),
});
export type GisConfig = z.infer<typeof GisConfigSchema>;

export const gisApi = {
  config: defineOperation({
    path: '/gis/config',
    access: needs(GIS_RES),
    tag: 'gis',
    summary: 'Where the map opens and which tiles it draws (MAP_TILE_URL)',
    request: z.strictObject({}),
    response: GisConfigSchema,
  }),
  points: defineOperation({
    path: '/gis/points',
    access: needs(GIS_RES),
    tag: 'gis',
    summary:
      "Consumers, meters and DCUs in the viewport within the caller's grid scope, clustered by the server for the zoom: never every point",
    request: GisQuerySchema,
    response: GisAnswerSchema,
  }),
};
