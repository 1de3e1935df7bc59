import { RESOURCE_NAME_CHECK, ROOT_PARENT_ID, resourceApi, resourceEntity } from '@meterdesk/contracts';
import { defineCrud } from '@/crud/crud-config';
import { createCrudPages } from '@/crud/crud-pages';

export const resourceCrud = defineCrud({
  entity: resourceEntity,
  operations: {
    list: resourceApi.getsysresourcelist,
    detail: resourceApi.getsysresourcedetail,
    create: resourceApi.savesysresource,
    update: resourceApi.updatesysresource,
    remove: resourceApi.deletesysresource,
  },
  uniqueChecks: {
    operation: resourceApi.checkresourcename,
    dependsOn: ['parentId'],
    fields: {
      resourceNameEn: (value, values, id) =>
        values.parentId
          ? { id, type: RESOURCE_NAME_CHECK.english, resourceName: value, parentId: values.parentId }
          : undefined,
      resourceName: (value, values, id) =>
        values.parentId
          ? { id, type: RESOURCE_NAME_CHECK.chinese, resourceName: value, parentId: values.parentId }
          : undefined,
    },
  },
  initialValues: { parentId: ROOT_PARENT_ID },
  englishNames: { parentName: 'parentNameEn' },
});

export const resourcePages = createCrudPages(resourceCrud);
