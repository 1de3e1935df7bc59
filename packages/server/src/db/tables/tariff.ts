import type { TouCalendar } from '@meterdesk/contracts';
import { index, integer, jsonb, pgTable, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { meter, poc } from './archive';
import { createdAt, id, ref } from './columns';
import { tariff } from './parameter';

const time = () => timestamp({ withTimezone: true, mode: 'date' });

/**
 * A meter's or POC's tariff text from before tariffs were records that names no tariff (by name or id).
 * The migration put every text here; at each start (and whenever a tariff is saved) the texts that now
 * name a tariff are mapped to it and leave. What stays is counted in the start-up log for an operator.
 */
export const tariffUnmapped = pgTable(
  'tariff_unmapped',
  {
    id: id(),
    meterId: ref().references(() => meter.id, { onDelete: 'cascade' }),
    pocId: ref().references(() => poc.id, { onDelete: 'cascade' }),
    text: varchar({ length: 50 }).notNull(),
    createTime: createdAt(),
  },
  (t) => [index('tariff_unmapped_text_idx').on(t.text)],
);

/** A tariff sent to meters (`/tariffitem/createtariffplan`): what was sent, so a re-send sends the same. */
export const tariffPush = pgTable(
  'tariff_push',
  {
    id: id(),
    /** Null once the tariff is deleted; the push keeps its name. */
    tariffId: ref().references(() => tariff.id, { onDelete: 'set null' }),
    tariffName: varchar({ length: 100 }).notNull(),
    /** The tariff's revision and calendar the commands carry (a re-send sends the same). */
    revision: integer().notNull(),
    calendar: jsonb().$type<TouCalendar>().notNull(),
    activationTime: time().notNull(),
    createdBy: varchar({ length: 50 }).notNull(),
    createTime: createdAt(),
  },
  (t) => [index('tariff_push_tariff_idx').on(t.tariffId, t.createTime), index('tariff_push_time_idx').on(t.createTime)],
);

/** One meter of a push: its latest send (the plan and ledger command) and what it answered. */
export const tariffEvent = pgTable(
  'tariff_event',
  {
    id: id(),
    pushId: ref()
      .notNull()
      .references(() => tariffPush.id, { onDelete: 'cascade' }),
    meterId: ref()
      .notNull()
      .references(() => meter.id, { onDelete: 'cascade' }),
    devAddr: varchar({ length: 50 }).notNull(),
    planId: ref().notNull(),
    commandId: ref().notNull(),
    attempts: integer().notNull().default(1),
    /** waiting or done. */
    state: varchar({ length: 8 }).notNull().default('waiting'),
    resultCode: varchar({ length: 2 }),
    sendTime: time().notNull().defaultNow(),
    answerTime: time(),
  },
  (t) => [
    uniqueIndex('tariff_event_push_meter_uq').on(t.pushId, t.meterId),
    index('tariff_event_command_idx').on(t.commandId),
    index('tariff_event_meter_idx').on(t.meterId),
  ],
);

/** The tariff a meter last took (answered 00 to a push): its revision, the push and when it activates. */
export const meterTariff = pgTable('meter_tariff', {
  meterId: ref()
    .primaryKey()
    .references(() => meter.id, { onDelete: 'cascade' }),
  tariffId: ref().references(() => tariff.id, { onDelete: 'set null' }),
  tariffName: varchar({ length: 100 }).notNull(),
  revision: integer().notNull(),
  pushId: ref().references(() => tariffPush.id, { onDelete: 'set null' }),
  activationTime: time().notNull(),
  takenTime: time().notNull(),
});
