import { consumerApi, consumerEntity, consumerImportApi } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';

export const consumerCrud = defineArchiveCrud({
  entity: consumerEntity,
  api: consumerApi,
  unique: ['consumerCode'],
  imports: consumerImportApi,
});

export const consumerPages = createCrudPages(consumerCrud);
