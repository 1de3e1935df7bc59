import { moduleApi, moduleEntity, moduleImportApi } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';

export const moduleCrud = defineArchiveCrud({
  entity: moduleEntity,
  api: moduleApi,
  unique: ['moduleNo'],
  imports: moduleImportApi,
});

export const modulePages = createCrudPages(moduleCrud);
