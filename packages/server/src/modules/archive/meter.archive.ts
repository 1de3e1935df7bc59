import {
  type MessageKey,
  type Meter,
  type MeterCreate,
  meterApi,
  meterEntity,
  type OptionsQuery,
  RESULT,
} from '@meterdesk/contracts';
import { and, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { SecretBox } from '../../crypto/secret-box';
import type { Executor } from '../../db/driver';
import { defineList, type FilterCondition, keyOrder } from '../../db/list';
import { anyRow, type EveryField, iso, lookup, qualified } from '../../db/rows';
import {
  billingRuleMeter,
  commModule,
  consumer,
  dcu,
  meter,
  meterLive,
  meterType,
  poc,
  powerGrid,
  prepaidRecharge,
  supplier,
  tariff,
  virtualMeterMember,
} from '../../db/schema';
import { registerUniqueIndex } from '../../db/unique';
import { fieldError } from '../../errors/api-error';
import { GRID_TREE, gridScope } from '../../rbac/scope';
import { defineArchive } from './archive-kit';
import { inUseBy } from './references';

const MODULE_INDEX = 'meter_module_uq';
const moduleInUse = () => fieldError(RESULT.conflict, 'moduleId', 'moduleInUse');
// Two meters saved at once with the same module: the index stops the second, with the same answer.
registerUniqueIndex(MODULE_INDEX, moduleInUse);

const meterPoc = (column: AnyPgColumn) => lookup(column, poc.meterId, meter.id);

export const meterRow = (db: Executor) =>
  db
    .select({
      m: meter,
      gridName: lookup<string>(powerGrid.gridName, powerGrid.id, meter.gridId),
      meterTypeName: lookup(meterType.modelName, meterType.id, meter.meterTypeId),
      supplierName: lookup(supplier.supplierName, supplier.id, meter.supplierId),
      moduleNo: lookup(commModule.moduleNo, commModule.id, meter.moduleId),
      dcuNo: lookup(dcu.dcuNo, dcu.id, meter.dcuId),
      pocNo: meterPoc(poc.pocNo),
      consumerCode: lookup(consumer.consumerCode, consumer.id, meterPoc(poc.consumerId)),
      consumerName: lookup(consumer.consumerName, consumer.id, meterPoc(poc.consumerId)),
      tariffName: lookup(tariff.tariffName, tariff.id, meter.tariffId),
      live: {
        online: meterLive.online,
        lastCommAt: meterLive.lastCommAt,
        relayState: meterLive.relayState,
        lastReadAt: meterLive.lastReadAt,
        lastReadWh: meterLive.lastReadWh,
      },
    })
    .from(meter)
    // Every meter has its live row (a trigger makes it with the meter): a join the sort by last
    // communication can drive from the live table's index.
    .innerJoin(meterLive, eq(meterLive.meterId, meter.id));

type Row = Awaited<ReturnType<typeof meterRow>>[number];

/** A meter whose live row matches: `exists` on the live table's index, cheap however few meters match. */
const liveIs =
  (condition: (value: unknown) => SQL): FilterCondition =>
  (value) =>
    sql`exists (select 1 from ${meterLive} where ${meterLive.meterId} = ${meter.id} and ${condition(value)})`;

export const METER_LIST = defineList({
  entity: meterEntity,
  columns: {
    devAddr: meter.devAddr,
    status: meter.status,
    gridId: meter.gridId,
    meterTypeId: meter.meterTypeId,
    // meter_dcu_idx finds a DCU's meters; they are few enough to sort.
    dcuId: meter.dcuId,
    updateTime: meter.updateTime,
    linkState: meterLive.online,
    relayState: meterLive.relayState,
    // Never heard from sorts as the oldest; meter_live_last_comm_idx holds this order.
    lastCommTime: sql`coalesce(${meterLive.lastCommAt}, '-infinity'::timestamptz)`,
  },
  conditions: {
    linkState: liveIs((value) => eq(meterLive.online, value === 'online')),
    relayState: liveIs((value) => eq(meterLive.relayState, Number(value))),
  },
  trees: { gridId: GRID_TREE },
  defaultOrder: keyOrder({ devAddr: meter.devAddr, id: meter.id }),
  tieBreak: meter.id,
  indexedSorts: ['status', 'updateTime'],
});

function toRecord({ m, live, ...shown }: Row): Meter {
  return {
    id: m.id,
    devAddr: m.devAddr,
    gridId: m.gridId,
    meterTypeId: m.meterTypeId,
    supplierId: m.supplierId,
    status: m.status as Meter['status'],
    commType: (m.commType || null) as Meter['commType'],
    authType: m.authType as Meter['authType'],
    securityType: m.securityType as Meter['securityType'],
    dataChannel: m.dataChannel,
    interfaceType: (m.interfaceType || null) as Meter['interfaceType'],
    virtual: m.virtual,
    meterBoxNo: m.meterBoxNo,
    moduleId: m.moduleId,
    dcuId: m.dcuId,
    tariffId: m.tariffId,
    hesPasswordSet: m.hesPassword !== null,
    longitude: m.longitude,
    latitude: m.latitude,
    remark: m.remark,
    ...shown,
    linkState: live.online ? 'online' : 'offline',
    lastCommTime: live.lastCommAt ? iso(live.lastCommAt) : null,
    relayState: live.relayState as Meter['relayState'],
    // Stored raw in Wh, as the register reports it (scaler 0).
    lastReading: live.lastReadWh === null ? null : live.lastReadWh / 1000,
    lastReadTime: live.lastReadAt ? iso(live.lastReadAt) : null,
    createTime: iso(m.createTime),
    updateTime: iso(m.updateTime),
  };
}

/**
 * Meters live in the grid: every read and write stays within the caller's grid scope, and so does
 * every module, DCU and grid node a meter points at. The HES password is sealed with `secrets`.
 */
export function meterArchive(secrets: SecretBox) {
  return defineArchive({
    entity: meterEntity,
    api: meterApi,
    table: meter,
    list: METER_LIST,
    select: meterRow,
    toRecord,
    gridColumn: meter.gridId,
    toValues: async (v, { tx, scope, id, before }) => {
      const refuse = (field: string, key: MessageKey): never => {
        throw fieldError(RESULT.badRequest, field, key);
      };
      if (!(await anyRow(tx, powerGrid, and(eq(powerGrid.id, v.gridId), gridScope(scope, powerGrid.id))))) {
        refuse('gridId', 'gridNotFound');
      }
      if (v.supplierId && !(await anyRow(tx, supplier, eq(supplier.id, v.supplierId)))) {
        refuse('supplierId', 'supplierNotFound');
      }
      // Members are real meters (no nesting, so no cycle); a virtual meter's members go before it turns real.
      if (before && v.virtual !== before.m.virtual) {
        if (v.virtual && (await anyRow(tx, virtualMeterMember, eq(virtualMeterMember.memberId, id))))
          refuse('virtual', 'virtualMemberVirtual');
        if (!v.virtual && (await anyRow(tx, virtualMeterMember, eq(virtualMeterMember.virtualId, id))))
          refuse('virtual', 'virtualHasMembers');
      }
      let supplierId = v.supplierId;
      if (v.meterTypeId) {
        const [type] = await tx
          .select({ supplierId: meterType.supplierId })
          .from(meterType)
          .where(eq(meterType.id, v.meterTypeId));
        if (!type) return refuse('meterTypeId', 'meterTypeNotFound');
        // A meter type is one supplier's model: a meter of that type comes from that supplier.
        if (supplierId !== null && supplierId !== type.supplierId) refuse('supplierId', 'supplierNotOfMeterType');
        supplierId = type.supplierId;
      }
      if (v.moduleId) {
        const [module] = await tx
          .select({ moduleNo: commModule.moduleNo })
          .from(commModule)
          .where(and(eq(commModule.id, v.moduleId), gridScope(scope, commModule.gridId)));
        if (!module) refuse('moduleId', 'moduleNotFound');
        if (module?.moduleNo.toLowerCase() === v.devAddr.toLowerCase()) refuse('devAddr', 'meterSnSameAsModule');
        if (await anyRow(tx, meter, and(eq(meter.moduleId, v.moduleId), ne(meter.id, id)))) throw moduleInUse();
      }
      if (v.dcuId && !(await anyRow(tx, dcu, and(eq(dcu.id, v.dcuId), gridScope(scope, dcu.gridId))))) {
        refuse('dcuId', 'dcuNotFound');
      }
      if (v.tariffId && !(await anyRow(tx, tariff, eq(tariff.id, v.tariffId)))) refuse('tariffId', 'tariffNotFound');
      const { hesPassword, ...rest } = v;
      return {
        ...rest,
        supplierId,
        // Only maintain moves a meter along its life cycle once it exists.
        status: before ? before.m.status : v.status,
        commType: v.commType ?? '',
        interfaceType: v.interfaceType ?? '',
        hesPassword: hesPassword ? secrets.seal(hesPassword) : (before?.m.hesPassword ?? null),
      } satisfies EveryField<MeterCreate, typeof meter.$inferInsert>;
    },
    inUse: (tx, ids) =>
      inUseBy(tx, ids, [
        { column: poc.meterId, key: 'meterInUse' },
        { column: billingRuleMeter.meterId, key: 'meterInBillingRule' },
        { column: virtualMeterMember.memberId, key: 'meterInVirtualMeter' },
        { column: prepaidRecharge.meterId, key: 'meterHasRecharges' },
      ]),
    options: {
      searched: [meter.devAddr],
      label: sql<string>`${meter.devAddr}`,
      where: ({ free }: OptionsQuery & { free?: boolean }) =>
        free
          ? sql`not exists (select 1 from ${poc} where ${qualified(poc.meterId)} = ${qualified(meter.id)})`
          : undefined,
    },
  });
}
