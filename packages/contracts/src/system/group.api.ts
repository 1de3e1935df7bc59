import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { pageOf } from '../common/paging';
import { codeText } from '../common/validation';
import { RES } from '../permissions';
import { GroupCreateSchema, GroupListQuerySchema, GroupSchema, GroupUpdateSchema } from './group.schema';

export const getsysgrouplist = defineOperation({
  path: '/sysgroup/getsysgrouplist',
  access: needs(RES.userGroupMGT, RES.userAdd, RES.userEdit),
  tag: 'group',
  summary: 'User groups, filtered and paged',
  request: GroupListQuerySchema,
  response: pageOf(GroupSchema),
});

export const getsysgroupdetail = defineOperation({
  path: '/sysgroup/getsysgroupdetail',
  access: needs(RES.groupEdit),
  tag: 'group',
  summary: 'One user group',
  request: z.strictObject({ id: IdSchema }),
  response: GroupSchema,
});

export const savesysgroup = defineOperation({
  path: '/sysgroup/savesysgroup',
  access: needs(RES.groupAdd),
  tag: 'group',
  summary: 'Add a user group; name and code are unique',
  request: GroupCreateSchema,
  response: z.object({ id: IdSchema }),
  audit: 'add',
});

export const updatesysgroup = defineOperation({
  path: '/sysgroup/updatesysgroup',
  access: needs(RES.groupEdit),
  tag: 'group',
  summary: 'Edit a user group',
  request: GroupUpdateSchema,
  response: z.null(),
  audit: 'update',
});

export const deletesysgroup = defineOperation({
  path: '/sysgroup/deletesysgroup',
  access: needs(RES.groupDelete),
  tag: 'group',
  summary: 'Delete a user group that no user belongs to',
  request: z.strictObject({ groupCode: codeText(50) }),
  response: z.null(),
  audit: 'delete',
});
