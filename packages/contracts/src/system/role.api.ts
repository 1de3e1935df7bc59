import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { pageOf } from '../common/paging';
import { ExistedSchema, nameText } from '../common/validation';
import { RES } from '../permissions';
import { RoleCreateSchema, RoleListQuerySchema, RoleSchema, RoleUpdateSchema } from './role.schema';

export const getsysrolelist = defineOperation({
  path: '/sysrole/getsysrolelist',
  access: needs(RES.roleMGT, RES.userAdd, RES.userEdit),
  tag: 'role',
  summary: 'Roles, filtered and paged',
  request: RoleListQuerySchema,
  response: pageOf(RoleSchema),
});

export const getsysroledetail = defineOperation({
  path: '/sysrole/getsysroledetail',
  access: needs(RES.roleEdit, RES.roleAssignUser),
  tag: 'role',
  summary: 'One role with its resources and users',
  request: z.strictObject({ id: IdSchema }),
  response: RoleSchema,
});

export const checkrolename = defineOperation({
  path: '/sysrole/checkrolename',
  access: needs(RES.roleAdd, RES.roleEdit),
  tag: 'role',
  summary: 'Whether a role name is taken',
  request: z.strictObject({ id: IdSchema.optional(), roleName: nameText(50) }),
  response: ExistedSchema,
});

export const savesysrole = defineOperation({
  path: '/sysrole/savesysrole',
  access: needs(RES.roleAdd),
  tag: 'role',
  summary: 'Add a role with its resources',
  request: RoleCreateSchema,
  response: z.object({ id: IdSchema }),
  audit: 'add',
});

export const updatesysrole = defineOperation({
  path: '/sysrole/updatesysrole',
  access: needs(RES.roleEdit),
  tag: 'role',
  summary: "Edit a role; its users' next request sees the new resources",
  request: RoleUpdateSchema,
  response: z.null(),
  audit: 'update',
});

export const deletesysrole = defineOperation({
  path: '/sysrole/deletesysrole',
  access: needs(RES.roleDelete),
  tag: 'role',
  summary: 'Delete a role that no user has',
  request: z.strictObject({ id: IdSchema }),
  response: z.null(),
  audit: 'delete',
});

export const saveuserrole = defineOperation({
  path: '/sysrole/saveuserrole',
  access: needs(RES.roleAssignUser),
  tag: 'role',
  summary: 'Set the users who have a role (the list replaces the previous one)',
  request: z.strictObject({ roleId: IdSchema, userIdList: z.array(IdSchema).max(10_000, 'tooLong') }),
  response: z.null(),
  audit: 'update',
});
