import { KeyOutlined, UnlockOutlined } from '@ant-design/icons';
import { RES, userApi, userEntity } from '@meterdesk/contracts';
import { defineCrud } from '@/crud/crud-config';
import { createCrudPages } from '@/crud/crud-pages';
import { ResetPasswordDialog } from './reset-password-dialog';

export const userCrud = defineCrud({
  entity: userEntity,
  operations: {
    list: userApi.getsysuserlist,
    detail: userApi.getsysuserdetail,
    create: userApi.savesysuser,
    update: userApi.updatesysuser,
    remove: userApi.deletesysuser,
  },
  remove: { request: (row) => ({ id: row.id, username: row.username }) },
  uniqueChecks: {
    operation: userApi.checkusername,
    fields: { username: (username, _values, id) => ({ id, username }) },
  },
  // The initial password is set once, here; later only an administrator's reset changes it.
  createFields: ['password'],
  rowActions: [
    {
      key: 'unlock',
      icon: <UnlockOutlined />,
      permission: RES.userUnlock,
      visible: (row) => row.status === 'locking',
      run: {
        operation: userApi.unlocksysuser,
        request: (row) => ({ id: row.id }),
        confirm: 'user.confirmUnlock',
        done: 'user.unlocked',
      },
    },
    { key: 'resetPassword', icon: <KeyOutlined />, permission: RES.userResetPassword, Dialog: ResetPasswordDialog },
  ],
});

export const userPages = createCrudPages(userCrud);
