import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema, ROOT_PARENT_ID } from '../common/ids';
import { contains, equals } from '../common/list';
import { nameText } from '../common/validation';

export const RESOURCE_TYPES = [0, 1, 2, 3] as const;

const resourceType = () =>
  field(z.number('mandatory').int('invalidValue').min(0, 'invalidValue').max(3, 'invalidValue'), {
    label: 'resource.fields.resourceType',
    widget: 'select',
    options: RESOURCE_TYPES.map((value) => ({ value, label: `resource.types.${value}` })),
  });

const resourceName = () => field(nameText(50), { label: 'resource.fields.resourceName', widget: 'text' });
const resourceNameEn = () => field(nameText(50), { label: 'resource.fields.resourceNameEn', widget: 'text' });

export const ParentIdSchema = z.union([z.literal(ROOT_PARENT_ID), IdSchema], 'invalidId');

const fields = {
  resourceName: resourceName(),
  resourceNameEn: resourceNameEn(),
  resourceType: resourceType(),
  resourceUri: field(
    z
      .string('mandatory')
      .trim()
      .min(1, 'mandatory')
      .max(200, 'tooLong')
      .regex(/^(\/[A-Za-z0-9_-]+)+$/, 'formalError'),
    { widget: 'text', help: 'resource.help.resourceUri' },
  ),
  perms: field(z.string().trim().max(100, 'tooLong'), { widget: 'text' }),
  icon: field(z.string().trim().max(50, 'tooLong'), { widget: 'icon' }),
  parentId: field(ParentIdSchema, {
    widget: 'treeSelect',
    lookup: 'resourceTree',
  }),
  orderNum: field(z.number('mandatory').int('invalidValue').min(0, 'outOfRange').max(9999, 'outOfRange'), {
    widget: 'number',
  }),
};

export const ResourceSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    parentName: field(z.string(), { widget: 'text' }),
    parentNameEn: field(z.string(), { widget: 'text' }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Resource = z.infer<typeof ResourceSchema>;

export const ResourceCreateSchema = z.strictObject({
  ...fields,
  perms: fields.perms.default(''),
  icon: fields.icon.default(''),
  orderNum: fields.orderNum.default(0),
});
export type ResourceCreate = z.infer<typeof ResourceCreateSchema>;

export const ResourceUpdateSchema = ResourceCreateSchema.extend({ id: IdSchema });
export type ResourceUpdate = z.infer<typeof ResourceUpdateSchema>;

/** checkresourcename `type`: which of the two names is checked among the siblings. */
export const RESOURCE_NAME_CHECK = { english: 1, chinese: 2 } as const;

export const ResourceNameCheckSchema = z.strictObject({
  id: IdSchema.optional().describe('The record being edited, which may keep its own name'),
  type: z
    .union([z.literal(RESOURCE_NAME_CHECK.english), z.literal(RESOURCE_NAME_CHECK.chinese)])
    .describe('Which name to check: 1 the English name (resourceNameEn), 2 the Chinese name (resourceName)'),
  resourceName: nameText(50),
  parentId: ParentIdSchema.describe('Names are unique among the children of one parent'),
});

export interface ResourceNode {
  id: string;
  resourceName: string;
  resourceNameEn: string;
  resourceType: number;
  resourceUri: string;
  perms: string;
  icon: string;
  parentId: string;
  orderNum: number;
  children: ResourceNode[];
}

export const ResourceNodeSchema: z.ZodType<ResourceNode> = z.object({
  id: IdSchema,
  resourceName: z.string(),
  resourceNameEn: z.string(),
  resourceType: z.number().int(),
  resourceUri: z.string(),
  perms: z.string(),
  icon: z.string(),
  parentId: z.string(),
  orderNum: z.number().int(),
  get children() {
    return z.array(ResourceNodeSchema);
  },
});

export const resourceEntity = defineEntity({
  name: 'resource',
  record: ResourceSchema,
  create: ResourceCreateSchema,
  pagePath: '/sysMGT/resourceMGT',
  columns: [
    { field: 'resourceName', sortable: true },
    { field: 'resourceNameEn', sortable: true },
    { field: 'resourceType', sortable: true, width: 130 },
    { field: 'resourceUri', sortable: true },
    { field: 'parentName' },
    { field: 'orderNum', sortable: true, width: 100 },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [contains('resourceName', 50), contains('resourceNameEn', 50), equals('resourceType', fields.resourceType)],
  form: ['parentId', 'resourceType', 'resourceName', 'resourceNameEn', 'resourceUri', 'perms', 'icon', 'orderNum'],
  detail: ['resourceName', 'resourceNameEn', 'resourceType', 'resourceUri', 'perms', 'icon', 'parentName', 'orderNum'],
});

export const ResourceListQuerySchema = resourceEntity.listQuery;
export type ResourceListQuery = z.infer<typeof ResourceListQuerySchema>;
