import type { GridNode } from '@meterdesk/contracts';

/** A grid node as /grid/tree answers it; its code from its name, its capacity none unless given. */
export const gridNode = (
  id: string,
  gridName: string,
  parentId: string,
  children: GridNode[] = [],
  extra: Partial<GridNode> = {},
): GridNode => ({
  id,
  gridCode: `G-${gridName.slice(0, 4)}`,
  gridName,
  gridType: 1,
  parentId,
  parentName: '',
  capacity: null,
  primaryPocId: null,
  primaryPocNo: '',
  remark: '',
  createTime: '2024-01-01T00:00:00.000Z',
  updateTime: '2024-01-01T00:00:00.000Z',
  children,
  ...extra,
});
