import { archiveApi } from '../archive/archive-api';
import { needs } from '../common/operation';
import { OPERATION_RESOURCES } from '../operations/operations';
import { ObisCreateSchema, obisEntity } from './obis.schema';
import { paramTemplateEntity } from './param-template.schema';

const page = obisEntity.pagePath;

/**
 * The resources of spec §2's OBIS page: its list (also on the hidden page `obis`, the OBIS list),
 * `addObis` (add and edit share the form), `viewObis` (the detail), and the delete and export buttons.
 */
export const OBIS_RES = {
  page,
  list: `${page}/obis`,
  add: `${page}/addObis`,
  edit: `${page}/addObis`,
  detail: `${page}/viewObis`,
  delete: `${page}/delete`,
  export: `${page}/export`,
} as const;

const archive = archiveApi({
  path: 'obis',
  entity: obisEntity,
  create: ObisCreateSchema,
  res: OBIS_RES,
  // One catalogue row per object: the head-end looks items up by code, and plans name them by cgName.
});

export const obisApi = {
  ...archive,
  // A real-time read offers the items read instantly, a parameter sync the channels, a parameter template
  // the items flagged setting channel: whoever may run one, or save a template, reads the list.
  list: {
    ...archive.list,
    access: needs(OBIS_RES.page, ...OPERATION_RESOURCES, `${paramTemplateEntity.pagePath}/save`),
  },
};
