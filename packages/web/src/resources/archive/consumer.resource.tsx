import { consumerApi, consumerEntity, consumerImportApi } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';
import { showOnMap } from './show-on-map';

export const consumerCrud = defineArchiveCrud({
  entity: consumerEntity,
  api: consumerApi,
  imports: consumerImportApi,
  rowActions: [showOnMap('consumer')],
});

export const consumerPages = createCrudPages(consumerCrud);
