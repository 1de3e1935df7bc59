import { archiveApi } from '../archive/archive-api';
import { ObisCreateSchema, obisEntity } from './obis.schema';

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

export const obisApi = archiveApi({
  path: 'obis',
  entity: obisEntity,
  create: ObisCreateSchema,
  res: OBIS_RES,
  // One catalogue row per object: the head-end looks items up by code, and plans name them by cgName.
  unique: ['obis', 'cgName'],
});
