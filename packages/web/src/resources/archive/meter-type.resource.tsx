import { meterTypeApi, meterTypeEntity } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';

export const meterTypeCrud = defineArchiveCrud({
  entity: meterTypeEntity,
  api: meterTypeApi,
});

export const meterTypePages = createCrudPages(meterTypeCrud);
