import { KeyOutlined } from '@ant-design/icons';
import { DCU_RES, dcuApi, dcuEntity, dcuImportApi } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';
import { DcuRevealDialog } from './dcu-reveal-dialog';
import { showOnMap } from './show-on-map';

export const dcuCrud = defineArchiveCrud({
  entity: dcuEntity,
  api: dcuApi,
  imports: dcuImportApi,
  formSections: {
    dcuNo: 'dcu.sections.basic',
    llsLevel: 'dcu.sections.security',
    taskEnabled: 'dcu.sections.task',
  },
  rowActions: [
    showOnMap('dcu'),
    {
      key: 'reveal',
      icon: <KeyOutlined />,
      permission: DCU_RES.reveal,
      // Only a DCU with a key stored has anything to reveal.
      visible: (row) => row.llsKeySet || row.hlsAuthKeySet || row.hlsEncKeySet || row.hlsAuthEncKeySet,
      Dialog: DcuRevealDialog,
    },
  ],
});

export const dcuPages = createCrudPages(dcuCrud);
