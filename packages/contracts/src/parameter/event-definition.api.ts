import { archiveApi, optionsApi } from '../archive/archive-api';
import { EventDefinitionCreateSchema, eventDefinitionEntity } from './event-definition.schema';

const page = eventDefinitionEntity.pagePath;

/**
 * spec §2 gives the event definition page one button, `save`, for adding and editing (in a dialog on
 * the list); delete and export are buttons of their own, as on every other list.
 */
export const EVENT_DEFINITION_RES = {
  page,
  add: `${page}/save`,
  edit: `${page}/save`,
  detail: page,
  delete: `${page}/delete`,
  export: `${page}/export`,
} as const;

export const eventDefinitionApi = {
  ...archiveApi({
    path: 'eventDefinition',
    entity: eventDefinitionEntity,
    create: EventDefinitionCreateSchema,
    res: EVENT_DEFINITION_RES,
  }),
  options: optionsApi('eventDefinition', eventDefinitionEntity.name, {
    searches: 'name',
    // The higher-level event of a definition is another definition.
    pickedBy: [page],
  }),
};
