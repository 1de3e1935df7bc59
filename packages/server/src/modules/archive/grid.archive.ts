import {
  type Grid,
  type GridCreate,
  type GridNode,
  gridApi,
  gridEntity,
  PRIMARY_TABLE_NATURE,
  RESULT,
  ROOT_PARENT_ID,
  TRANSFORMER_AREA,
} from '@meterdesk/contracts';
import { and, asc, eq, lte, ne, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import type { Db, Executor } from '../../db/driver';
import { defineList, inSubtree, keyOrder } from '../../db/list';
import { anyRow, type EveryField, iso } from '../../db/rows';
import { commModule, consumer, dcu, meter, poc, powerGrid, sysGroup } from '../../db/schema';
import { registerUniqueIndex } from '../../db/unique';
import { existedError, fieldError } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { registerOperation } from '../../http/operation';
import { GRID_TREE, gridScope, resolveScope, type Scope } from '../../rbac/scope';
import { ArchiveService, defineArchive, registerArchiveRoutes } from './archive-kit';
import { inUseBy } from './references';

const parent = alias(powerGrid, 'grid_parent');

const selectGrids = (db: Executor) =>
  db
    .select({ g: powerGrid, parentName: parent.gridName, primaryPocNo: poc.pocNo })
    .from(powerGrid)
    .leftJoin(parent, eq(parent.id, powerGrid.parentId))
    .leftJoin(poc, eq(poc.id, powerGrid.primaryPocId));

type Row = Awaited<ReturnType<typeof selectGrids>>[number];
type GridRow = typeof powerGrid.$inferSelect;

export const GRID_LIST = defineList({
  entity: gridEntity,
  columns: {
    gridName: powerGrid.gridName,
    gridCode: powerGrid.gridCode,
    gridType: powerGrid.gridType,
  },
  // Upper levels first, as the tree reads.
  defaultOrder: keyOrder({ gridType: powerGrid.gridType, gridCode: powerGrid.gridCode, id: powerGrid.id }),
  tieBreak: powerGrid.id,
});

const toRecord = ({ g, parentName, primaryPocNo }: Row): Grid => ({
  id: g.id,
  gridCode: g.gridCode,
  gridName: g.gridName,
  gridType: g.gridType as Grid['gridType'],
  parentId: g.parentId,
  parentName: parentName ?? '',
  capacity: g.capacity,
  primaryPocId: g.primaryPocId,
  primaryPocNo: primaryPocNo ?? '',
  remark: g.remark,
  createTime: iso(g.createTime),
  updateTime: iso(g.updateTime),
});

const bad = (field: keyof GridCreate, key: Parameters<typeof fieldError>[2]) =>
  fieldError(RESULT.badRequest, field, key);

const inScope = (tx: Executor, scope: Scope, id: string) =>
  anyRow(tx, powerGrid, and(eq(powerGrid.id, id), gridScope(scope, powerGrid.id)));

/**
 * Where the node hangs. Every node a change touches lies in the caller's scope: the new parent
 * and, when the node moves, the parent it leaves. A top node of the scope therefore keeps its
 * parent (outside the scope) when it is edited, and only an administrator works at the root.
 */
async function checkPlace(tx: Executor, scope: Scope, v: GridCreate, id: string, before?: GridRow) {
  const root = v.parentId === ROOT_PARENT_ID;
  if (before?.parentId !== v.parentId) {
    if (root ? !scope.all : !(await inScope(tx, scope, v.parentId))) throw bad('parentId', 'gridNotFound');
    if (before) {
      const leavesScope = before.parentId === ROOT_PARENT_ID || !(await inScope(tx, scope, before.parentId));
      if (!scope.all && leavesScope) throw bad('parentId', 'gridScopeRootFixed');
      const underItself =
        !root &&
        (await anyRow(tx, powerGrid, and(eq(powerGrid.id, v.parentId), inSubtree(powerGrid.id, GRID_TREE, id))));
      if (underItself) throw bad('parentId', 'gridParentCycle');
    }
  }
  if (!root) {
    const [up] = await tx.select({ gridType: powerGrid.gridType }).from(powerGrid).where(eq(powerGrid.id, v.parentId));
    if (up && v.gridType <= up.gridType) throw bad('gridType', 'gridTypeUnderParent');
  }
  if (before && (await anyRow(tx, powerGrid, and(eq(powerGrid.parentId, id), lte(powerGrid.gridType, v.gridType))))) {
    throw bad('gridType', 'gridTypeOverChildren');
  }
  const sibling = and(
    eq(powerGrid.parentId, v.parentId),
    eq(sql`lower(${powerGrid.gridName})`, v.gridName.toLowerCase()),
    ne(powerGrid.id, id),
  );
  if (await anyRow(tx, powerGrid, sibling)) throw existedError(gridEntity, 'gridName');
}

/** A transformer area's primary-table POC: a POC of nature 3 placed in that very area. */
async function checkPrimaryPoc(tx: Executor, v: GridCreate, id: string): Promise<void> {
  if (v.gridType !== TRANSFORMER_AREA) {
    if (v.capacity !== null) throw bad('capacity', 'gridAreaOnly');
    if (v.primaryPocId !== null) throw bad('primaryPocId', 'gridAreaOnly');
    return;
  }
  if (v.primaryPocId === null) return;
  const placed = and(eq(poc.id, v.primaryPocId), eq(poc.gridId, id), eq(poc.nature, PRIMARY_TABLE_NATURE));
  if (!(await anyRow(tx, poc, placed))) throw bad('primaryPocId', 'gridPrimaryPocInvalid');
}

/** The grid nodes themselves: the data scope limits them like every record placed in the grid. */
export const gridArchive = defineArchive({
  entity: gridEntity,
  api: gridApi,
  table: powerGrid,
  list: GRID_LIST,
  select: selectGrids,
  toRecord,
  gridColumn: powerGrid.id,
  toValues: async (v, { tx, scope, id, before }) => {
    await checkPlace(tx, scope, v, id, before?.g);
    await checkPrimaryPoc(tx, v, id);
    return { ...v } satisfies EveryField<GridCreate, typeof powerGrid.$inferInsert>;
  },
  inUse: (tx, ids) =>
    inUseBy(tx, ids, [
      { column: powerGrid.parentId, key: 'gridHasChildren' },
      { column: consumer.gridId, key: 'gridHasConsumers' },
      { column: meter.gridId, key: 'gridHasMeters' },
      { column: commModule.gridId, key: 'gridHasModules' },
      { column: poc.gridId, key: 'gridHasPocs' },
      { column: dcu.gridId, key: 'gridHasDcus' },
      { column: sysGroup.gridId, key: 'gridHasGroups' },
    ]),
});

/** The power grid: the archive calls of its nodes, and the tree the page and every grid picker read. */
export class GridService {
  readonly archive: ArchiveService<typeof gridEntity, Row, Grid, GridCreate, 'gridCode'>;

  constructor(private readonly db: Db) {
    this.archive = new ArchiveService(db, gridArchive);
    // Names are unique among siblings, which the kit's global keys cannot say; the save checks first.
    registerUniqueIndex('power_grid_name_uq', () => existedError(gridEntity, 'gridName'));
  }

  /** The nodes within the caller's scope; a node whose parent lies outside it is a root. */
  async tree(session: SessionContext): Promise<GridNode[]> {
    const scope = await resolveScope(this.db, session.userId);
    const rows = await selectGrids(this.db)
      .where(this.archive.scopeCondition(scope))
      .orderBy(asc(powerGrid.gridName), asc(powerGrid.id));
    const nodes = new Map(rows.map((row) => [row.g.id, { ...toRecord(row), children: [] as GridNode[] }]));
    const roots: GridNode[] = [];
    for (const node of nodes.values()) {
      const up = nodes.get(node.parentId);
      if (up) up.children.push(node);
      else roots.push(node);
    }
    return roots;
  }
}

export function registerGridRoutes(app: FastifyInstance, grids: GridService): void {
  registerArchiveRoutes(app, grids.archive);
  registerOperation(app, gridApi.tree, ({ session }) => grids.tree(session));
}
