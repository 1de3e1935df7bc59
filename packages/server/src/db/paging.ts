import type { PageQuery } from '@meterdesk/contracts';

export const pageWindow = (q: Pick<PageQuery, 'pageSize' | 'curPage'>) => ({
  limit: q.pageSize,
  offset: (q.curPage - 1) * q.pageSize,
});

/** A list answer: the page's rows and total, with the paging it was asked for. */
export const pageResult = <R>(q: Pick<PageQuery, 'pageSize' | 'curPage'>, page: { list: R[]; total: number }) => ({
  ...page,
  curPage: q.curPage,
  pageSize: q.pageSize,
});
