import {
  type DarkMeter,
  type OutageNode,
  type OutagePoints,
  type OutagePointsQuery,
  type OutageSummary,
  type Page,
  type PageQuery,
  RESULT,
} from '@meterdesk/contracts';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/driver';
import { inSubtree } from '../../db/list';
import { rowsOf } from '../../db/rows';
import { dcu, meter, powerGrid } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { GRID_TREE, gridScope, type Scope } from '../../rbac/scope';
import { cellDegrees } from '../archive/gis';

const TRANSFORMER_AREA = 3;
/** Metres per degree of latitude. */
const METRES_PER_DEGREE = 111_320;
/** An area drawn around a single dark meter still shows as an area. */
const MIN_RADIUS_M = 150;

/** Where a request looks: the subtrees of `roots`, or everything (an administrator asking for no node). */
export interface OutagePlace {
  roots: readonly string[] | null;
}

/** The dark devices' rows: the partial index holds only them, a few among millions. */
const darkOf = (kind: 'meter' | 'dcu') => sql`dp.dark and dp.device_kind = ${kind}`;

const iso = (at: Date | string) => new Date(at).toISOString();

interface DarkGroup {
  grid_id: string;
  dark: number;
  consumers: number;
  since: Date | string;
  lat_min: number | null;
  lat_max: number | null;
  lng_min: number | null;
  lng_max: number | null;
}

interface GridRow {
  id: string;
  grid_code: string;
  grid_name: string;
  grid_type: number;
  parent_id: string;
}

/**
 * The outage view's queries. Each reads the dark devices of `device_power` (its partial index) joined
 * to their archive rows by key, then the grid nodes above them: the cost follows what is dark, never
 * the size of the fleet or of the event tables.
 */
export class OutageService {
  constructor(private readonly db: Db) {}

  /** The chosen node within the caller's scope (404 naming gridId otherwise), else the scope. */
  async place(gridId: string | undefined, scope: Scope): Promise<OutagePlace> {
    if (!gridId) return { roots: scope.all ? null : scope.gridIds };
    const [found] = await this.db
      .select({ id: powerGrid.id })
      .from(powerGrid)
      .where(and(eq(powerGrid.id, gridId), gridScope(scope, powerGrid.id)));
    if (!found) throw fieldError(RESULT.notFound, 'gridId', 'notFound');
    return { roots: [gridId] };
  }

  private within(place: OutagePlace, gridColumn: SQL): SQL {
    return place.roots === null ? sql`true` : inSubtree(gridColumn, GRID_TREE, place.roots);
  }

  async summary(place: OutagePlace): Promise<OutageSummary> {
    const meters = await rowsOf<DarkGroup>(
      this.db,
      sql`select m.grid_id, count(*)::int as dark, count(distinct p.consumer_id)::int as consumers,
          min(dp.dark_since) as since,
          min(m.latitude) filter (where m.longitude is not null)::float8 as lat_min,
          max(m.latitude) filter (where m.longitude is not null)::float8 as lat_max,
          min(m.longitude) filter (where m.latitude is not null)::float8 as lng_min,
          max(m.longitude) filter (where m.latitude is not null)::float8 as lng_max
        from device_power dp join meter m on m.id = dp.device_id left join poc p on p.meter_id = m.id
        where ${darkOf('meter')} and ${this.within(place, sql`m.grid_id`)}
        group by m.grid_id`,
    );
    const dcus = await rowsOf<{ grid_id: string; dark: number; since: Date | string }>(
      this.db,
      sql`select d.grid_id, count(*)::int as dark, min(dp.dark_since) as since
        from device_power dp join dcu d on d.id = dp.device_id
        where ${darkOf('dcu')} and ${this.within(place, sql`d.grid_id`)}
        group by d.grid_id`,
    );
    const affected = [...new Set([...meters, ...dcus].map((g) => g.grid_id))];
    if (!affected.length)
      return { darkMeters: 0, darkConsumers: 0, darkDcus: 0, darkAreas: 0, affectedAreas: 0, since: null, nodes: [] };

    const ownMeters = new Map(
      (
        await rowsOf<{ grid_id: string; n: number }>(
          this.db,
          sql`select grid_id, count(*)::int as n from meter
            where grid_id in (select jsonb_array_elements_text(${JSON.stringify(meters.map((m) => m.grid_id))}::jsonb))
            group by grid_id`,
        )
      ).map((r) => [r.grid_id, r.n]),
    );
    const grid = new Map(
      (
        await rowsOf<GridRow>(
          this.db,
          sql`with recursive up as (
              select id, grid_code, grid_name, grid_type, parent_id from power_grid
                where id in (select jsonb_array_elements_text(${JSON.stringify(affected)}::jsonb))
              union select g.id, g.grid_code, g.grid_name, g.grid_type, g.parent_id from power_grid g join up on g.id = up.parent_id)
            select * from up`,
        )
      ).map((g) => [g.id, g]),
    );

    // Each affected node's chain upwards, cut at the highest node the request covers.
    const roots = place.roots === null ? null : new Set(place.roots);
    const chainOf = (id: string): string[] => {
      const chain: string[] = [];
      for (let node = grid.get(id); node && chain.length < 64; node = grid.get(node.parent_id)) chain.push(node.id);
      if (!roots) return chain;
      let top = -1;
      chain.forEach((node, i) => {
        if (roots.has(node)) top = i;
      });
      return chain.slice(0, top + 1);
    };
    const nodes = new Map<string, OutageNode>();
    const node = (id: string): OutageNode => {
      let found = nodes.get(id);
      if (!found) {
        const g = grid.get(id) as GridRow;
        found = {
          gridId: id,
          gridCode: g.grid_code,
          gridName: g.grid_name,
          gridType: g.grid_type,
          parentId: null,
          depth: 0,
          ownMeters: ownMeters.get(id) ?? 0,
          ownDarkMeters: 0,
          darkMeters: 0,
          darkConsumers: 0,
          darkDcus: 0,
          areas: g.grid_type === TRANSFORMER_AREA ? 1 : 0,
          darkAreas: 0,
          dark: false,
          since: '',
          center: null,
        };
        nodes.set(id, found);
      }
      return found;
    };
    const add = (id: string, figures: { meters?: number; consumers?: number; dcus?: number; since: string }) => {
      for (const above of chainOf(id)) {
        const n = node(above);
        n.darkMeters += figures.meters ?? 0;
        n.darkConsumers += figures.consumers ?? 0;
        n.darkDcus += figures.dcus ?? 0;
        if (!n.since || figures.since < n.since) n.since = figures.since;
      }
    };
    for (const m of meters) {
      add(m.grid_id, { meters: m.dark, consumers: m.consumers, since: iso(m.since) });
      const own = node(m.grid_id);
      own.ownDarkMeters = m.dark;
      own.center = centerOf(m);
    }
    for (const d of dcus) add(d.grid_id, { dcus: d.dark, since: iso(d.since) });

    const tops = [...nodes.values()].filter((n) => !nodes.has(grid.get(n.gridId)?.parent_id ?? ''));
    const upper = [...nodes.values()].filter((n) => n.gridType !== TRANSFORMER_AREA).map((n) => n.gridId);
    if (upper.length) {
      const areas = await rowsOf<{ top: string; areas: number }>(
        this.db,
        sql`with recursive down(top, id, grid_type) as (
            select id, id, grid_type from power_grid
              where id in (select jsonb_array_elements_text(${JSON.stringify(upper)}::jsonb))
            union all select down.top, g.id, g.grid_type from power_grid g join down on g.parent_id = down.id)
          select top, (count(*) filter (where grid_type = ${TRANSFORMER_AREA}))::int as areas from down group by top`,
      );
      for (const a of areas) node(a.top).areas = a.areas;
    }
    const areaDark = (n: OutageNode) => n.ownMeters > 0 && n.ownDarkMeters === n.ownMeters;
    for (const n of nodes.values())
      if (n.gridType === TRANSFORMER_AREA && areaDark(n))
        for (const above of chainOf(n.gridId)) node(above).darkAreas++;
    for (const n of nodes.values()) {
      n.parentId = nodes.has(grid.get(n.gridId)?.parent_id ?? '') ? (grid.get(n.gridId)?.parent_id ?? null) : null;
      n.dark =
        n.gridType === TRANSFORMER_AREA
          ? areaDark(n)
          : n.areas > 0 && n.darkAreas === n.areas && n.ownDarkMeters === n.ownMeters;
    }

    // Parents before children, siblings by name.
    const ordered: OutageNode[] = [];
    const children = new Map<string | null, OutageNode[]>();
    for (const n of nodes.values()) children.set(n.parentId, [...(children.get(n.parentId) ?? []), n]);
    const visit = (parentId: string | null, depth: number) => {
      for (const n of (children.get(parentId) ?? []).sort((a, b) => a.gridName.localeCompare(b.gridName))) {
        n.depth = depth;
        ordered.push(n);
        visit(n.gridId, depth + 1);
      }
    };
    visit(null, 0);
    const areaNodes = ordered.filter((n) => n.gridType === TRANSFORMER_AREA && n.ownDarkMeters > 0);
    const sum = (key: 'darkMeters' | 'darkConsumers' | 'darkDcus') => tops.reduce((total, n) => total + n[key], 0);
    return {
      darkMeters: sum('darkMeters'),
      darkConsumers: sum('darkConsumers'),
      darkDcus: sum('darkDcus'),
      darkAreas: areaNodes.filter(areaDark).length,
      affectedAreas: areaNodes.length,
      since: tops.reduce<string | null>((first, n) => (first === null || n.since < first ? n.since : first), null),
      nodes: ordered,
    };
  }

  /** The dark meters, longest dark first. */
  async meters(place: OutagePlace, page: PageQuery): Promise<Page<DarkMeter>> {
    const where = sql`${darkOf('meter')} and ${this.within(place, sql`m.grid_id`)}`;
    const [counted] = await rowsOf<{ n: number }>(
      this.db,
      sql`select count(*)::int as n from device_power dp join meter m on m.id = dp.device_id where ${where}`,
    );
    const rows = await rowsOf<{
      meter_id: string;
      dev_addr: string;
      grid_id: string;
      grid_name: string;
      dcu_no: string;
      consumer_code: string;
      consumer_name: string;
      dark_since: Date | string;
    }>(
      this.db,
      sql`select m.id as meter_id, m.dev_addr, m.grid_id, g.grid_name, coalesce(d.dcu_no, '') as dcu_no,
          coalesce(c.consumer_code, '') as consumer_code, coalesce(c.consumer_name, '') as consumer_name, dp.dark_since
        from device_power dp join meter m on m.id = dp.device_id join power_grid g on g.id = m.grid_id
          left join dcu d on d.id = m.dcu_id left join poc p on p.meter_id = m.id left join consumer c on c.id = p.consumer_id
        where ${where}
        order by dp.dark_since, m.dev_addr, m.id
        limit ${page.pageSize} offset ${(page.curPage - 1) * page.pageSize}`,
    );
    return {
      list: rows.map((r) => ({
        meterId: r.meter_id,
        devAddr: r.dev_addr,
        gridId: r.grid_id,
        gridName: r.grid_name,
        dcuNo: r.dcu_no,
        consumerCode: r.consumer_code,
        consumerName: r.consumer_name,
        darkSince: iso(r.dark_since),
      })),
      total: counted?.n ?? 0,
      curPage: page.curPage,
      pageSize: page.pageSize,
    };
  }

  /** The dark meters in view, grouped into screen-sized cells as the GIS points are. */
  async points(place: OutagePlace, q: OutagePointsQuery): Promise<OutagePoints> {
    const cell = cellDegrees(q.zoom);
    const lngIn =
      q.west <= q.east
        ? sql`m.longitude between ${q.west} and ${q.east}`
        : sql`(m.longitude >= ${q.west} or m.longitude <= ${q.east})`;
    const where = sql`${darkOf('meter')} and ${this.within(place, sql`m.grid_id`)}`;
    const cells = await rowsOf<{
      n: number;
      lat: number;
      lng: number;
      id: string;
      label: string;
      since: Date | string;
    }>(
      this.db,
      sql`select count(*)::int as n, avg(m.latitude)::float8 as lat, avg(m.longitude)::float8 as lng,
          min(m.id) as id, min(m.dev_addr) as label, min(dp.dark_since) as since
        from device_power dp join meter m on m.id = dp.device_id
        where ${where} and m.latitude between ${q.south} and ${q.north} and ${lngIn}
        group by floor(m.longitude / ${cell}), floor(m.latitude / ${cell})`,
    );
    const [unplaced] = await rowsOf<{ n: number }>(
      this.db,
      sql`select count(*)::int as n from device_power dp join meter m on m.id = dp.device_id
        where ${where} and (m.latitude is null or m.longitude is null)`,
    );
    const answer: OutagePoints = { points: [], clusters: [], total: 0, unplaced: unplaced?.n ?? 0 };
    for (const c of cells) {
      answer.total += c.n;
      if (c.n === 1) answer.points.push({ id: c.id, lat: c.lat, lng: c.lng, label: c.label, since: iso(c.since) });
      else answer.clusters.push({ lat: c.lat, lng: c.lng, count: c.n });
    }
    return answer;
  }

  /** Meter serials and DCU numbers placed in a node's subtree: what a simulated blackout switches. */
  async devicesUnder(gridId: string): Promise<{ meters: string[]; dcus: string[] }> {
    const meters = await this.db
      .select({ key: meter.devAddr })
      .from(meter)
      .where(inSubtree(meter.gridId, GRID_TREE, gridId));
    const dcus = await this.db
      .select({ key: dcu.dcuNo })
      .from(dcu)
      .where(inSubtree(dcu.gridId, GRID_TREE, gridId));
    return { meters: meters.map((m) => m.key), dcus: dcus.map((d) => d.key) };
  }
}

/** The middle of a node's dark meters and how far they spread, from their bounding box. */
function centerOf(g: DarkGroup): OutageNode['center'] {
  if (g.lat_min === null || g.lat_max === null || g.lng_min === null || g.lng_max === null) return null;
  const lat = (g.lat_min + g.lat_max) / 2;
  const lng = (g.lng_min + g.lng_max) / 2;
  const dy = ((g.lat_max - g.lat_min) / 2) * METRES_PER_DEGREE;
  const dx = ((g.lng_max - g.lng_min) / 2) * METRES_PER_DEGREE * Math.cos((lat * Math.PI) / 180);
  return { lat, lng, radius: Math.max(MIN_RADIUS_M, Math.round(Math.hypot(dx, dy))) };
}
