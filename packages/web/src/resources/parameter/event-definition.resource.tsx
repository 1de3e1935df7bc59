import { EVENT_DEFINITION_RES, eventDefinitionApi, eventDefinitionEntity } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';

/** spec §2: the event definition page has a save button and no form page: add and edit in a dialog. */
export const eventDefinitionCrud = defineArchiveCrud({
  entity: eventDefinitionEntity,
  api: eventDefinitionApi,
  formDialog: EVENT_DEFINITION_RES.add,
});

export const eventDefinitionPages = createCrudPages(eventDefinitionCrud);
