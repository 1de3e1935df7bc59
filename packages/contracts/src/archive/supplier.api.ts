import { archiveApi, archiveResources } from './archive-api';
import { importApi } from './archive-import';
import { SupplierCreateSchema, supplierEntity } from './supplier.schema';

export const SUPPLIER_RES = archiveResources(supplierEntity.pagePath);

export const supplierApi = archiveApi({
  path: 'supplier',
  entity: supplierEntity,
  create: SupplierCreateSchema,
  res: SUPPLIER_RES,
  unique: ['supplierCode', 'supplierName'],
  pickedBy: ['/parameterSetting/meterType', '/archiveSetting/meter', '/archiveSetting/DCU'],
});

export const supplierImportApi = importApi({
  path: 'supplier',
  tag: 'supplier',
  res: `${supplierEntity.pagePath}/import`,
});
