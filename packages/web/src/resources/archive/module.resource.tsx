import { moduleApi, moduleEntity, moduleImportApi } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';
import { showOnMap } from './show-on-map';

export const moduleCrud = defineArchiveCrud({
  entity: moduleEntity,
  api: moduleApi,
  imports: moduleImportApi,
  rowActions: [showOnMap('module')],
});

export const modulePages = createCrudPages(moduleCrud);
