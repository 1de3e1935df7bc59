import { archiveApi, archiveResources } from './archive-api';
import { importApi } from './archive-import';
import { ModuleCreateSchema, moduleEntity } from './module.schema';

export const MODULE_RES = archiveResources(moduleEntity.pagePath);

export const moduleApi = archiveApi({
  path: 'module',
  entity: moduleEntity,
  create: ModuleCreateSchema,
  res: MODULE_RES,
  unique: ['moduleNo'],
  pickedBy: ['/archiveSetting/meter'],
});

export const moduleImportApi = importApi({ path: 'module', tag: 'module', res: `${moduleEntity.pagePath}/import` });
