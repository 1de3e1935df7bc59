import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { pageOf } from '../common/paging';
import { ExistedSchema, passwordText } from '../common/validation';
import { RES } from '../permissions';
import {
  SimpleUserSchema,
  UserCreateSchema,
  UserListQuerySchema,
  UserSchema,
  UserUpdateSchema,
  usernameText,
} from './user.schema';

export const getsysuserlist = defineOperation({
  path: '/sysuser/getsysuserlist',
  access: needs(RES.userMGT),
  tag: 'user',
  summary: 'Users, filtered and paged',
  request: UserListQuerySchema,
  response: pageOf(UserSchema),
});

export const getsysuserdetail = defineOperation({
  path: '/sysuser/getsysuserdetail',
  access: needs(RES.userDetail, RES.userEdit),
  tag: 'user',
  summary: 'One user',
  request: z.strictObject({ id: IdSchema }),
  response: UserSchema,
});

export const getsimplesysuserlist = defineOperation({
  path: '/sysuser/getsimplesysuserlist',
  access: needs(RES.userMGT, RES.roleAssignUser, RES.noticeSend, RES.noticeAnnouncement),
  tag: 'user',
  summary: 'Every user, id and names only (pickers)',
  request: z.strictObject({}),
  response: z.array(SimpleUserSchema),
});

export const checkusername = defineOperation({
  path: '/sysuser/checkusername',
  access: needs(RES.userAdd, RES.userEdit),
  tag: 'user',
  summary: 'Whether a username is taken',
  request: z.strictObject({ id: IdSchema.optional(), username: usernameText() }),
  response: ExistedSchema,
});

export const savesysuser = defineOperation({
  path: '/sysuser/savesysuser',
  access: needs(RES.userAdd),
  tag: 'user',
  summary: 'Add a user; the user changes the given password at the first login',
  request: UserCreateSchema,
  response: z.object({ id: IdSchema }),
  audit: 'add',
});

export const updatesysuser = defineOperation({
  path: '/sysuser/updatesysuser',
  access: needs(RES.userEdit),
  tag: 'user',
  summary: "Edit a user; disabling or locking ends the user's sessions at once",
  request: UserUpdateSchema,
  response: z.null(),
  audit: 'update',
});

export const deletesysuser = defineOperation({
  path: '/sysuser/deletesysuser',
  access: needs(RES.userDelete),
  tag: 'user',
  summary: "Delete a user and end the user's sessions",
  request: z.strictObject({ id: IdSchema, username: usernameText() }),
  response: z.null(),
  audit: 'delete',
});

export const unlocksysuser = defineOperation({
  path: '/sysuser/unlocksysuser',
  access: needs(RES.userUnlock),
  tag: 'user',
  summary: 'Unlock a user locked after failed logins',
  request: z.strictObject({ id: IdSchema }),
  response: z.null(),
  audit: 'update',
});

export const resetsysuserpassword = defineOperation({
  path: '/sysuser/resetsysuserpassword',
  access: needs(RES.userResetPassword),
  tag: 'user',
  summary: "Set a new password that the user must change at the next login; ends the user's sessions",
  request: z.strictObject({ id: IdSchema, newPassword: passwordText() }),
  response: z.null(),
  audit: 'update',
});
