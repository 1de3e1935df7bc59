import {
  ARCHIVE_COUNT_CAP,
  type Page,
  type TariffAssociated,
  type TariffAssociatedQuerySchema,
} from '@meterdesk/contracts';
import { and, eq, ilike, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { Db } from '../../db/driver';
import { anyRow, countUpTo, likeContains, lookup, qualified } from '../../db/rows';
import { consumer, meter, meterLive, meterTariff, poc, powerGrid, tariff } from '../../db/schema';
import { notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { gridScope, scopeOf } from '../../rbac/scope';

type AssociatedQuery = z.output<typeof TariffAssociatedQuerySchema>;

const isoText = (column: AnyPgColumn) =>
  sql`to_char(${qualified(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** What a meter (by its id) shows of itself: its link and the tariff it last took. */
const meterFacts = (meterId: AnyPgColumn | SQL) => ({
  online: sql<
    boolean | null
  >`(select ${qualified(meterLive.online)} from ${meterLive} where ${qualified(meterLive.meterId)} = ${meterId})`,
  takenTariffName: lookup(meterTariff.tariffName, meterTariff.meterId, meterId),
  takenTime: sql<
    string | null
  >`(select ${isoText(meterTariff.takenTime)} from ${meterTariff} where ${qualified(meterTariff.meterId)} = ${meterId})`,
});

/** Tariff management's Associated: who uses a tariff, within the caller's grid scope. */
export class TariffService {
  constructor(private readonly db: Db) {}

  async associated(q: AssociatedQuery, session: SessionContext): Promise<Page<TariffAssociated>> {
    if (!(await anyRow(this.db, tariff, eq(tariff.id, q.id)))) throw notFound();
    const scope = await scopeOf(this.db, session);
    const page = { limit: q.pageSize, offset: (q.curPage - 1) * q.pageSize };
    if (q.kind === 'meter') {
      const where = and(
        eq(meter.tariffId, q.id),
        gridScope(scope, meter.gridId),
        q.keyword ? ilike(meter.devAddr, likeContains(q.keyword)) : undefined,
      );
      const pocOf = (column: AnyPgColumn) => lookup(column, poc.meterId, meter.id);
      const [rows, total] = await Promise.all([
        this.db
          .select({
            id: meter.id,
            devAddr: meter.devAddr,
            pocNo: pocOf(poc.pocNo),
            consumerName: lookup(consumer.consumerName, consumer.id, pocOf(poc.consumerId)),
            gridName: lookup(powerGrid.gridName, powerGrid.id, meter.gridId),
            ...meterFacts(qualified(meter.id)),
          })
          .from(meter)
          .where(where)
          .orderBy(meter.devAddr, meter.id)
          .limit(page.limit)
          .offset(page.offset),
        countUpTo(this.db, meter, where, ARCHIVE_COUNT_CAP),
      ]);
      return pageOf(
        rows.map((r) => ({ ...r, kind: 'meter' as const, pocNo: r.pocNo ?? '', syncStatus: null })),
        total,
        q,
      );
    }
    const where = and(
      eq(poc.tariffId, q.id),
      gridScope(scope, poc.gridId),
      q.keyword ? ilike(poc.pocNo, likeContains(q.keyword)) : undefined,
    );
    const [rows, total] = await Promise.all([
      this.db
        .select({
          id: poc.id,
          pocNo: poc.pocNo,
          devAddr: lookup(meter.devAddr, meter.id, poc.meterId),
          consumerName: lookup(consumer.consumerName, consumer.id, poc.consumerId),
          gridName: lookup(powerGrid.gridName, powerGrid.id, poc.gridId),
          syncStatus: poc.syncStatus,
          ...meterFacts(qualified(poc.meterId)),
        })
        .from(poc)
        .where(where)
        .orderBy(poc.pocNo, poc.id)
        .limit(page.limit)
        .offset(page.offset),
      countUpTo(this.db, poc, where, ARCHIVE_COUNT_CAP),
    ]);
    return pageOf(
      rows.map((r) => ({
        ...r,
        kind: 'poc' as const,
        devAddr: r.devAddr ?? '',
        syncStatus: r.syncStatus as TariffAssociated['syncStatus'],
      })),
      total,
      q,
    );
  }
}

function pageOf(
  rows: (Omit<TariffAssociated, 'consumerName' | 'gridName'> & {
    consumerName: string | null;
    gridName: string | null;
  })[],
  total: number,
  q: AssociatedQuery,
): Page<TariffAssociated> {
  return {
    list: rows.map((r) => ({ ...r, consumerName: r.consumerName ?? '', gridName: r.gridName ?? '' })),
    total: Math.min(total, ARCHIVE_COUNT_CAP),
    curPage: q.curPage,
    pageSize: q.pageSize,
    ...(total > ARCHIVE_COUNT_CAP ? { totalCapped: true } : {}),
  };
}
