import { templateApi, templateEntity } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';

/** templateMGT: collection task templates, from their one declaration in the contracts. */
export const templateCrud = defineArchiveCrud({
  entity: templateEntity,
  api: templateApi,
  initialValues: { cycleValue: 0, cycleFreq: 'minute', devParams: {} },
});

export const templatePages = createCrudPages(templateCrud);
