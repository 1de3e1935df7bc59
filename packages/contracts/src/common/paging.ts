import { z } from 'zod';

export const MAX_PAGE_SIZE = 500;

/** Every list query extends this; spec §7 lists take `{pageSize, curPage, …filters}`. */
export const PageQuerySchema = z.strictObject({
  pageSize: z.number().int().min(1, 'outOfRange').max(MAX_PAGE_SIZE, 'outOfRange').default(10),
  curPage: z.number().int().min(1, 'outOfRange').default(1),
  sortField: z.string().max(64).optional().describe('A column key of the list; others are refused'),
  sortOrder: z.enum(['ascend', 'descend']).optional(),
});
export type PageQuery = z.infer<typeof PageQuerySchema>;

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    list: z.array(item),
    total: z.number().int(),
    curPage: z.number().int(),
    pageSize: z.number().int(),
  });
}

export interface Page<T> {
  list: T[];
  total: number;
  curPage: number;
  pageSize: number;
}
