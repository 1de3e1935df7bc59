import { EnvironmentOutlined } from '@ant-design/icons';
import { GIS_RES, type LocatableKind } from '@meterdesk/contracts';
import type { RowAction } from '@/crud/crud-config';

/** The map page's parameter naming the record it opens centred on: `<kind>:<id>`. */
export const FOCUS_PARAM = 'focus';

export const focusPath = (kind: LocatableKind, id: string) =>
  `${GIS_RES}?${new URLSearchParams({ [FOCUS_PARAM]: `${kind}:${id}` })}`;

/**
 * "Show on map" on a record's detail page (test id `detail-showOnMap`): the GIS page opens centred on
 * it with its popup, or says it is not on the map. Offered to a user who may open the map.
 */
export const showOnMap = (
  kind: LocatableKind,
): Pick<RowAction, 'key' | 'label' | 'icon' | 'permission' | 'detailOnly'> & {
  to: (row: { id: string }) => string;
} => ({
  key: 'showOnMap',
  label: 'liveState.showOnMap',
  icon: <EnvironmentOutlined />,
  permission: GIS_RES,
  detailOnly: true,
  to: (row) => focusPath(kind, row.id),
});
