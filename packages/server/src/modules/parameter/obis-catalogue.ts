import type { EventDefinitionItem, EventLevel, ObisItem } from '@meterdesk/contracts';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db, Executor } from '../../db/driver';
import { eventDefinition, obisItem } from '../../db/schema';
import type { ObisLookup } from '../../headend/commands';

export { scaled } from '@meterdesk/contracts';

const OBIS_ITEM = {
  obis: obisItem.obis,
  classId: obisItem.classId,
  attribute: obisItem.attribute,
  unit: obisItem.unit,
  scaler: obisItem.scaler,
  description: obisItem.description,
  cgName: obisItem.cgName,
  readInstantly: obisItem.readInstantly,
  channelOption: obisItem.channelOption,
  settingChannel: obisItem.settingChannel,
};

/** The catalogue items of `codes` by code (read through `db`, a transaction's when given one); a code the catalogue lacks is absent. */
export async function obisItemsByCode(db: Executor, codes: readonly string[]): Promise<Map<string, ObisItem>> {
  const wanted = [...new Set(codes)];
  if (wanted.length === 0) return new Map();
  const rows = await db.select(OBIS_ITEM).from(obisItem).where(inArray(obisItem.obis, wanted));
  return new Map(rows.map((row) => [row.obis, row]));
}

/**
 * What the head-end reads of the OBIS catalogue: which objects a real-time read offers and how each
 * code's value reads (class, attribute, unit, scaler). Read from the table on each call, so an
 * operator's edit applies to the next command. `scaled(item, raw)` (contracts) shows a value.
 */
export class ObisCatalogue implements ObisLookup {
  constructor(private readonly db: Db) {}

  /** The items flagged *read instantly*, in code order: what a real-time read may ask for. */
  readInstantly(): Promise<ObisItem[]> {
    return this.db.select(OBIS_ITEM).from(obisItem).where(eq(obisItem.readInstantly, true)).orderBy(asc(obisItem.obis));
  }

  /** The items of `codes` by code; a code the catalogue lacks is absent from the map. */
  byCodes(codes: readonly string[]): Promise<Map<string, ObisItem>> {
    return obisItemsByCode(this.db, codes);
  }

  /** The codes a load profile captures when a parameter sync names none: the items flagged channel option. */
  async channels(): Promise<string[]> {
    const rows = await this.db
      .select({ obis: obisItem.obis })
      .from(obisItem)
      .where(eq(obisItem.channelOption, true))
      .orderBy(asc(obisItem.obis));
    return rows.map((r) => r.obis);
  }
}

/** The higher-level event of a definition: the same table under another name. */
const parent = alias(eventDefinition, 'parent');

const EVENT_ITEM = {
  code: eventDefinition.code,
  name: eventDefinition.name,
  description: eventDefinition.description,
  level: sql<EventLevel>`${eventDefinition.level}`,
  parentCode: parent.code,
  analyticalWay: eventDefinition.analyticalWay,
  cumulativeNumber: eventDefinition.cumulativeNumber,
};

/** What the head-end reads of the event definitions: the name and level of a device's event code. */
export class EventCatalogue {
  constructor(private readonly db: Db) {}

  private select() {
    return this.db.select(EVENT_ITEM).from(eventDefinition).leftJoin(parent, eq(parent.id, eventDefinition.parentId));
  }

  /** Every definition in code order, each naming its higher-level event by code. */
  all(): Promise<EventDefinitionItem[]> {
    return this.select().orderBy(asc(eventDefinition.code));
  }

  /** The definition of a device's event code, or undefined for a code the catalogue lacks. */
  async byCode(code: number): Promise<EventDefinitionItem | undefined> {
    const [item] = await this.select().where(eq(eventDefinition.code, code));
    return item;
  }
}
