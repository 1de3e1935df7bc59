import { supplierApi, supplierEntity, supplierImportApi } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import { dcu, meter, meterType, supplier } from '../../db/schema';
import { defineArchive } from './archive-kit';
import { archiveImport } from './import/record-import';
import { inUseBy } from './references';

/** Suppliers are parameters every user shares: no grid scope. */
export const supplierArchive = defineArchive({
  entity: supplierEntity,
  api: supplierApi,
  table: supplier,
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
});

export const supplierImport = archiveImport(supplierArchive, supplierImportApi);
