import { ToolOutlined } from '@ant-design/icons';
import { METER_RES, METER_STATUS_TRANSITIONS, meterApi, meterEntity, meterImportApi } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';
import { MeterDetailPage } from '@/pages/archive/meter-detail.page';
import { LinkStateCell, RelayStateCell } from '@/pages/archive/meter-live-cells';
import { showOnMap } from './show-on-map';

export const meterCrud = defineArchiveCrud({
  entity: meterEntity,
  api: meterApi,
  imports: meterImportApi,
  // A meter starts its life cycle where the user says; afterwards only maintain moves it.
  createFields: ['status'],
  secretFields: ['hesPassword'],
  cells: { linkState: LinkStateCell, relayState: RelayStateCell },
  // The online column follows the meter's link and, behind a DCU, the DCU's.
  liveRows: (row, change) =>
    (change.change === 'online' || change.change === 'offline') &&
    (change.kind === 'meter' ? change.id === row.id : change.id === row.dcuId),
  stackedColumns: [
    ['linkState', 'lastCommTime'],
    ['relayState', 'lastReading'],
    ['consumerName', 'pocNo'],
    ['meterTypeName', 'moduleNo'],
  ],
  rowActions: [
    showOnMap('meter'),
    {
      key: 'maintain',
      icon: <ToolOutlined />,
      permission: METER_RES.maintain,
      // A recycled meter has nowhere left to go.
      visible: (row) => METER_STATUS_TRANSITIONS[row.status].length > 0,
      to: (row) => `${METER_RES.maintain}?id=${encodeURIComponent(row.id)}`,
    },
  ],
});

export const meterPages = { ...createCrudPages(meterCrud), detail: () => <MeterDetailPage crud={meterCrud} /> };
