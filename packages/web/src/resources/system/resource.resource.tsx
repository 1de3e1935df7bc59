import { ROOT_PARENT_ID, resourceApi, resourceEntity } from '@meterdesk/contracts';
import { defineCrud } from '@/crud/crud-config';
import { createCrudPages } from '@/crud/crud-pages';

/** checkresourcename `type`: which of the two names is checked among the siblings. */
const NAME_CHECK = { english: 1, chinese: 2 } as const;

export const resourceCrud = defineCrud({
  entity: resourceEntity,
  operations: {
    list: resourceApi.getsysresourcelist,
    detail: resourceApi.getsysresourcedetail,
    create: resourceApi.savesysresource,
    update: resourceApi.updatesysresource,
  },
  uniqueChecks: {
    operation: resourceApi.checkresourcename,
    dependsOn: ['parentId'],
    fields: {
      resourceNameEn: (value, values, id) =>
        values.parentId ? { id, type: NAME_CHECK.english, resourceName: value, parentId: values.parentId } : undefined,
      resourceName: (value, values, id) =>
        values.parentId ? { id, type: NAME_CHECK.chinese, resourceName: value, parentId: values.parentId } : undefined,
    },
  },
  initialValues: { parentId: ROOT_PARENT_ID },
  overrides: {
    createTime: { widget: 'datetime' },
    updateTime: { widget: 'datetime' },
  },
});

export const resourcePages = createCrudPages(resourceCrud);
