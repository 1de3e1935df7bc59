import { sql } from 'drizzle-orm';
import { index, numeric, pgTable, smallint, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, updatedAt } from './columns';

/**
 * The power grid hierarchy: region → substation → feeder → transformer area (`gridType` 0–3).
 * Every archive record hangs below one node, and a user's data scope is a set of nodes and
 * everything below them (`inSubtree` on the parent index).
 */
export const powerGrid = pgTable(
  'power_grid',
  {
    id: id(),
    gridCode: varchar({ length: 50 }).notNull(),
    gridName: varchar({ length: 50 }).notNull(),
    gridType: smallint().notNull().default(0),
    parentId: varchar({ length: 32 }).notNull(),
    /** A transformer area's rated capacity in kVA. */
    capacity: numeric({ precision: 12, scale: 2, mode: 'number' }),
    /** A transformer area's primary-table POC (nature 3), which line-loss audits compare with its consumers. */
    primaryPocId: ref(),
    remark: varchar({ length: 500 }).notNull().default(''),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('power_grid_code_uq').on(sql`lower(${t.gridCode})`),
    uniqueIndex('power_grid_name_uq').on(t.parentId, sql`lower(${t.gridName})`),
    index('power_grid_parent_idx').on(t.parentId),
  ],
);
