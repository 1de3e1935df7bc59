import {
  addUtcDays,
  type CumulativeEnergyRow,
  cumulativeEnergyAnalytics,
  cumulativeEnergyApi,
  cumulativeEnergyDetailAnalytics,
  cumulativeEnergyDetailApi,
  type EnergyGainNodeRow,
  type EnergyGainRow,
  energyGainAnalytics,
  energyGainApi,
  energyGainGridAnalytics,
  energyGainGridApi,
  GAIN_CHART_BARS,
  type Page,
  type Period,
  REGISTER_FIELDS,
  type RegisterDayRow,
  ROOT_PARENT_ID,
  TARIFF_RATES,
} from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { countMeters, kilo, metersIn, NEIGHBOURS, wholeNodes } from './consumption';
import { type AnalyticsRequest, inPlace, type PageRequest, registerAnalytics } from './kit';

type RegisterField = (typeof REGISTER_FIELDS)[number];

/** reading_daily's (and rollup_grid_registers') column of each register. */
const REGISTER_COLUMNS: Record<RegisterField, string> = {
  activeImport: 'active_import',
  activeImportT1: 'active_import_t1',
  activeImportT2: 'active_import_t2',
  activeImportT3: 'active_import_t3',
  activeImportT4: 'active_import_t4',
  activeExport: 'active_export',
  reactiveImport: 'reactive_import',
  reactiveExport: 'reactive_export',
};

/** Every register of row `alias` (`sum` of them over rows), in kWh (kvarh), named as the contracts name them. */
const registersOf = (alias: string, sum = false) =>
  sql.join(
    REGISTER_FIELDS.map((f) => {
      const column = sql.raw(`${alias}.${REGISTER_COLUMNS[f]}`);
      return sql`${kilo(sum ? sql`sum(${column})` : column)} as ${sql.identifier(f)}`;
    }),
    sql`, `,
  );

const direction = (page: PageRequest, byDefault: 'asc' | 'desc') =>
  page.sortOrder === 'ascend' ? 'asc' : page.sortOrder === 'descend' ? 'desc' : byDefault;
const offsetOf = (page: PageRequest) => (page.curPage - 1) * page.pageSize;

/*
 * Cumulative energy: each meter's registers at a date, a page of meters at a time in serial order, each
 * meter's frozen row found by one backward probe of reading_daily's key (the date's, or the latest
 * before it). The summary adds up whole grid nodes from rollup_grid_registers.
 */

async function cumulativeRows(
  db: Db,
  request: AnalyticsRequest,
  page: PageRequest,
): Promise<Page<CumulativeEnergyRow>> {
  const day = request.period.end;
  const dir = sql.raw(direction(page, 'asc'));
  const list = await rowsOf<CumulativeEnergyRow>(
    db,
    sql`select x.id as "meterId", x.dev_addr as "devAddr", x.grid_id as "gridId", x.dcu_id as "dcuId",
        to_char(f.day, 'YYYY-MM-DD') as "readingDay", ${registersOf('f')}, ${NEIGHBOURS}
      from (${metersIn(request)} order by lower(m.dev_addr) ${dir}, m.id ${dir}
            limit ${page.pageSize} offset ${offsetOf(page)}) x
      left join lateral (select * from reading_daily d where d.meter_id = x.id and d.day <= ${day}
        order by d.day desc limit 1) f on true
      order by lower(x.dev_addr) ${dir}, x.id ${dir}`,
  );
  return { list, total: await countMeters(db, request), curPage: page.curPage, pageSize: page.pageSize };
}

type RegisterSums = { metersAtDate: number } & Record<RegisterField, number | null>;

async function cumulativeSummary(db: Db, request: AnalyticsRequest) {
  const day = request.period.end;
  const [sums] = await rowsOf<RegisterSums>(
    db,
    wholeNodes(request)
      ? sql`select coalesce(sum(g.meters), 0)::int as "metersAtDate", ${registersOf('g', true)}
          from rollup_grid_registers g where g.day = ${day} and ${inPlace(request.place, sql.raw('g.grid_id'))}`
      : sql`select count(*)::int as "metersAtDate", ${registersOf('d', true)}
          from (${metersIn(request)}) m join reading_daily d on d.meter_id = m.id and d.day = ${day}`,
  );
  const at = sums as RegisterSums;
  return {
    figures: {
      meters: await countMeters(db, request),
      metersAtDate: at.metersAtDate,
      activeImport: at.activeImport,
      activeExport: at.activeExport,
      reactiveImport: at.reactiveImport,
      reactiveExport: at.reactiveExport,
    },
    points: TARIFF_RATES.map((rate, i) => ({
      rate,
      activeImport: at[`activeImportT${i + 1}` as RegisterField],
    })),
  };
}

/** One meter's frozen registers day by day. */
async function registerDays(db: Db, request: AnalyticsRequest, page: PageRequest): Promise<Page<RegisterDayRow>> {
  const { start, end } = request.period;
  const where = sql`d.meter_id = ${request.place.meterId} and d.day between ${start} and ${end}`;
  const list = await rowsOf<RegisterDayRow>(
    db,
    sql`select to_char(d.day, 'YYYY-MM-DD') as day, d.meter_id as "meterId", ${registersOf('d')},
        ${kilo(sql`d.max_demand`)} as "maxDemand"
      from reading_daily d where ${where}
      order by d.day ${sql.raw(direction(page, 'desc'))} limit ${page.pageSize} offset ${offsetOf(page)}`,
  );
  const [count] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from reading_daily d where ${where}`);
  return { list, total: count?.n ?? 0, curPage: page.curPage, pageSize: page.pageSize };
}

async function registerDaysSummary(db: Db, request: AnalyticsRequest) {
  const { start, end } = request.period;
  const meterId = request.place.meterId as string;
  const points = await rowsOf<Record<string, number | string | null>>(
    db,
    sql`select to_char(s.day, 'YYYY-MM-DD') as day, ${registersOf('d')}
      from generate_series(${start}::date, ${end}::date, interval '1 day') s(day)
      left join reading_daily d on d.meter_id = ${meterId} and d.day = s.day::date order by s.day`,
  );
  const [figures] = await rowsOf<{
    devAddr: string;
    lastDay: string | null;
    activeImport: number | null;
    activeExport: number | null;
    daysKnown: number;
  }>(
    db,
    sql`select m.dev_addr as "devAddr", to_char(l.day, 'YYYY-MM-DD') as "lastDay",
        ${kilo(sql`l.active_import`)} as "activeImport", ${kilo(sql`l.active_export`)} as "activeExport",
        (select count(*)::int from reading_daily d where d.meter_id = m.id and d.day between ${start} and ${end}) as "daysKnown"
      from meter m left join lateral (select * from reading_daily d where d.meter_id = m.id
        and d.day between ${start} and ${end} order by d.day desc limit 1) l on true
      where m.id = ${meterId}`,
  );
  return {
    figures: figures as NonNullable<typeof figures>,
    points: points.map((p) => ({
      day: p.day as string,
      activeImportT1: p.activeImportT1 as number | null,
      activeImportT2: p.activeImportT2 as number | null,
      activeImportT3: p.activeImportT3 as number | null,
      activeImportT4: p.activeImportT4 as number | null,
      activeImport: p.activeImport as number | null,
    })),
  };
}

/*
 * Energy gain. A meter's gain over the period is its active import frozen when the period closes
 * (reading_daily of its last day) less the one frozen when it opens (of the day before its first). A
 * meter fitted at a POC during the period starts from the total its replacement recorded, and one
 * removed ends at its recorded total, so a replacement splits the period between the two meters
 * instead of losing it. A register that went down (a reset, a meter swapped without a replacement)
 * gives a negative gain, shown as it is; sums add only the gains that are not negative.
 */

/** The meters of `meters` (with id, dev_addr, grid_id, dcu_id) with their registers at both ends of the period. */
function withEnds(meters: SQL, period: Period): SQL {
  const from = `${period.start}T00:00:00Z`;
  const to = `${addUtcDays(period.end, 1)}T00:00:00Z`;
  const replaced = sql`poc_replacement r where r.change_time >= ${from}::timestamptz and r.change_time < ${to}::timestamptz`;
  return sql`with fitted as (select distinct on (r.new_meter_id) r.new_meter_id as meter_id, r.new_active_total as total
        from ${replaced} and r.new_active_total is not null order by r.new_meter_id, r.change_time),
      removed as (select distinct on (r.old_meter_id) r.old_meter_id as meter_id, r.old_active_total as total
        from ${replaced} and r.old_active_total is not null order by r.old_meter_id, r.change_time desc)
    select x.*, s.active_import_t1 as s_t1, s.active_import_t2 as s_t2, s.active_import_t3 as s_t3,
      s.active_import_t4 as s_t4, s.active_export as s_export,
      e.active_import_t1 as e_t1, e.active_import_t2 as e_t2, e.active_import_t3 as e_t3,
      e.active_import_t4 as e_t4, e.active_export as e_export,
      f.meter_id is not null or rm.meter_id is not null as replaced,
      coalesce(round(f.total * 1000)::bigint, s.active_import) as start_import,
      coalesce(round(rm.total * 1000)::bigint, e.active_import) as end_import
    from (${meters}) x
    left join reading_daily s on s.meter_id = x.id and s.day = ${addUtcDays(period.start, -1)}
    left join reading_daily e on e.meter_id = x.id and e.day = ${period.end}
    left join fitted f on f.meter_id = x.id
    left join removed rm on rm.meter_id = x.id`;
}

/** Gains by tariff rate and of the export register: from the registers alone, so none for a replaced meter. */
const rateGain = (name: string, column: string) =>
  sql`${kilo(sql.raw(`case when not x.replaced then x.e_${column} - x.s_${column} end`))} as ${sql.identifier(name)}`;

/** A row of the meter view, from a row of `withEnds` named `x`. */
const GAIN_ROW = sql`x.id as "meterId", x.dev_addr as "devAddr", x.grid_id as "gridId", x.dcu_id as "dcuId",
  ${kilo(sql`x.start_import`)} as "startImport", ${kilo(sql`x.end_import`)} as "endImport",
  ${kilo(sql`x.end_import - x.start_import`)} as gain,
  ${rateGain('gainT1', 't1')}, ${rateGain('gainT2', 't2')}, ${rateGain('gainT3', 't3')}, ${rateGain('gainT4', 't4')},
  ${rateGain('exportGain', 'export')}`;

/** What the ranking keeps of a meter: gains in Wh, null when either end is unknown. */
interface Ranked {
  id: string;
  devAddr: string;
  gridId: string;
  gain: number | null;
}

/**
 * Recent results, each a promise shared by whoever asks for the same key meanwhile: the page, its
 * summary and the next pages of one request read one computation.
 */
class Recent<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    this.entries.delete(key);
    if (hit && now - hit.at < this.ttlMs) {
      this.entries.set(key, hit);
      return hit.value;
    }
    const entry = { at: now, value: compute() };
    this.entries.set(key, entry);
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.max) break;
      this.entries.delete(oldest);
    }
    return entry.value;
  }
}

/**
 * How long a ranking is reused: the rollups it sits beside are folded every minute, and frozen
 * registers of past days rarely change, so a minute-old ranking shows what a fresh one would.
 */
const RANKING_TTL_MS = 60_000;
/** Rankings kept: one is a few MB at 100,000 meters. */
const RANKINGS_KEPT = 4;

export class EnergyGainQueries {
  private readonly rankings = new Recent<Ranked[]>(RANKING_TTL_MS, RANKINGS_KEPT);

  constructor(private readonly db: Db) {}

  /**
   * Every meter of the place by gain (largest first, or smallest), those without one last in serial
   * order: one query over both days' frozen registers, kept a while (`Recent`).
   */
  ranking(request: AnalyticsRequest, order: 'asc' | 'desc' = 'desc'): Promise<Ranked[]> {
    const key = JSON.stringify([request.place, request.period, order]);
    return this.rankings.get(key, async () => {
      const dir = sql.raw(order);
      const rows = await rowsOf<Ranked>(
        this.db,
        sql`select g.id, g.dev_addr as "devAddr", g.grid_id as "gridId", (g.end_import - g.start_import)::float8 as gain
          from (${withEnds(metersIn(request), request.period)}) g
          order by g.end_import - g.start_import ${dir} nulls last, lower(g.dev_addr), g.id`,
      );
      // Grid ids repeat hundreds of times: one string each keeps a ranking small.
      const grids = new Map<string, string>();
      for (const row of rows) {
        const known = grids.get(row.gridId);
        if (known) row.gridId = known;
        else grids.set(row.gridId, row.gridId);
      }
      return rows;
    });
  }

  /** The rows of `ids`, in that order. */
  private async rowsOf(ids: readonly string[], period: Period): Promise<EnergyGainRow[]> {
    if (ids.length === 0) return [];
    const meters = sql`select m.id, m.dev_addr, m.grid_id, m.dcu_id from meter m where m.id in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`;
    const rows = await rowsOf<EnergyGainRow>(
      this.db,
      sql`select ${GAIN_ROW}, ${NEIGHBOURS} from (${withEnds(meters, period)}) x`,
    );
    const byId = new Map(rows.map((row) => [row.meterId, row]));
    return ids.map((id) => byId.get(id)).filter((row): row is EnergyGainRow => row !== undefined);
  }

  async meterRows(request: AnalyticsRequest, page: PageRequest): Promise<Page<EnergyGainRow>> {
    const paging = { curPage: page.curPage, pageSize: page.pageSize };
    if (page.sortField === 'devAddr') {
      // In serial order a page needs its own meters' registers only.
      const dir = sql.raw(direction(page, 'asc'));
      const meters = sql`${metersIn(request)} order by lower(m.dev_addr) ${dir}, m.id ${dir}
        limit ${page.pageSize} offset ${offsetOf(page)}`;
      const ids = (await rowsOf<{ id: string }>(this.db, meters)).map((row) => row.id);
      return { list: await this.rowsOf(ids, request.period), total: await countMeters(this.db, request), ...paging };
    }
    const ranked = await this.ranking(request, direction(page, 'desc'));
    const ids = ranked.slice(offsetOf(page), offsetOf(page) + page.pageSize).map((row) => row.id);
    return { list: await this.rowsOf(ids, request.period), total: ranked.length, ...paging };
  }

  async summary(request: AnalyticsRequest, points: (ranked: Ranked[]) => Promise<{ name: string; gain: number }[]>) {
    const ranked = await this.ranking(request);
    return { figures: figuresOf(ranked), points: await points(ranked) };
  }

  /** The largest gains of the meters, as the chart's bars. */
  async meterPoints(ranked: Ranked[]) {
    return ranked
      .filter((row) => row.gain !== null && row.gain > 0)
      .slice(0, GAIN_CHART_BARS)
      .map((row) => ({ name: row.devAddr, gain: kwh(row.gain as number) }));
  }

  /**
   * The grid-node view: the nodes listed (see `listedNodes`) each with its subtree's meters and gains,
   * added up from the ranking.
   */
  async nodes(request: AnalyticsRequest): Promise<EnergyGainNodeRow[]> {
    const { listed, parent, owner } = await this.listedNodes(request);
    const rows = new Map<string, Tally & { gridName: string }>();
    for (const node of listed) rows.set(node.id, { gridName: node.name, ...emptyTally() });
    for (const meter of await this.ranking(request)) {
      const node = owner(meter.gridId);
      const row = node ? rows.get(node) : undefined;
      if (row) tally(row, meter.gain);
    }
    return [...rows]
      .filter(([gridId, row]) => gridId !== parent || row.meters > 0)
      .map(([gridId, row]) => ({
        gridId,
        gridName: row.gridName,
        meters: row.meters,
        metersWithGain: row.metersWithGain,
        gain: row.metersWithGain ? kwh(row.gain) : null,
        metersDecreased: row.metersDecreased,
      }));
  }

  /**
   * The nodes the grid view lists: the chosen node's children (the caller's scope roots when none is
   * chosen, and the tree's top nodes for a caller reaching everything), or the node itself when it has
   * none. A parent whose children are listed is listed too when it holds meters of its own (`parent`),
   * for those. `owner` names the listed node a meter's node counts under.
   */
  private async listedNodes(request: AnalyticsRequest) {
    const { roots } = request.place;
    const nodes = await rowsOf<{ id: string; parentId: string; name: string }>(
      this.db,
      sql`select g.id, g.parent_id as "parentId", g.grid_name as name from power_grid g
        where ${inPlace(request.place, sql.raw('g.id'))}`,
    );
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const starts = roots ?? nodes.filter((n) => n.parentId === ROOT_PARENT_ID).map((n) => n.id);
    const single = starts.length === 1 ? (starts[0] as string) : null;
    const children = single ? nodes.filter((n) => n.parentId === single) : [];
    const parent = children.length ? single : null;
    const listed = (parent ? [parent, ...children.map((n) => n.id)] : starts)
      .map((id) => byId.get(id))
      .filter((n): n is NonNullable<typeof n> => n !== undefined)
      .map((n) => ({ id: n.id, name: n.name }));
    const ids = new Set(listed.map((n) => n.id));
    const owners = new Map<string, string | null>();
    const owner = (gridId: string): string | null => {
      const known = owners.get(gridId);
      if (known !== undefined) return known;
      const node = byId.get(gridId);
      const found = ids.has(gridId) ? gridId : node ? owner(node.parentId) : null;
      owners.set(gridId, found);
      return found;
    };
    return { listed, parent, owner };
  }

  async nodeRows(request: AnalyticsRequest, page: PageRequest): Promise<Page<EnergyGainNodeRow>> {
    const nodes = await this.nodes(request);
    const dir = direction(page, page.sortField === 'gridName' ? 'asc' : 'desc') === 'asc' ? 1 : -1;
    const key = (node: EnergyGainNodeRow) => (page.sortField === 'gridName' ? node.gridName : node.gain);
    nodes.sort((a, b) => {
      const x = key(a);
      const y = key(b);
      if (x === y) return a.gridName.localeCompare(b.gridName);
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * dir;
    });
    const list = nodes.slice(offsetOf(page), offsetOf(page) + page.pageSize);
    return { list, total: nodes.length, curPage: page.curPage, pageSize: page.pageSize };
  }

  async nodePoints(request: AnalyticsRequest) {
    return (await this.nodes(request))
      .filter((node) => node.gain !== null && node.gain > 0)
      .sort((a, b) => (b.gain as number) - (a.gain as number))
      .slice(0, GAIN_CHART_BARS)
      .map((node) => ({ name: node.gridName, gain: node.gain as number }));
  }
}

const kwh = (wh: number) => Math.round(wh) / 1000;

interface Tally {
  meters: number;
  metersWithGain: number;
  /** Wh, of the gains that are not negative. */
  gain: number;
  metersDecreased: number;
}
const emptyTally = (): Tally => ({ meters: 0, metersWithGain: 0, gain: 0, metersDecreased: 0 });
function tally(into: Tally, gain: number | null): void {
  into.meters++;
  if (gain === null) return;
  into.metersWithGain++;
  if (gain < 0) into.metersDecreased++;
  else into.gain += gain;
}

function figuresOf(ranked: readonly Ranked[]) {
  const sum = emptyTally();
  for (const row of ranked) tally(sum, row.gain);
  return {
    meters: sum.meters,
    metersWithGain: sum.metersWithGain,
    gain: sum.metersWithGain ? kwh(sum.gain) : null,
    metersDecreased: sum.metersDecreased,
  };
}

/** /dataAnalytic/cumulativeEnergy with its detail, and /dataAnalytic/energyGain (its meter and grid-node views). */
export function registerEnergyAnalytics(app: FastifyInstance, db: Db): void {
  registerAnalytics(app, db, cumulativeEnergyAnalytics, cumulativeEnergyApi, {
    rows: (request, page) => cumulativeRows(db, request, page),
    summary: (request) => cumulativeSummary(db, request),
  });
  registerAnalytics(app, db, cumulativeEnergyDetailAnalytics, cumulativeEnergyDetailApi, {
    rows: (request, page) => registerDays(db, request, page),
    summary: (request) => registerDaysSummary(db, request),
  });
  const gains = new EnergyGainQueries(db);
  registerAnalytics(app, db, energyGainAnalytics, energyGainApi, {
    rows: (request, page) => gains.meterRows(request, page),
    summary: (request) => gains.summary(request, (ranked) => gains.meterPoints(ranked)),
  });
  registerAnalytics(app, db, energyGainGridAnalytics, energyGainGridApi, {
    rows: (request, page) => gains.nodeRows(request, page),
    summary: (request) => gains.summary(request, () => gains.nodePoints(request)),
  });
}
