import { index, pgTable, smallint, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns';

/** The power grid hierarchy; the archive issue adds its management page and more columns. */
export const powerGrid = pgTable(
  'power_grid',
  {
    id: id(),
    gridName: varchar({ length: 50 }).notNull(),
    gridType: smallint().notNull().default(0),
    parentId: varchar({ length: 32 }).notNull(),
    remark: varchar({ length: 500 }).notNull().default(''),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [uniqueIndex('power_grid_name_uq').on(t.gridName), index('power_grid_parent_idx').on(t.parentId)],
);
