import { PlusOutlined } from '@ant-design/icons';
import { GRID_RES, gridApi, gridEntity, ROOT_PARENT_ID, TRANSFORMER_AREA } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';

export const gridCrud = defineArchiveCrud({
  entity: gridEntity,
  api: gridApi,
  tree: gridApi.tree,
  initialValues: { parentId: ROOT_PARENT_ID },
  rowActions: [
    {
      key: 'addChild',
      icon: <PlusOutlined />,
      permission: GRID_RES.add,
      // A transformer area is the last level: nothing sits below it.
      visible: (row) => row.gridType < TRANSFORMER_AREA,
      to: (row) => `${GRID_RES.add}?parentId=${encodeURIComponent(row.id)}`,
    },
  ],
});

export const gridPages = createCrudPages(gridCrud);
