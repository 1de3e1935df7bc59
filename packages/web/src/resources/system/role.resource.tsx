import { TeamOutlined } from '@ant-design/icons';
import { RES, roleApi, roleEntity } from '@meterdesk/contracts';
import { defineCrud } from '@/crud/crud-config';
import { createCrudPages } from '@/crud/crud-pages';

export const roleCrud = defineCrud({
  entity: roleEntity,
  operations: {
    list: roleApi.getsysrolelist,
    detail: roleApi.getsysroledetail,
    create: roleApi.savesysrole,
    update: roleApi.updatesysrole,
    remove: roleApi.deletesysrole,
  },
  // The server refuses it too (builtInRole); the button would only lead to that refusal.
  remove: { removable: (row) => !row.builtIn },
  uniqueChecks: {
    operation: roleApi.checkrolename,
    fields: { roleName: (roleName, _values, id) => ({ id, roleName }) },
  },
  rowActions: [
    {
      key: 'assignUser',
      icon: <TeamOutlined />,
      permission: RES.roleAssignUser,
      to: (row) => `${RES.roleAssignUser}?id=${encodeURIComponent(row.id)}`,
    },
  ],
});

export const rolePages = createCrudPages(roleCrud);
