import { boolean, integer, jsonb, pgTable, smallint, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { id, updatedAt } from './columns';

/** Settings that exist once (SMTP, command time-out): a key and a JSON value. */
export const sysParameter = pgTable('sys_parameter', {
  key: varchar({ length: 64 }).primaryKey(),
  value: jsonb().notNull(),
  updateTime: updatedAt(),
});

export const sysDataItem = pgTable(
  'sys_data_item',
  {
    id: id(),
    itemName: varchar({ length: 100 }).notNull(),
    itemNameEn: varchar({ length: 100 }).notNull(),
    obis: varchar({ length: 32 }).notNull(),
    classId: smallint().notNull(),
    enabled: boolean().notNull().default(true),
    orderNum: integer().notNull().default(0),
  },
  (t) => [uniqueIndex('sys_data_item_obis_uq').on(t.obis)],
);

export const sysTariffConfig = pgTable('sys_tariff_config', {
  id: id(),
  tariffValidCount: integer().notNull(),
  tariffDays: integer().notNull(),
  tariffWeeks: integer().notNull(),
  tariffSeasons: integer().notNull(),
  tariffSpecialDays: integer().notNull(),
  updateTime: updatedAt(),
});
