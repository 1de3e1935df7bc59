import { supplierApi, supplierEntity, supplierImportApi } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';

export const supplierCrud = defineArchiveCrud({ entity: supplierEntity, api: supplierApi, imports: supplierImportApi });

export const supplierPages = createCrudPages(supplierCrud);
