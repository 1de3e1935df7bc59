import {
  type EventDefinition,
  type EventDefinitionCreate,
  eventDefinitionApi,
  eventDefinitionEntity,
  RESULT,
} from '@meterdesk/contracts';
import { eq, notInArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/driver';
import { defineList, keyOrder } from '../../db/list';
import { type EveryField, iso } from '../../db/rows';
import { eventDefinition } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { defineArchive } from '../archive/archive-kit';
import { inUseBy } from '../archive/references';

/** The higher-level event of a row: the same table under another name. */
const parent = alias(eventDefinition, 'parent');

interface Row {
  e: typeof eventDefinition.$inferSelect;
  parentCode: number | null;
  parentName: string | null;
}

export const EVENT_DEFINITION_LIST = defineList({
  entity: eventDefinitionEntity,
  columns: {
    code: eventDefinition.code,
    name: eventDefinition.name,
    level: eventDefinition.level,
    updateTime: eventDefinition.updateTime,
  },
  defaultOrder: keyOrder({ code: eventDefinition.code, id: eventDefinition.id }),
  tieBreak: eventDefinition.id,
});

/**
 * Refuses a higher-level event that does not exist, or whose own chain of higher-level events leads
 * back to the edited one (a cycle would make an event roll up into itself).
 */
async function assertParent(tx: Executor, id: string, parentId: string): Promise<void> {
  const seen = new Set<string>();
  let current: string | null = parentId;
  while (current !== null) {
    if (current === id || seen.has(current)) throw fieldError(RESULT.badRequest, 'parentId', 'eventParentCycle');
    seen.add(current);
    const [row]: { parentId: string | null }[] = await tx
      .select({ parentId: eventDefinition.parentId })
      .from(eventDefinition)
      .where(eq(eventDefinition.id, current));
    if (!row) throw fieldError(RESULT.badRequest, 'parentId', 'eventDefinitionNotFound');
    current = row.parentId;
  }
}

/** Event definitions: parameters every user shares, no grid scope. */
export const eventDefinitionArchive = defineArchive({
  entity: eventDefinitionEntity,
  api: eventDefinitionApi,
  table: eventDefinition,
  nameColumn: eventDefinition.name,
  list: EVENT_DEFINITION_LIST,
  select: (db: Executor) =>
    db
      .select({ e: eventDefinition, parentCode: parent.code, parentName: parent.name })
      .from(eventDefinition)
      .leftJoin(parent, eq(parent.id, eventDefinition.parentId)),
  toRecord: ({ e, parentCode, parentName }: Row): EventDefinition => ({
    id: e.id,
    code: e.code,
    name: e.name,
    description: e.description,
    level: e.level as EventDefinition['level'],
    parentId: e.parentId,
    parentCode,
    parentName,
    analyticalWay: e.analyticalWay,
    cumulativeNumber: e.cumulativeNumber,
    createTime: iso(e.createTime),
    updateTime: iso(e.updateTime),
  }),
  toValues: async (v, { tx, id }) => {
    if (v.parentId !== null) await assertParent(tx, id, v.parentId);
    return { ...v } satisfies EveryField<EventDefinitionCreate, typeof eventDefinition.$inferInsert>;
  },
  // A definition still named as another's higher-level event stays, unless that other goes with it.
  inUse: (tx, ids) =>
    inUseBy(tx, ids, [
      { column: eventDefinition.parentId, key: 'eventDefinitionInUse', where: notInArray(eventDefinition.id, ids) },
    ]),
  options: {
    searched: [eventDefinition.name],
    label: sql<string>`${eventDefinition.code}::text || ' · ' || ${eventDefinition.name}`,
  },
});
