import { groupApi, groupEntity } from '@meterdesk/contracts';
import { defineCrud } from '@/crud/crud-config';
import { createCrudPages } from '@/crud/crud-pages';

export const groupCrud = defineCrud({
  entity: groupEntity,
  operations: {
    list: groupApi.getsysgrouplist,
    detail: groupApi.getsysgroupdetail,
    create: groupApi.savesysgroup,
    update: groupApi.updatesysgroup,
    remove: groupApi.deletesysgroup,
  },
  remove: { request: (row) => ({ groupCode: row.groupCode }) },
});

export const groupPages = createCrudPages(groupCrud);
