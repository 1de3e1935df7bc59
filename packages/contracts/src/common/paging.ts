import { z } from 'zod';

export const MAX_PAGE_SIZE = 500;

/** Paging of every list; `listQuerySchema` (common/list.ts) adds the filters and the closed `sortField`. */
export const PageQuerySchema = z.strictObject({
  pageSize: z.number().int().min(1, 'outOfRange').max(MAX_PAGE_SIZE, 'outOfRange').default(10),
  curPage: z.number().int().min(1, 'outOfRange').default(1),
});
export type PageQuery = z.infer<typeof PageQuerySchema> & {
  sortField?: string | undefined;
  sortOrder?: 'ascend' | 'descend' | undefined;
};

/**
 * Lists of tables that grow to millions of rows page by cursor as well: `after` is the
 * `nextCursor` of the page before, and the next page is read from an index, whatever its depth.
 */
export const CursorQuerySchema = z.strictObject({
  after: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,400}$/, 'invalidValue')
    .optional()
    .describe('The nextCursor of the previous page (default order only); curPage is then ignored'),
});

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    list: z.array(item),
    total: z.number().int(),
    curPage: z.number().int(),
    pageSize: z.number().int(),
    totalCapped: z
      .boolean()
      .optional()
      .describe('The list holds more rows than `total`: counting stopped there so the answer stays fast'),
    nextCursor: z.string().optional().describe('Pass as `after` for the next page; absent on the last page'),
  });
}

export interface Page<T> {
  list: T[];
  total: number;
  curPage: number;
  pageSize: number;
  totalCapped?: boolean | undefined;
  nextCursor?: string | undefined;
}
