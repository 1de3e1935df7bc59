import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { codeText, nameText, optionalNumber, optionalText } from '../common/validation';
import { GRID_TYPES } from '../system/group.schema';
import { ParentIdSchema } from '../system/resource.schema';
import { choice } from './enums';

/** The largest capacity a transformer area may declare, in kVA (far above any distribution transformer). */
export const MAX_GRID_CAPACITY = 1_000_000;

const fields = {
  gridCode: field(codeText(50), { widget: 'text', unique: true }),
  gridName: field(nameText(50), { widget: 'text' }),
  gridType: choice('grid', 'gridType', 'types', GRID_TYPES),
  parentId: field(ParentIdSchema, { widget: 'treeSelect', lookup: 'gridTree' }),
  capacity: field(optionalNumber(0, MAX_GRID_CAPACITY), {
    widget: 'number',
    help: 'grid.help.capacity',
  }),
  /**
   * A transformer area's primary-table POC: one of nature 3 placed in that very area, so an area gets
   * one once it is saved and holds POCs.
   */
  primaryPocId: field(IdSchema.nullable().default(null), {
    widget: 'select',
    lookup: 'primaryTablePocs',
    lookupWith: { gridId: 'id' },
    help: 'grid.help.primaryPocId',
  }),
  remark: field(optionalText(500), { widget: 'textarea' }),
};

export const GridSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    parentName: field(z.string(), { widget: 'text' }),
    primaryPocNo: field(z.string(), { widget: 'text' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Grid = z.infer<typeof GridSchema>;

/** A grid node with the nodes below it: the tree page and every grid picker read it. */
export interface GridNode extends Grid {
  children: GridNode[];
}
export const GridNodeSchema: z.ZodType<GridNode> = GridSchema.extend({
  get children() {
    return z.array(GridNodeSchema);
  },
});

export const GridCreateSchema = z.strictObject(fields);
export type GridCreate = z.infer<typeof GridCreateSchema>;

export const gridEntity = defineEntity({
  name: 'grid',
  record: GridSchema,
  create: GridCreateSchema,
  pagePath: '/archiveSetting/powerGrid',
  columns: [
    { field: 'gridName', sortable: true },
    { field: 'gridCode', sortable: true, width: 120 },
    { field: 'gridType', sortable: true, width: 150 },
    // The tree shows the parent by nesting; an export needs it spelled out.
    { field: 'parentName', width: 170 },
    { field: 'capacity', width: 130 },
    { field: 'primaryPocNo', width: 160 },
    { field: 'remark' },
  ],
  // The page shows the whole tree in one answer, which takes no filters.
  filters: [],
  form: ['parentId', 'gridCode', 'gridName', 'gridType', 'capacity', 'primaryPocId', 'remark'],
  detail: [
    'gridCode',
    'gridName',
    'gridType',
    'parentName',
    'capacity',
    'primaryPocNo',
    'remark',
    'createTime',
    'updateTime',
  ],
});
export type GridListQuery = z.infer<typeof gridEntity.listQuery>;
