import {
  type Module,
  type ModuleCreate,
  ModuleCreateSchema,
  moduleApi,
  moduleEntity,
  moduleImportApi,
  type OptionsQuery,
} from '@meterdesk/contracts';
import { getTableColumns, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { defineList, keyOrder } from '../../db/list';
import { type EveryField, iso, lookup, qualified } from '../../db/rows';
import { commModule, meter, powerGrid } from '../../db/schema';
import { GRID_TREE } from '../../rbac/scope';
import { defineArchive } from './archive-kit';
import { gridColumn } from './import/grid-reference';
import { recordImport } from './import/record-import';
import { assertGridInScope, inUseBy } from './references';

type Row = typeof commModule.$inferSelect & { gridName: string; devAddr: string };

export const MODULE_LIST = defineList({
  entity: moduleEntity,
  columns: {
    moduleNo: commModule.moduleNo,
    simNo: commModule.simNo,
    deviceType: commModule.deviceType,
    workingMode: commModule.workingMode,
    gridId: commModule.gridId,
  },
  trees: { gridId: GRID_TREE },
  defaultOrder: keyOrder({ moduleNo: commModule.moduleNo, id: commModule.id }),
  tieBreak: commModule.id,
});

export const moduleArchive = defineArchive({
  entity: moduleEntity,
  api: moduleApi,
  table: commModule,
  list: MODULE_LIST,
  // A module serves at most one meter (meter_module_uq).
  select: (db: Executor) =>
    db
      .select({
        ...getTableColumns(commModule),
        gridName: lookup<string>(powerGrid.gridName, powerGrid.id, commModule.gridId),
        devAddr: sql<string>`coalesce(${lookup(meter.devAddr, meter.moduleId, commModule.id)}, '')`,
      })
      .from(commModule),
  toRecord: (r: Row): Module => ({
    id: r.id,
    moduleNo: r.moduleNo,
    deviceType: r.deviceType as Module['deviceType'],
    workingMode: r.workingMode as Module['workingMode'],
    commAddress: r.commAddress,
    simNo: r.simNo,
    gridId: r.gridId,
    gridName: r.gridName,
    devAddr: r.devAddr,
    remark: r.remark,
    createTime: iso(r.createTime),
    updateTime: iso(r.updateTime),
  }),
  gridColumn: commModule.gridId,
  toValues: async (v, { tx, scope }) => {
    await assertGridInScope(tx, scope, v.gridId);
    return { ...v } satisfies EveryField<ModuleCreate, typeof commModule.$inferInsert>;
  },
  inUse: (tx, ids) => inUseBy(tx, ids, [{ column: meter.moduleId, key: 'moduleInUse' }]),
  options: {
    searched: [commModule.moduleNo],
    label: sql<string>`${commModule.moduleNo}`,
    where: ({ free }: OptionsQuery & { free?: boolean }) =>
      free
        ? sql`not exists (select 1 from ${meter} where ${qualified(meter.moduleId)} = ${qualified(commModule.id)})`
        : undefined,
  },
});

const label = (name: string) => `module.fields.${name}`;

/** Modules from a workbook, placed by grid name or code. */
export const moduleImport = recordImport<ModuleCreate>({
  entity: moduleEntity.name,
  api: moduleImportApi,
  create: ModuleCreateSchema,
  table: commModule,
  unique: moduleArchive.unique,
  columns: [
    { key: 'moduleNo', label: label('moduleNo'), required: true, example: 'M000001' },
    { key: 'deviceType', label: label('deviceType'), required: true },
    gridColumn(label('gridName')),
    { key: 'workingMode', label: label('workingMode') },
    { key: 'commAddress', label: label('commAddress') },
    { key: 'simNo', label: label('simNo') },
    { key: 'remark', label: label('remark') },
  ],
  values: (input, id) =>
    ({ ...input, id }) satisfies EveryField<ModuleCreate, typeof commModule.$inferInsert> & { id: string },
});
