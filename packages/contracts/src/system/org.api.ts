import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { ExistedSchema, nameText } from '../common/validation';
import { RES } from '../permissions';
import { OrgCreateSchema, OrgNodeSchema, OrgSchema, OrgUpdateSchema } from './org.schema';

export const treesysorg = defineOperation({
  path: '/sysorg/treesysorg',
  access: needs(RES.organizationMGT, RES.orgAdd, RES.orgEdit, RES.userMGT, RES.userAdd, RES.userEdit),
  tag: 'organisation',
  summary: 'The organisation tree with the number of users in each',
  request: z.strictObject({}),
  response: z.array(OrgNodeSchema),
});

export const getsysorgdetail = defineOperation({
  path: '/sysorg/getsysorgdetail',
  access: needs(RES.orgDetail, RES.orgEdit),
  tag: 'organisation',
  summary: 'One organisation',
  request: z.strictObject({ id: IdSchema }),
  response: OrgSchema,
});

export const checkorgname = defineOperation({
  path: '/sysorg/checkorgname',
  access: needs(RES.orgAdd, RES.orgEdit),
  tag: 'organisation',
  summary: 'Whether an organisation name is taken (names are unique)',
  request: z.strictObject({ id: IdSchema.optional(), orgName: nameText(50) }),
  response: ExistedSchema,
});

export const savesysorg = defineOperation({
  path: '/sysorg/savesysorg',
  access: needs(RES.orgAdd),
  tag: 'organisation',
  summary: 'Add an organisation',
  request: OrgCreateSchema,
  response: z.object({ id: IdSchema }),
  audit: 'add',
});

export const updatesysorg = defineOperation({
  path: '/sysorg/updatesysorg',
  access: needs(RES.orgEdit),
  tag: 'organisation',
  summary: 'Edit an organisation',
  request: OrgUpdateSchema,
  response: z.null(),
  audit: 'update',
});

export const deletesysorg = defineOperation({
  path: '/sysorg/deletesysorg',
  access: needs(RES.orgDelete),
  tag: 'organisation',
  summary: 'Delete an organisation that has no child organisations and no users',
  request: z.strictObject({ id: IdSchema }),
  response: z.null(),
  audit: 'delete',
});
