import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { PageQuerySchema, pageOf } from '../common/paging';
import { GIS_KINDS, GIS_RES, GisQuerySchema } from './gis.api';

/*
 * Finding records on the map (issue 17): by number or name, from a record's detail page ("show on
 * map"), and the meters that have no position of their own, which the map lists rather than losing.
 */

/** The detail pages that open the map centred on their record. */
export const LOCATABLE_KINDS = ['meter', 'consumer', 'dcu', 'poc', 'module'] as const;
export type LocatableKind = (typeof LOCATABLE_KINDS)[number];

/**
 * Where a found record's position comes from: its own coordinates, or — for a meter without them —
 * the consumer it supplies (through its POC), else its DCU: an approximate place, marked so.
 */
export const PLACEMENTS = ['own', 'consumer', 'dcu'] as const;
export type Placement = (typeof PLACEMENTS)[number];

/** Matches of each kind a search answers at most. */
export const MAX_FOUND_PER_KIND = 5;
export const MAX_SEARCH_LENGTH = 50;

export const GisFoundSchema = z.object({
  kind: z.enum(GIS_KINDS),
  id: IdSchema,
  /** The business key: meter serial, consumer code, DCU number. */
  label: z.string(),
  /** The consumer's or DCU's name; empty for a meter. */
  name: z.string(),
  /** As a map point's: meter status, 1 for a protected consumer, 0 for a DCU. */
  status: z.number().int(),
  lat: z.number().nullable(),
  lng: z.number().nullable(),
  /** Null: no position at all; the record is not on the map. */
  placement: z.enum(PLACEMENTS).nullable(),
});
export type GisFound = z.infer<typeof GisFoundSchema>;

export const GisSearchSchema = z.strictObject({
  keyword: z
    .string('mandatory')
    .trim()
    .min(1, 'mandatory')
    .max(MAX_SEARCH_LENGTH, 'tooLong')
    .describe('Part of a meter serial, a consumer code or name, a DCU number or name (case does not count)'),
  kinds: z
    .array(z.enum(GIS_KINDS, 'invalidValue'))
    .min(1, 'mandatory')
    .max(3, 'tooLong')
    .default([...GIS_KINDS]),
});
export type GisSearch = z.infer<typeof GisSearchSchema>;

export const GisSearchAnswerSchema = z.object({
  list: z.array(GisFoundSchema).describe(`Exact matches first, then at most ${MAX_FOUND_PER_KIND} per kind`),
  /** Some kind has more matches than listed: type more to narrow. */
  more: z.boolean(),
});
export type GisSearchAnswer = z.infer<typeof GisSearchAnswerSchema>;

export const GisLocateSchema = z.strictObject({ kind: z.enum(LOCATABLE_KINDS, 'invalidValue'), id: IdSchema });
export type GisLocate = z.infer<typeof GisLocateSchema>;

export const GisLocatedSchema = z.object({
  /** The asked record's business key, for "… is not on the map". */
  label: z.string(),
  /** What the map shows for it (a POC's or module's meter, else a POC's consumer); null: nothing. */
  target: GisFoundSchema.nullable(),
});
export type GisLocated = z.infer<typeof GisLocatedSchema>;

/** The map's own filters (grid node, meter status) choose the meters listed as having no position. */
export const GisUnplacedSchema = PageQuerySchema.extend({
  gridId: GisQuerySchema.shape.gridId,
  meterStatus: GisQuerySchema.shape.meterStatus,
});
export type GisUnplaced = z.infer<typeof GisUnplacedSchema>;

const access = needs(GIS_RES);
const scoped = "within the caller's grid scope";

export const gisFindApi = {
  search: defineOperation({
    path: '/gis/search',
    access,
    tag: 'gis',
    summary: `Meters, consumers and DCUs whose number or name holds the keyword, ${scoped}, with where each lies`,
    request: GisSearchSchema,
    response: GisSearchAnswerSchema,
  }),
  locate: defineOperation({
    path: '/gis/locate',
    access,
    tag: 'gis',
    summary: `Where a meter, consumer, DCU, POC or module lies on the map, ${scoped}; 404 outside it`,
    request: GisLocateSchema,
    response: GisLocatedSchema,
  }),
  unplaced: defineOperation({
    path: '/gis/unplaced',
    access,
    tag: 'gis',
    summary: `Meters without coordinates of their own, ${scoped}, by serial: each with the approximate place the map gives it, if any (total counted up to 1,000)`,
    request: GisUnplacedSchema,
    response: pageOf(GisFoundSchema),
  }),
};
