import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { pageOf } from '../common/paging';
import { RES } from '../permissions';
import {
  ResourceCreateSchema,
  ResourceListQuerySchema,
  ResourceNameCheckSchema,
  ResourceNodeSchema,
  ResourceSchema,
  ResourceUpdateSchema,
} from './resource.schema';

const anyResourcePage = needs(RES.resourceMGT, RES.resourceAdd, RES.resourceEdit);

export const getsysresourcelist = defineOperation({
  path: '/sysresource/getsysresourcelist',
  access: needs(RES.resourceMGT),
  tag: 'resource',
  summary: 'Resources, filtered and paged',
  request: ResourceListQuerySchema,
  response: pageOf(ResourceSchema),
});

export const getsysresourcetree = defineOperation({
  path: '/sysresource/getsysresourcetree',
  // The role form's checkable tree shows the whole tree too.
  access: needs(RES.resourceMGT, RES.resourceAdd, RES.resourceEdit, RES.roleAdd, RES.roleEdit),
  tag: 'resource',
  summary: 'The whole resource tree (parent picker, role assignment)',
  request: z.strictObject({}),
  response: z.array(ResourceNodeSchema),
});

export const getsysresourcedetail = defineOperation({
  path: '/sysresource/getsysresourcedetail',
  access: anyResourcePage,
  tag: 'resource',
  summary: 'One resource',
  request: z.strictObject({ id: IdSchema }),
  response: ResourceSchema,
});

export const savesysresource = defineOperation({
  path: '/sysresource/savesysresource',
  access: needs(RES.resourceAdd),
  tag: 'resource',
  summary: 'Add a resource; names are unique among siblings, the uri is unique',
  request: ResourceCreateSchema,
  response: z.object({ id: IdSchema }),
  audit: 'add',
});

export const updatesysresource = defineOperation({
  path: '/sysresource/updatesysresource',
  access: needs(RES.resourceEdit),
  tag: 'resource',
  summary: 'Edit a resource',
  request: ResourceUpdateSchema,
  response: z.null(),
  audit: 'update',
});

export const deletesysresource = defineOperation({
  path: '/sysresource/deletesysresource',
  access: needs(RES.resourceDelete),
  tag: 'resource',
  summary: 'Delete a resource an administrator added (built-in ones stay) that has no children',
  request: z.strictObject({ id: IdSchema }),
  response: z.null(),
  audit: 'delete',
});

export const checkresourcename = defineOperation({
  path: '/sysresource/checkresourcename',
  access: needs(RES.resourceAdd, RES.resourceEdit),
  tag: 'resource',
  summary: 'Whether a name is already used among the siblings',
  request: ResourceNameCheckSchema,
  response: z.object({ existed: z.boolean() }),
});
