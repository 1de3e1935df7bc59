import {
  type Supplier,
  type SupplierCreate,
  SupplierCreateSchema,
  supplierApi,
  supplierEntity,
  supplierImportApi,
} from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { defineList, keyOrder } from '../../db/list';
import { type EveryField, iso } from '../../db/rows';
import { dcu, meter, meterType, supplier } from '../../db/schema';
import type { ArchiveDefinition } from './archive-kit';
import { recordImport } from './import/record-import';
import { inUseBy } from './references';

type Row = typeof supplier.$inferSelect;

export const SUPPLIER_LIST = defineList({
  entity: supplierEntity,
  columns: {
    supplierCode: supplier.supplierCode,
    supplierName: supplier.supplierName,
    updateTime: supplier.updateTime,
  },
  defaultOrder: keyOrder({ supplierCode: supplier.supplierCode, id: supplier.id }),
  tieBreak: supplier.id,
});

/** Suppliers are parameters every user shares: no grid scope. */
export const supplierArchive: ArchiveDefinition<
  typeof supplierEntity,
  Row,
  Supplier,
  SupplierCreate,
  'supplierCode' | 'supplierName'
> = {
  entity: supplierEntity,
  api: supplierApi,
  table: supplier,
  idColumn: supplier.id,
  nameColumn: supplier.supplierCode,
  list: SUPPLIER_LIST,
  select: (db: Executor) => db.select().from(supplier),
  toRecord: (r: Row): Supplier => ({
    id: r.id,
    supplierCode: r.supplierCode,
    supplierName: r.supplierName,
    contact: r.contact,
    phone: r.phone,
    address: r.address,
    remark: r.remark,
    createTime: iso(r.createTime),
    updateTime: iso(r.updateTime),
  }),
  unique: {
    supplierCode: { column: supplier.supplierCode, index: 'supplier_code_uq' },
    supplierName: { column: supplier.supplierName, index: 'supplier_name_uq' },
  },
  toValues: async (v) => ({ ...v }) satisfies EveryField<SupplierCreate>,
  options: {
    searched: [supplier.supplierName, supplier.supplierCode],
    label: sql<string>`${supplier.supplierName} || ' (' || ${supplier.supplierCode} || ')'`,
  },
  inUse: (tx, ids) =>
    inUseBy(tx, ids, [
      { column: meterType.supplierId, key: 'supplierInUse' },
      { column: meter.supplierId, key: 'supplierInUse' },
      { column: dcu.supplierId, key: 'supplierInUse' },
    ]),
};

/** Suppliers from a workbook: every field by its key or its label in either language. */
export const supplierImport = recordImport<SupplierCreate>({
  entity: supplierEntity.name,
  api: supplierImportApi,
  create: SupplierCreateSchema,
  table: supplier,
  unique: supplierArchive.unique,
  columns: [
    { key: 'supplierCode', label: 'supplier.fields.supplierCode', required: true, example: 'SUP01' },
    { key: 'supplierName', label: 'supplier.fields.supplierName', required: true, example: 'Example Meters Ltd' },
    { key: 'contact', label: 'supplier.fields.contact' },
    { key: 'phone', label: 'supplier.fields.phone' },
    { key: 'address', label: 'supplier.fields.address' },
    { key: 'remark', label: 'supplier.fields.remark' },
  ],
  values: (input, id) => ({ ...input, id }) satisfies EveryField<SupplierCreate> & { id: string },
});
