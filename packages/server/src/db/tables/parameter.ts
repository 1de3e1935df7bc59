import type { TouCalendar } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  integer,
  jsonb,
  numeric,
  pgTable,
  smallint,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { createdAt, id, ref, updatedAt } from './columns';

/*
 * The catalogues of parameter setting the head-end reads: which COSEM objects exist and how their
 * values read (OBIS items), and what each code of a meter's event log means (event definitions).
 * Both are shared by every user (no grid scope). Seeded rows have stable ids, so a restart adds
 * what is missing and never overwrites an operator's edit.
 */

export const obisItem = pgTable(
  'obis_item',
  {
    id: id(),
    /** `A-B:C.D.E.F`, as the spec writes it. */
    obis: varchar({ length: 32 }).notNull(),
    classId: smallint().notNull(),
    attribute: smallint().notNull(),
    description: varchar({ length: 200 }).notNull(),
    /** DLMS unit code (255: none). */
    unit: smallint().notNull().default(255),
    /** Power of ten: the value shown is raw × 10^scaler. */
    scaler: smallint().notNull().default(0),
    cgName: varchar({ length: 50 }).notNull(),
    channelOption: boolean().notNull().default(false),
    thresholdOption: boolean().notNull().default(false),
    settingChannel: boolean().notNull().default(false),
    displayOption: boolean().notNull().default(false),
    readInstantly: boolean().notNull().default(false),
    readPeriodically: boolean().notNull().default(false),
    rateDataType: varchar({ length: 50 }).notNull().default(''),
    commonConfig: boolean().notNull().default(false),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('obis_item_obis_uq').on(sql`lower(${t.obis})`),
    uniqueIndex('obis_item_cg_name_uq').on(sql`lower(${t.cgName})`),
  ],
);

export const eventDefinition = pgTable(
  'event_definition',
  {
    id: id(),
    code: integer().notNull(),
    name: varchar({ length: 100 }).notNull(),
    description: varchar({ length: 500 }).notNull().default(''),
    /** regular, medium or severe. */
    level: varchar({ length: 16 }).notNull(),
    /** The higher-level event this one rolls up into. */
    parentId: ref().references((): AnyPgColumn => eventDefinition.id),
    analyticalWay: varchar({ length: 200 }).notNull().default(''),
    cumulativeNumber: integer().notNull().default(0),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('event_definition_code_uq').on(t.code),
    uniqueIndex('event_definition_name_uq').on(sql`lower(${t.name})`),
  ],
);

const price = () => numeric({ precision: 12, scale: 4, mode: 'number' }).notNull().default(0);

/**
 * A TOU tariff (tariff management): its activity calendar as the contract's `TouCalendar` (checked by
 * `calendarIssues` before it is stored) and a price per rate for billing. Shared by every user; meters
 * and POCs name theirs (`tariff_id`). `revision` counts the edits: a push records the revision it sent,
 * so a meter that took an older one is not taken for synchronized.
 */
export const tariff = pgTable(
  'tariff',
  {
    id: id(),
    tariffName: varchar({ length: 100 }).notNull(),
    remark: varchar({ length: 500 }).notNull().default(''),
    price1: price(),
    price2: price(),
    price3: price(),
    price4: price(),
    calendar: jsonb().$type<TouCalendar>().notNull(),
    revision: integer().notNull().default(1),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [uniqueIndex('tariff_name_uq').on(sql`lower(${t.tariffName})`)],
);
