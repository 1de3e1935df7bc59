import { PlusOutlined } from '@ant-design/icons';
import { orgApi, orgEntity, RES, ROOT_PARENT_ID } from '@meterdesk/contracts';
import { defineCrud } from '@/crud/crud-config';
import { createCrudPages } from '@/crud/crud-pages';

export const orgCrud = defineCrud({
  entity: orgEntity,
  operations: {
    tree: orgApi.treesysorg,
    detail: orgApi.getsysorgdetail,
    create: orgApi.savesysorg,
    update: orgApi.updatesysorg,
    remove: orgApi.deletesysorg,
  },
  uniqueChecks: {
    operation: orgApi.checkorgname,
    fields: { orgName: (orgName, _values, id) => ({ id, orgName }) },
  },
  initialValues: { pid: ROOT_PARENT_ID },
  rowActions: [
    {
      key: 'addChild',
      icon: <PlusOutlined />,
      permission: RES.orgAdd,
      to: (row) => `${RES.orgAdd}?pid=${encodeURIComponent(row.id)}`,
    },
  ],
});

export const orgPages = createCrudPages(orgCrud);
