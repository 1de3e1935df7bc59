import { SCHEDULED_TASK_FORMS } from '../operations/plan.api';
import { archiveApi, archiveResources, formsOf, optionsApi } from './archive-api';
import { importApi } from './archive-import';
import { supplierEntity } from './supplier.schema';

export const SUPPLIER_RES = archiveResources(supplierEntity.pagePath);

export const supplierApi = {
  ...archiveApi({
    path: 'supplier',
    entity: supplierEntity,
    res: SUPPLIER_RES,
  }),
  options: optionsApi('supplier', supplierEntity.name, {
    searches: 'code or name',
    // The meter type list filters by supplier; meters and DCUs name theirs.
    pickedBy: [
      '/parameterSetting/meterType',
      ...formsOf('/parameterSetting/meterType'),
      ...formsOf('/archiveSetting/meter'),
      ...formsOf('/archiveSetting/DCU'),
      ...SCHEDULED_TASK_FORMS,
    ],
  }),
};

export const supplierImportApi = importApi({
  path: 'supplier',
  tag: 'supplier',
  res: `${supplierEntity.pagePath}/import`,
});
