import { z } from 'zod';
import { defineOperation, needs } from '../common/operation';
import { LIVE_DEVICE_RESOURCES } from '../common/topics';
import { SCHEDULED_TASK_FORMS } from '../operations/plan.api';
import { RES } from '../permissions';
import { archiveApi, archiveResources } from './archive-api';
import { GridCreateSchema, GridNodeSchema, gridEntity } from './grid.schema';

const page = gridEntity.pagePath;

/**
 * The power grid page has no detail page: its tree already shows every field, so whoever sees the
 * page (or edits a node) may read one node.
 */
export const GRID_RES = { ...archiveResources(page), detail: page };

/** Every page that picks a grid node or filters by one, with the forms that pick. */
const ARCHIVE_PICKERS = ['consumer', 'meter', 'module', 'poc', 'DCU'].flatMap((name) => {
  const uri = `/archiveSetting/${name}`;
  return [uri, `${uri}/add`, `${uri}/edit`];
});

export const gridApi = {
  ...archiveApi({
    path: 'powergrid',
    entity: gridEntity,
    create: GridCreateSchema,
    res: GRID_RES,
    // Names are unique among siblings only, which the save answers (409 on gridName).
  }),
  tree: defineOperation({
    path: '/powergrid/tree',
    access: needs(
      page,
      GRID_RES.add,
      GRID_RES.edit,
      ...ARCHIVE_PICKERS,
      '/archiveSetting/gis',
      // Batch operation filters its meters by grid node.
      '/serviceRequest/batchOperation',
      // Collection templates and tasks filter their meters by grid node.
      ...SCHEDULED_TASK_FORMS,
      // The collection report picks the node it reports on.
      '/report/dataCollectionReport',
      // The general and shopping-center reports are built for a grid node.
      '/paymentMGT/generalReport',
      '/paymentMGT/shoppingCenterReport',
      RES.userGroupMGT,
      RES.groupAdd,
      RES.groupEdit,
      // A page following live device changes across the caller's scope subscribes to its top nodes.
      ...LIVE_DEVICE_RESOURCES,
    ),
    tag: gridEntity.name,
    summary:
      "The grid nodes within the caller's scope as a tree (the power grid page and every grid picker); " +
      'a node whose parent lies outside the scope is a root',
    request: z.strictObject({}),
    response: z.array(GridNodeSchema),
  }),
};
