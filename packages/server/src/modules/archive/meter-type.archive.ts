import { type MeterType, type MeterTypeCreate, meterTypeApi, meterTypeEntity, RESULT } from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { defineList, keyOrder } from '../../db/list';
import { anyRow, type EveryField, iso, qualified } from '../../db/rows';
import { meter, meterType, paramTemplate, supplier } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { defineArchive } from './archive-kit';
import { inUseBy } from './references';

interface Row {
  t: typeof meterType.$inferSelect;
  supplierName: string;
}

export const METER_TYPE_LIST = defineList({
  entity: meterTypeEntity,
  columns: {
    modelName: meterType.modelName,
    supplierId: meterType.supplierId,
    supplierName: supplier.supplierName,
    wiring: meterType.wiring,
    updateTime: meterType.updateTime,
  },
  defaultOrder: keyOrder({ modelName: meterType.modelName, id: meterType.id }),
  tieBreak: meterType.id,
});

/** Meter types are parameters every user shares: no grid scope. */
export const meterTypeArchive = defineArchive({
  entity: meterTypeEntity,
  api: meterTypeApi,
  table: meterType,
  list: METER_TYPE_LIST,
  select: (db: Executor) =>
    db
      .select({ t: meterType, supplierName: supplier.supplierName })
      .from(meterType)
      .innerJoin(supplier, eq(supplier.id, meterType.supplierId)),
  toRecord: ({ t, supplierName }: Row): MeterType => ({
    id: t.id,
    modelName: t.modelName,
    supplierId: t.supplierId,
    supplierName,
    wiring: t.wiring as MeterType['wiring'],
    side: t.side as MeterType['side'],
    ratedVoltage: t.ratedVoltage,
    ratedCurrent: t.ratedCurrent,
    maxCurrent: t.maxCurrent,
    accuracyClass: t.accuracyClass,
    commTypes: t.commTypes as MeterType['commTypes'],
    remark: t.remark,
    createTime: iso(t.createTime),
    updateTime: iso(t.updateTime),
  }),
  toValues: async (v, { tx }) => {
    if (!(await anyRow(tx, supplier, eq(supplier.id, v.supplierId)))) {
      throw fieldError(RESULT.badRequest, 'supplierId', 'supplierNotFound');
    }
    return { ...v, commTypes: [...new Set(v.commTypes)] } satisfies EveryField<
      MeterTypeCreate,
      typeof meterType.$inferInsert
    >;
  },
  inUse: (tx, ids) =>
    inUseBy(tx, ids, [
      { column: meter.meterTypeId, key: 'meterTypeInUse' },
      { column: paramTemplate.meterTypeId, key: 'meterTypeInTemplate' },
    ]),
  options: {
    searched: [meterType.modelName],
    label: sql<string>`${meterType.modelName} || ' · ' || (select ${qualified(supplier.supplierName)} from ${supplier} where ${qualified(supplier.id)} = ${qualified(meterType.supplierId)})`,
    // The meter form sets the meter's supplier to the type's.
    members: { supplierId: meterType.supplierId },
  },
});
