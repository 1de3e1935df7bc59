import { SwapOutlined } from '@ant-design/icons';
import { POC_RES, pocApi, pocEntity, pocImportApi } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';
import { showOnMap } from './show-on-map';

export const pocCrud = defineArchiveCrud({
  entity: pocEntity,
  api: pocApi,
  imports: pocImportApi,
  rowActions: [
    showOnMap('poc'),
    {
      key: 'replace',
      icon: <SwapOutlined />,
      permission: POC_RES.replace,
      // Replacing needs a meter to take away; a POC without one gets its meter by editing.
      visible: (row) => row.meterId !== null,
      to: (row) => `${POC_RES.replace}?id=${encodeURIComponent(row.id)}`,
    },
  ],
  related: [
    {
      key: 'replacements',
      title: 'poc.replacement.title',
      operation: pocApi.history,
      request: (record) => ({ id: record.id }),
      columns: [
        'name',
        'oldDevAddr',
        'newDevAddr',
        'oldActiveTotal',
        'oldReactiveTotal',
        'newActiveTotal',
        'newReactiveTotal',
        'changer',
        'changeTime',
      ],
    },
  ],
});

export const pocPages = createCrudPages(pocCrud);
