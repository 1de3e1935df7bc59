import { OBIS_RES, obisApi, obisEntity } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';

/** spec §2: the OBIS page adds and edits on `addObis` and shows a record on `viewObis`. */
export const obisCrud = defineArchiveCrud({
  entity: obisEntity,
  api: obisApi,
  pages: { add: OBIS_RES.add, edit: OBIS_RES.edit, detail: OBIS_RES.detail },
});

export const obisPages = createCrudPages(obisCrud);
