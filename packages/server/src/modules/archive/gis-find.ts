import {
  ARCHIVE_COUNT_CAP,
  type GisFound,
  type GisKind,
  type GisLocate,
  type GisLocated,
  type GisSearch,
  type GisSearchAnswer,
  type GisUnplaced,
  gisFindApi,
  MAX_FOUND_PER_KIND,
  type Page,
} from '@meterdesk/contracts';
import { and, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { inSubtree } from '../../db/list';
import { likeContains, rowsOf } from '../../db/rows';
import { commModule, consumer, dcu, meter, poc } from '../../db/schema';
import { notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { registerOperation } from '../../http/operation';
import { GRID_TREE, gridScope, scopeOf } from '../../rbac/scope';

/** A position held whole: both coordinates, or none. */
const placed = (alias: string) => sql.raw(`(${alias}.latitude is not null and ${alias}.longitude is not null)`);

/**
 * Meters as found records: at their own position, else approximately at their consumer's (through
 * the POC they measure), else at their DCU's, else nowhere (placement null).
 */
const meterFound = (where: SQL, tail: SQL = sql``) =>
  sql`select m.id, 'meter' as kind, m.dev_addr as label, '' as name, m.status::int as status,
      case when ${placed('m')} then 'own' when ${placed('c')} then 'consumer' when ${placed('d')} then 'dcu' end as placement,
      case when ${placed('m')} then m.latitude when ${placed('c')} then c.latitude when ${placed('d')} then d.latitude end as lat,
      case when ${placed('m')} then m.longitude when ${placed('c')} then c.longitude when ${placed('d')} then d.longitude end as lng
    from ${meter} m
    left join ${poc} p on p.meter_id = m.id
    left join ${consumer} c on c.id = p.consumer_id
    left join ${dcu} d on d.id = m.dcu_id
    where ${where} ${tail}`;

const consumerFound = (where: SQL, tail: SQL = sql``) =>
  sql`select c.id, 'consumer' as kind, c.consumer_code as label, c.consumer_name as name,
      case when c.protected then 1 else 0 end as status,
      case when ${placed('c')} then 'own' end as placement, c.latitude as lat, c.longitude as lng
    from ${consumer} c where ${where} ${tail}`;

const dcuFound = (where: SQL, tail: SQL = sql``) =>
  sql`select d.id, 'dcu' as kind, d.dcu_no as label, d.dcu_name as name, 0 as status,
      case when ${placed('d')} then 'own' end as placement, d.latitude as lat, d.longitude as lng
    from ${dcu} d where ${where} ${tail}`;

interface Kind {
  found: typeof meterFound;
  /** Its columns as the query above spells them: id, business key, searched ones, grid node. */
  id: SQL;
  key: SQL;
  searched: SQL[];
  grid: SQL;
}

const columnsOf = (alias: string, key: string, ...names: string[]) => ({
  id: sql.raw(`${alias}.id`),
  key: sql.raw(`${alias}.${key}`),
  searched: [key, ...names].map((name) => sql.raw(`${alias}.${name}`)),
  grid: sql.raw(`${alias}.grid_id`),
});

const KINDS: Record<GisKind, Kind> = {
  meter: { found: meterFound, ...columnsOf('m', 'dev_addr') },
  consumer: { found: consumerFound, ...columnsOf('c', 'consumer_code', 'consumer_name') },
  dcu: { found: dcuFound, ...columnsOf('d', 'dcu_no', 'dcu_name') },
};

interface FoundRow extends Omit<GisFound, 'lat' | 'lng'> {
  lat: number | string | null;
  lng: number | string | null;
}

const toFound = (row: FoundRow): GisFound => ({
  ...row,
  status: Number(row.status),
  lat: row.lat === null ? null : Number(row.lat),
  lng: row.lng === null ? null : Number(row.lng),
});

/**
 * Finding records on the map: by number or name, from a detail page, and the meters without a
 * position of their own. Everything within the caller's grid scope: a record outside it is never
 * found, and locating one answers 404 as if it did not exist.
 */
export class GisFinder {
  constructor(private readonly db: Db) {}

  private async found(query: SQL): Promise<GisFound[]> {
    return (await rowsOf<FoundRow>(this.db, query)).map(toFound);
  }

  /**
   * Per kind, an exact match of the business key first (one probe of its unique index), then those
   * whose key or name holds the keyword, in key order (the trigram indexes), one more than shown to
   * tell whether there are more.
   */
  async search(q: GisSearch, session: SessionContext): Promise<GisSearchAnswer> {
    const scope = await scopeOf(this.db, session);
    const keyword = q.keyword.toLowerCase();
    let more = false;
    const list: GisFound[] = [];
    for (const kind of q.kinds) {
      const { found, key, searched, grid } = KINDS[kind];
      const inScope = gridScope(scope, grid) ?? sql`true`;
      const exact = await this.found(found(sql`lower(${key}) = ${keyword} and ${inScope}`));
      const matches = await this.found(
        found(
          sql`(${or(...searched.map((column) => sql`${column} ilike ${likeContains(q.keyword)}`))})
            and lower(${key}) <> ${keyword} and ${inScope}`,
          sql`order by lower(${key}) limit ${MAX_FOUND_PER_KIND + 1 - exact.length}`,
        ),
      );
      more ||= exact.length + matches.length > MAX_FOUND_PER_KIND;
      list.push(...exact, ...matches.slice(0, MAX_FOUND_PER_KIND - exact.length));
    }
    // Exact matches lead whatever their kind: a full serial typed finds its meter first.
    const exactFirst = (f: GisFound) => (f.label.toLowerCase() === keyword ? 0 : 1);
    return { list: list.sort((a, b) => exactFirst(a) - exactFirst(b)), more };
  }

  /** What the map shows for a record: itself, or a POC's or module's meter (a POC without one: its consumer). */
  async locate(q: GisLocate, session: SessionContext): Promise<GisLocated> {
    const scope = await scopeOf(this.db, session);
    const one = async (query: SQL) => (await this.found(query))[0] ?? null;
    const meterOf = (id: string | null) => (id ? one(meterFound(sql`m.id = ${id}`)) : Promise.resolve(null));
    switch (q.kind) {
      case 'meter':
      case 'consumer':
      case 'dcu': {
        const { found, id, grid } = KINDS[q.kind];
        const target = await one(found(sql`${id} = ${q.id} and ${gridScope(scope, grid) ?? sql`true`}`));
        if (!target) throw notFound();
        return { label: target.label, target };
      }
      case 'poc': {
        const [row] = await rowsOf<{ label: string; meter_id: string | null; consumer_id: string | null }>(
          this.db,
          sql`select poc_no as label, meter_id, consumer_id from ${poc}
            where id = ${q.id} and ${gridScope(scope, poc.gridId) ?? sql`true`}`,
        );
        if (!row) throw notFound();
        const target =
          (await meterOf(row.meter_id)) ??
          (row.consumer_id ? await one(consumerFound(sql`c.id = ${row.consumer_id}`)) : null);
        return { label: row.label, target };
      }
      case 'module': {
        const [row] = await rowsOf<{ label: string; meter_id: string | null }>(
          this.db,
          sql`select mo.module_no as label, (select m.id from ${meter} m where m.module_id = mo.id) as meter_id
            from ${commModule} mo where mo.id = ${q.id} and ${gridScope(scope, sql`mo.grid_id`) ?? sql`true`}`,
        );
        if (!row) throw notFound();
        return { label: row.label, target: await meterOf(row.meter_id) };
      }
    }
  }

  /** Meters with no coordinates of their own under the map's filters, by serial (meter_unplaced_idx). */
  async unplaced(q: GisUnplaced, session: SessionContext): Promise<Page<GisFound>> {
    const scope = await scopeOf(this.db, session);
    const where = and(
      sql`(m.latitude is null or m.longitude is null)`,
      gridScope(scope, sql`m.grid_id`),
      q.gridId ? inSubtree(sql`m.grid_id`, GRID_TREE, q.gridId) : undefined,
      q.meterStatus?.length ? inArray(sql`m.status`, q.meterStatus) : undefined,
    ) as SQL;
    const [counted] = await rowsOf<{ n: number }>(
      this.db,
      sql`select count(*)::int as n from (select 1 from ${meter} m where ${where} limit ${ARCHIVE_COUNT_CAP + 1}) capped`,
    );
    const total = Number(counted?.n ?? 0);
    const list = await this.found(
      meterFound(where, sql`order by m.dev_addr, m.id limit ${q.pageSize} offset ${(q.curPage - 1) * q.pageSize}`),
    );
    return {
      list,
      total: Math.min(total, ARCHIVE_COUNT_CAP),
      totalCapped: total > ARCHIVE_COUNT_CAP,
      curPage: q.curPage,
      pageSize: q.pageSize,
    };
  }
}

export function registerGisFindRoutes(app: FastifyInstance, finder: GisFinder): void {
  registerOperation(app, gisFindApi.search, ({ body, session }) => finder.search(body, session));
  registerOperation(app, gisFindApi.locate, ({ body, session }) => finder.locate(body, session));
  registerOperation(app, gisFindApi.unplaced, ({ body, session }) => finder.unplaced(body, session));
}
