import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals, subtree } from '../common/list';
import { dateText, dateTimeText, emailText, passwordText, phoneText } from '../common/validation';

export const USER_STATUSES = ['enabled', 'notEnabled', 'disabled', 'locking'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
export const GENDERS = [0, 1, 2] as const;

/** Letters, digits and `_ . -`: a username also names the user's broker topics, so `/ + #` are out. */
export const usernameText = () =>
  z
    .string('mandatory')
    .trim()
    .min(1, 'mandatory')
    .max(50, 'tooLong')
    .regex(/^[A-Za-z0-9_.-]+$/, 'formalError');

const fields = {
  username: field(usernameText(), { widget: 'text', unique: true }),
  fullName: field(z.string().trim().max(100, 'tooLong').default(''), { widget: 'text' }),
  orgId: field(IdSchema, { widget: 'treeSelect', lookup: 'orgTree' }),
  roleIdList: field(z.array(IdSchema).max(50, 'tooLong').default([]), {
    widget: 'select',
    lookup: 'roles',
    multiple: true,
  }),
  groupCodeList: field(z.array(z.string().max(50)).max(50, 'tooLong').default([]), {
    widget: 'select',
    lookup: 'groups',
    multiple: true,
    emptyWarning: 'user.noGroupWarning',
  }),
  status: field(z.enum(USER_STATUSES, 'invalidValue').default('enabled'), {
    widget: 'select',
    options: USER_STATUSES.map((value) => ({ value, label: `user.statuses.${value}` })),
  }),
  expiryDate: field(dateTimeText().default(''), { widget: 'datetime' }),
  gender: field(
    z
      .union(
        GENDERS.map((g) => z.literal(g)),
        'invalidValue',
      )
      .default(0),
    {
      widget: 'select',
      options: GENDERS.map((value) => ({ value, label: `user.genders.${value}` })),
    },
  ),
  birthday: field(dateText().default(''), { widget: 'date' }),
  phone: field(phoneText().default(''), { widget: 'text' }),
  email: field(emailText().default(''), { widget: 'text' }),
  address: field(z.string().trim().max(200, 'tooLong').default(''), { widget: 'text' }),
  remark: field(z.string().trim().max(500, 'tooLong').default(''), { widget: 'textarea' }),
};

export const UserSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    orgName: field(z.string(), { widget: 'text' }),
    roleNames: field(z.string(), { widget: 'text' }),
    groupNames: field(z.string(), { widget: 'text' }),
    lockedUntil: field(z.string(), { widget: 'datetime' }),
    mustChangePassword: z.boolean(),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type User = z.infer<typeof UserSchema>;

export const UserCreateSchema = z.strictObject({
  ...fields,
  password: field(passwordText(), { label: 'user.fields.password', widget: 'password' }),
});
export type UserCreate = z.infer<typeof UserCreateSchema>;

/** The password is not edited here: an administrator resets it with its own call. */
export const UserUpdateSchema = z.strictObject({ ...fields, id: IdSchema });
export type UserUpdate = z.infer<typeof UserUpdateSchema>;

export const SimpleUserSchema = z.object({
  id: IdSchema,
  username: z.string(),
  fullName: z.string(),
  email: z.string(),
});

export const userEntity = defineEntity({
  name: 'user',
  record: UserSchema,
  create: UserCreateSchema,
  pagePath: '/sysMGT/userMGT',
  columns: [
    { field: 'username', sortable: true },
    { field: 'fullName', sortable: true },
    { field: 'orgName' },
    { field: 'roleNames' },
    { field: 'status', sortable: true, width: 120 },
    { field: 'phone' },
    { field: 'email' },
    { field: 'expiryDate', sortable: true, width: 180 },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [
    contains('username', 50),
    contains('fullName', 100),
    equals('status', z.enum(USER_STATUSES, 'invalidValue')),
    subtree('orgId'),
    contains('phone', 30),
  ],
  form: [
    'username',
    'fullName',
    'orgId',
    'roleIdList',
    'groupCodeList',
    'status',
    'expiryDate',
    'gender',
    'birthday',
    'phone',
    'email',
    'address',
    'remark',
  ],
  detail: [
    'username',
    'fullName',
    'orgName',
    'roleNames',
    'groupNames',
    'status',
    'lockedUntil',
    'expiryDate',
    'gender',
    'birthday',
    'phone',
    'email',
    'address',
    'remark',
    'createTime',
    'updateTime',
  ],
});

export const UserListQuerySchema = userEntity.listQuery;
export type UserListQuery = z.infer<typeof UserListQuerySchema>;
