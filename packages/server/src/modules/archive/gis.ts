import {
  type GisAnswer,
  type GisKind,
  type GisQuery,
  gisApi,
  MAP_CENTER,
  MAP_ZOOM,
  MAX_GIS_POINTS,
} from '@meterdesk/contracts';
import { and, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config';
import type { Db } from '../../db/driver';
import { inSubtree } from '../../db/list';
import { lookup, rowsOf } from '../../db/rows';
import { consumer, dcu, meter } from '../../db/schema';
import type { SessionContext } from '../../http/operation';
import { registerOperation } from '../../http/operation';
import { GRID_TREE, gridScope, scopeOf } from '../../rbac/scope';

/** Where each kind keeps its position, name, state and grid. */
interface Layer {
  table: PgTable;
  id: AnyPgColumn;
  lat: AnyPgColumn;
  lng: AnyPgColumn;
  label: AnyPgColumn;
  status: SQL;
  grid: AnyPgColumn;
}

const LAYERS: Record<GisKind, Layer> = {
  consumer: {
    table: consumer,
    id: consumer.id,
    lat: consumer.latitude,
    lng: consumer.longitude,
    label: consumer.consumerCode,
    status: sql`case when ${consumer.protected} then 1 else 0 end`,
    grid: consumer.gridId,
  },
  meter: {
    table: meter,
    id: meter.id,
    lat: meter.latitude,
    lng: meter.longitude,
    label: meter.devAddr,
    status: sql`${meter.status}`,
    grid: meter.gridId,
  },
  dcu: {
    table: dcu,
    id: dcu.id,
    lat: dcu.latitude,
    lng: dcu.longitude,
    label: dcu.dcuNo,
    status: sql`0`,
    grid: dcu.gridId,
  },
};

/** Degrees a cluster cell spans at a zoom: a quarter of a 256 px tile, about 64 px on screen. */
export const cellDegrees = (zoom: number) => 360 / 2 ** zoom / 4;

interface CellRow {
  n: number;
  lat: number;
  lng: number;
  id: string;
  label: string | null;
  status: number;
}

/**
 * What the map shows in a viewport: one aggregate query per kind on the covering position index
 * (GiST on point(longitude, latitude), migration 0009), grouped
 * into screen-sized cells. A cell holding one record is that record; any other is a cluster with
 * its count at the cell's centre of mass. The browser never receives every point.
 */
export class GisService {
  constructor(
    private readonly db: Db,
    private readonly config: Pick<Config, 'mapTileUrl' | 'mapTileAttribution'>,
  ) {}

  mapConfig() {
    return {
      tileUrl: this.config.mapTileUrl,
      attribution: this.config.mapTileAttribution,
      center: { ...MAP_CENTER },
      zoom: MAP_ZOOM,
    };
  }

  async points(q: GisQuery, session: SessionContext): Promise<GisAnswer> {
    const scope = await scopeOf(this.db, session);
    const cell = cellDegrees(q.zoom);
    const answer: GisAnswer = { clusters: [], points: [], total: 0 };
    for (const kind of q.kinds) {
      const layer = LAYERS[kind];
      const box = (west: number, east: number) =>
        sql`point(${layer.lng}, ${layer.lat}) <@ box(point(${west}, ${q.south}), point(${east}, ${q.north}))`;
      // A view across the antimeridian has its west edge east of its east edge.
      const inView = q.west <= q.east ? box(q.west, q.east) : or(box(q.west, 180), box(-180, q.east));
      const where = and(
        inView,
        gridScope(scope, layer.grid),
        q.gridId ? inSubtree(layer.grid, GRID_TREE, q.gridId) : undefined,
        kind === 'meter' && q.meterStatus?.length ? inArray(meter.status, q.meterStatus) : undefined,
      );
      // The cells come from the position index alone; a cell of one record looks up its label.
      const cells = await rowsOf<CellRow>(
        this.db,
        sql`select cell.*, case when cell.n = 1 then ${lookup(layer.label, layer.id, sql`cell.id`)} end as label
            from (select count(*)::int as n, avg(${layer.lat})::float8 as lat, avg(${layer.lng})::float8 as lng,
                    min(${layer.id}) as id, min(${layer.status})::int as status
                  from ${layer.table} where ${where}
                  group by floor(${layer.lng} / ${cell}), floor(${layer.lat} / ${cell})) cell`,
      );
      for (const c of cells) {
        const count = Number(c.n);
        answer.total += count;
        if (count === 1 && answer.points.length < MAX_GIS_POINTS) {
          answer.points.push({
            kind,
            id: c.id,
            lat: Number(c.lat),
            lng: Number(c.lng),
            label: c.label ?? '',
            status: Number(c.status),
          });
        } else {
          answer.clusters.push({ kind, lat: Number(c.lat), lng: Number(c.lng), count });
        }
      }
    }
    return answer;
  }
}

export function registerGisRoutes(app: FastifyInstance, gis: GisService): void {
  registerOperation(app, gisApi.config, () => gis.mapConfig());
  registerOperation(app, gisApi.points, ({ body, session }) => gis.points(body, session));
}
