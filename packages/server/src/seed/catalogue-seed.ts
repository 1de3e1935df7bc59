import { COMMON_OBIS, DLMS_UNITS, STANDARD_EVENTS } from '@meterdesk/contracts';
import type { Tx } from '../db/driver';
import { stableId } from '../db/ids';
import { eventDefinition, obisItem } from '../db/schema';

/**
 * The common COSEM objects (DOMAIN.md) and the standard event log codes the devices emit, added at
 * every start when missing. Stable ids make it idempotent, and a conflict on any key (the id, or an
 * operator's own row with the same code or name) leaves the stored row as it is, so an edit survives.
 */
export async function seedCatalogues(tx: Tx): Promise<void> {
  await tx
    .insert(obisItem)
    .values(
      COMMON_OBIS.map((item) => ({
        id: stableId(`obis:${item.obis}`),
        obis: item.obis,
        classId: item.classId,
        attribute: item.attribute,
        description: item.description,
        unit: DLMS_UNITS[item.unit],
        scaler: item.scaler,
        cgName: item.cgName,
        ...item.flags,
      })),
    )
    .onConflictDoNothing();
  await tx
    .insert(eventDefinition)
    .values(
      STANDARD_EVENTS.map((event) => ({
        id: stableId(`eventDefinition:${event.code}`),
        code: event.code,
        name: event.name,
        level: event.level,
        description: event.description,
      })),
    )
    .onConflictDoNothing();
}
