import {
  type OptionsQuery,
  type Poc,
  type PocCreate,
  PocCreateSchema,
  type PocReplace,
  type PocReplacement,
  pocApi,
  pocEntity,
  pocImportApi,
  RESULT,
} from '@meterdesk/contracts';
import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db, Executor } from '../../db/driver';
import { newId } from '../../db/ids';
import { defineList, keyOrder } from '../../db/list';
import { anyRow, type EveryField, iso, lookup } from '../../db/rows';
import { consumer, dcu, meter, poc, pocReplacement, powerGrid, tariff } from '../../db/schema';
import { registerUniqueIndex } from '../../db/unique';
import { fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { GRID_TREE, gridScope, resolveScope } from '../../rbac/scope';
import { defineArchive, type WriteContext } from './archive-kit';
import { gridColumn } from './import/grid-reference';
import { keyReference, recordImport } from './import/record-import';
import { resolveTariffs } from './import/tariff-reference';
import { GRID, requireInScope, type ScopedTable } from './in-scope';
import { inUseBy } from './references';

const CONSUMER: ScopedTable = { table: consumer, id: consumer.id, grid: consumer.gridId };
const METER: ScopedTable = { table: meter, id: meter.id, grid: meter.gridId };
const DCU: ScopedTable = { table: dcu, id: dcu.id, grid: dcu.gridId };

const meterAtOtherPoc = () => fieldError(RESULT.conflict, 'meterId', 'meterAtOtherPoc');
// Two saves racing past the check both name the meter: the index answers the second.
registerUniqueIndex('poc_meter_uq', meterAtOtherPoc);

const selectPocs = (db: Executor) =>
  db
    .select({
      poc,
      consumerCode: lookup(consumer.consumerCode, consumer.id, poc.consumerId),
      consumerName: lookup(consumer.consumerName, consumer.id, poc.consumerId),
      devAddr: lookup(meter.devAddr, meter.id, poc.meterId),
      dcuNo: lookup(dcu.dcuNo, dcu.id, poc.dcuId),
      gridName: lookup<string>(powerGrid.gridName, powerGrid.id, poc.gridId),
      tariffName: lookup(tariff.tariffName, tariff.id, poc.tariffId),
    })
    .from(poc);

type Row = Awaited<ReturnType<typeof selectPocs>>[number];

/** The POC's meter number as a subquery: the list's count reads `poc` alone, so its filters cannot use a join. */
const pocDevAddr = lookup(meter.devAddr, meter.id, poc.meterId);

export const POC_LIST = defineList({
  entity: pocEntity,
  columns: {
    pocNo: poc.pocNo,
    devAddr: pocDevAddr,
    nature: poc.nature,
    syncStatus: poc.syncStatus,
    gridId: poc.gridId,
  },
  trees: { gridId: GRID_TREE },
  defaultOrder: keyOrder({ pocNo: poc.pocNo, id: poc.id }),
  tieBreak: poc.id,
});

const SYNCHRONIZED = 1;
const CHANGED = 2;

/** A synchronized POC whose meter, ratios or tariff change no longer matches what the head-end holds. */
function syncStatusAfter(
  before: Row['poc'],
  v: Pick<PocCreate, 'meterId' | 'ctRatio' | 'ptRatio' | 'tariffId'>,
): number {
  const changed =
    before.meterId !== v.meterId ||
    before.ctRatio !== v.ctRatio ||
    before.ptRatio !== v.ptRatio ||
    before.tariffId !== v.tariffId;
  return before.syncStatus === SYNCHRONIZED && changed ? CHANGED : before.syncStatus;
}

/** Whether the meter measures a POC other than `exceptPocId`. */
const meterAtPoc = (tx: Executor, meterId: string, exceptPocId: string) =>
  anyRow(tx, poc, and(eq(poc.meterId, meterId), ne(poc.id, exceptPocId)));

export const pocArchive = defineArchive({
  entity: pocEntity,
  api: pocApi,
  table: poc,
  list: POC_LIST,
  select: selectPocs,
  gridColumn: poc.gridId,
  toRecord: ({ poc: r, consumerCode, consumerName, devAddr, dcuNo, gridName, tariffName }: Row): Poc => ({
    id: r.id,
    pocNo: r.pocNo,
    nature: r.nature as Poc['nature'],
    ctRatio: r.ctRatio,
    ptRatio: r.ptRatio,
    capacity: r.capacity,
    syncStatus: r.syncStatus as Poc['syncStatus'],
    registration: r.registered ? 'registered' : 'unregistered',
    tariffId: r.tariffId,
    taskGroupId: r.taskGroupId,
    consumerId: r.consumerId,
    consumerCode: consumerCode ?? '',
    consumerName: consumerName ?? '',
    meterId: r.meterId,
    devAddr: devAddr ?? '',
    dcuId: r.dcuId,
    dcuNo: dcuNo ?? '',
    gridId: r.gridId,
    gridName,
    tariffName,
    remark: r.remark,
    createTime: iso(r.createTime),
    updateTime: iso(r.updateTime),
  }),
  toValues: async (v: PocCreate, { tx, scope, id, before }: WriteContext<Row>) => {
    await requireInScope(tx, scope, GRID, v.gridId, 'gridId', 'gridNotFound');
    if (v.consumerId) await requireInScope(tx, scope, CONSUMER, v.consumerId, 'consumerId', 'consumerNotFound');
    if (v.dcuId) await requireInScope(tx, scope, DCU, v.dcuId, 'dcuId', 'dcuNotFound');
    if (v.tariffId && !(await anyRow(tx, tariff, eq(tariff.id, v.tariffId))))
      throw fieldError(RESULT.badRequest, 'tariffId', 'tariffNotFound');
    if (v.meterId) {
      await requireInScope(tx, scope, METER, v.meterId, 'meterId', 'meterNotFound');
      if (await meterAtPoc(tx, v.meterId, id)) throw meterAtOtherPoc();
    }
    const { registration, ...stored } = v;
    return {
      ...stored,
      registered: registration === 'registered',
      syncStatus: before ? syncStatusAfter(before.poc, v) : 0,
    } satisfies EveryField<
      Omit<PocCreate, 'registration'> & { registered: boolean; syncStatus: number },
      typeof poc.$inferInsert
    >;
  },
  inUse: (tx, ids) => inUseBy(tx, ids, [{ column: powerGrid.primaryPocId, key: 'pocIsPrimaryTable' }]),
  options: {
    searched: [poc.pocNo],
    label: sql<string>`${poc.pocNo}`,
    where: ({ nature, gridId }: OptionsQuery & { nature?: number; gridId?: string }) =>
      and(
        nature === undefined ? undefined : eq(poc.nature, nature),
        gridId === undefined ? undefined : eq(poc.gridId, gridId),
      ),
  },
});

/** How far a change time may lie ahead of the server's clock (a browser's clock drifts). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** Meter replacement at a POC and its history. */
export class PocMeters {
  constructor(private readonly db: Db) {}

  /**
   * Swaps the POC's meter for `newMeterId` and keeps the replacement (PRE<seq>), all in one
   * transaction; the POC row stays locked meanwhile, so two replacements of one POC queue.
   */
  async replace(
    input: PocReplace,
    session: SessionContext,
  ): Promise<{ seq: number; pocNo: string; oldDevAddr: string; newDevAddr: string }> {
    const changeTime = input.changeTime ? new Date(input.changeTime) : new Date();
    if (changeTime.getTime() > Date.now() + CLOCK_SKEW_MS) {
      throw fieldError(RESULT.badRequest, 'changeTime', 'futureTime');
    }
    return this.db.transaction(async (tx) => {
      const scope = await resolveScope(tx, session.userId);
      const [target] = await tx
        .select({ id: poc.id, pocNo: poc.pocNo, meterId: poc.meterId, syncStatus: poc.syncStatus })
        .from(poc)
        .where(and(eq(poc.id, input.id), gridScope(scope, poc.gridId)))
        .for('update');
      if (!target) throw notFound();
      const old = target.meterId ? await this.devAddr(tx, target.meterId) : undefined;
      if (!target.meterId || old === undefined) throw fieldError(RESULT.badRequest, 'id', 'pocWithoutMeter');
      if (input.newMeterId === target.meterId) throw fieldError(RESULT.badRequest, 'newMeterId', 'sameMeter');
      await requireInScope(tx, scope, METER, input.newMeterId, 'newMeterId', 'meterNotFound');
      if (await meterAtPoc(tx, input.newMeterId, target.id)) {
        throw fieldError(RESULT.conflict, 'newMeterId', 'meterAtOtherPoc');
      }
      const newDevAddr = (await this.devAddr(tx, input.newMeterId)) as string;
      const [last] = await tx
        .select({ seq: sql<number>`coalesce(max(${pocReplacement.seq}), 0)`.mapWith(Number) })
        .from(pocReplacement)
        .where(eq(pocReplacement.pocId, target.id));
      const seq = (last?.seq ?? 0) + 1;
      await tx.insert(pocReplacement).values({
        id: newId(),
        pocId: target.id,
        seq,
        oldMeterId: target.meterId,
        oldDevAddr: old,
        newMeterId: input.newMeterId,
        newDevAddr,
        oldActiveTotal: input.oldActiveTotal,
        oldReactiveTotal: input.oldReactiveTotal,
        newActiveTotal: input.newActiveTotal,
        newReactiveTotal: input.newReactiveTotal,
        changer: session.username,
        changeTime,
      });
      await tx
        .update(poc)
        .set({
          meterId: input.newMeterId,
          syncStatus: target.syncStatus === SYNCHRONIZED ? CHANGED : target.syncStatus,
          updateTime: new Date(),
        })
        .where(eq(poc.id, target.id));
      return { seq, pocNo: target.pocNo, oldDevAddr: old, newDevAddr };
    });
  }

  private async devAddr(tx: Executor, meterId: string): Promise<string | undefined> {
    const [row] = await tx.select({ devAddr: meter.devAddr }).from(meter).where(eq(meter.id, meterId));
    return row?.devAddr;
  }

  /** The replacements at a POC the caller reaches, PRE1 (the first) onwards. */
  async history(id: string, session: SessionContext): Promise<PocReplacement[]> {
    const scope = await resolveScope(this.db, session.userId);
    if (!(await anyRow(this.db, poc, and(eq(poc.id, id), gridScope(scope, poc.gridId))))) throw notFound();
    const rows = await this.db
      .select()
      .from(pocReplacement)
      .where(eq(pocReplacement.pocId, id))
      .orderBy(asc(pocReplacement.seq));
    return rows.map((r) => ({
      id: r.id,
      seq: r.seq,
      name: `PRE${r.seq}`,
      oldDevAddr: r.oldDevAddr,
      newDevAddr: r.newDevAddr,
      oldActiveTotal: r.oldActiveTotal,
      oldReactiveTotal: r.oldReactiveTotal,
      newActiveTotal: r.newActiveTotal,
      newReactiveTotal: r.newReactiveTotal,
      changer: r.changer,
      changeTime: iso(r.changeTime),
    }));
  }
}

const label = (name: string) => `poc.fields.${name}`;

/** A reference column of the POC import: a record of `target` by its business key, within the caller's scope. */
const scopedReference = (
  key: string,
  field: string,
  target: ScopedTable,
  keyColumn: AnyPgColumn,
  notFound: 'consumerNotFound' | 'meterNotFound' | 'dcuNotFound',
) => ({
  key,
  label: label(key),
  field,
  resolve: keyReference({
    table: target.table,
    keyColumn,
    idColumn: target.id,
    within: (scope) => gridScope(scope, target.grid),
  }),
  notFound,
});

/** POCs from a workbook: their consumer, meter and DCU by number within the caller's scope, a meter at one POC. */
export const pocImport = recordImport<PocCreate>({
  entity: pocEntity.name,
  api: pocImportApi,
  create: PocCreateSchema,
  table: poc,
  unique: pocArchive.unique,
  // Two rows naming one meter would put it at two POCs.
  distinctInFile: ['devAddr'],
  columns: [
    { key: 'pocNo', label: label('pocNo'), required: true, example: 'P000001' },
    { key: 'nature', label: label('nature'), required: true },
    gridColumn(label('gridName')),
    scopedReference('consumerCode', 'consumerId', CONSUMER, consumer.consumerCode, 'consumerNotFound'),
    scopedReference('devAddr', 'meterId', METER, meter.devAddr, 'meterNotFound'),
    scopedReference('dcuNo', 'dcuId', DCU, dcu.dcuNo, 'dcuNotFound'),
    // A tariff by its name or id.
    {
      key: 'tariffId',
      label: label('tariffId'),
      field: 'tariffId',
      resolve: resolveTariffs,
      notFound: 'tariffNotFound',
    },
    ...(['ctRatio', 'ptRatio', 'capacity', 'registration', 'taskGroupId', 'remark'] as const).map((key) => ({
      key,
      label: label(key),
    })),
  ],
  rules: async (rows, ctx) => {
    const serials = [...new Set(rows.map((r) => (r.cells.devAddr ?? '').toLowerCase()).filter((v) => v !== ''))];
    const measuring = new Set<string>();
    for (let i = 0; i < serials.length; i += 1000) {
      const found = await ctx.db
        .select({ meterId: meter.id })
        .from(poc)
        .innerJoin(meter, eq(meter.id, poc.meterId))
        .where(inArray(sql`lower(${meter.devAddr})`, serials.slice(i, i + 1000)));
      for (const { meterId } of found) measuring.add(meterId);
    }
    return (input) =>
      input.meterId && measuring.has(input.meterId)
        ? { issues: [{ field: 'meterId', key: 'meterAtOtherPoc' }] }
        : { input };
  },
  values: (input, id) => {
    const { registration, ...stored } = input;
    return {
      ...stored,
      id,
      registered: registration === 'registered',
      syncStatus: 0,
    } satisfies EveryField<Omit<PocCreate, 'registration'>, typeof poc.$inferInsert> & {
      id: string;
      registered: boolean;
      syncStatus: number;
    };
  },
});
