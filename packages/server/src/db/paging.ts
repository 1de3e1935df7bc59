import { type MessageKey, type PageQuery, RESULT } from '@meterdesk/contracts';
import { asc, desc, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { fieldError } from '../http/api-error';

export const pageWindow = (q: Pick<PageQuery, 'pageSize' | 'curPage'>) => ({
  limit: q.pageSize,
  offset: (q.curPage - 1) * q.pageSize,
});

/**
 * The ORDER BY of a list: the requested column when the list declares it sortable (400
 * otherwise, so a client cannot sort by an undeclared column), then `tieBreak` so that
 * pages never overlap.
 */
export function sortBy(
  q: Pick<PageQuery, 'sortField' | 'sortOrder'>,
  sortable: Readonly<Record<string, AnyPgColumn | SQL>>,
  fallback: SQL,
  tieBreak: AnyPgColumn,
): SQL[] {
  if (q.sortField === undefined) return [fallback, asc(tieBreak)];
  const column = sortable[q.sortField];
  if (!column) throw fieldError(RESULT.badRequest, 'sortField', 'invalidValue' satisfies MessageKey);
  return [(q.sortOrder === 'descend' ? desc : asc)(column), asc(tieBreak)];
}

/** A list answer: the page's rows and total, with the paging it was asked for. */
export const pageResult = <R>(q: Pick<PageQuery, 'pageSize' | 'curPage'>, page: { list: R[]; total: number }) => ({
  ...page,
  curPage: q.curPage,
  pageSize: q.pageSize,
});
