import { FIRMWARE_RES, type Firmware, firmwareApi, firmwareEntity } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { CrudDetailPage } from '@/crud/crud-detail';
import { createCrudPages } from '@/crud/crud-pages';
import { CampaignPanelOf } from '@/pages/firmware/firmware-detail';
import { FirmwareImageInput } from '@/pages/firmware/firmware-image-input';

/**
 * spec §2 meterUpgrade: the firmware list (export, refresh, delete), add and edit with the image upload,
 * the detail with its campaigns (Upgrade with the `start` button), and Associated.
 */
export const firmwareCrud = defineArchiveCrud({
  entity: firmwareEntity,
  api: firmwareApi,
  inputs: { imageId: FirmwareImageInput },
  rowActions: [
    {
      key: 'associated',
      label: 'firmware.actions.associated',
      permission: FIRMWARE_RES.associated,
      to: (row: Firmware) => `${FIRMWARE_RES.associated}?id=${row.id}`,
      onDetail: true,
    },
    {
      key: 'upgrade',
      label: 'firmware.actions.upgrade',
      permission: FIRMWARE_RES.start,
      to: (row: Firmware) => `${FIRMWARE_RES.detail}?id=${row.id}`,
    },
  ],
});

export const firmwarePages = {
  ...createCrudPages(firmwareCrud),
  detail: () => (
    <CrudDetailPage crud={firmwareCrud}>
      <CampaignPanelOf />
    </CrudDetailPage>
  ),
};
