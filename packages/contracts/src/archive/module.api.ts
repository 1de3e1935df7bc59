import { z } from 'zod';
import { archiveApi, archiveResources, formsOf, optionsApi } from './archive-api';
import { importApi } from './archive-import';
import { ModuleCreateSchema, moduleEntity } from './module.schema';

export const MODULE_RES = archiveResources(moduleEntity.pagePath);

export const moduleApi = {
  ...archiveApi({
    path: 'module',
    entity: moduleEntity,
    create: ModuleCreateSchema,
    res: MODULE_RES,
  }),
  options: optionsApi('module', moduleEntity.name, {
    searches: 'module number',
    pickedBy: formsOf('/archiveSetting/meter'),
    filters: {
      free: z.boolean().default(false).describe('Only modules serving no meter (a module serves one)'),
    },
  }),
};

export const moduleImportApi = importApi({ path: 'module', tag: 'module', res: `${moduleEntity.pagePath}/import` });
