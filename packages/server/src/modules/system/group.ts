import { type Group, type GroupCreate, groupApi, groupEntity, RESULT } from '@meterdesk/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { anyRow, lookup, qualified } from '../../db/rows';
import { powerGrid, sysGroup, sysUserGroup } from '../../db/schema';
import { ApiError, fieldError, notFound } from '../../errors/api-error';
import { registerOperation } from '../../http/operation';
import { gridScope } from '../../rbac/scope';
import { ArchiveService, defineArchive, registerArchiveRoutes, type ShownRow } from '../archive/archive-kit';

const userCount = sql<number>`(select count(*) from ${sysUserGroup} where ${sysUserGroup.groupId} = ${qualified(sysGroup.id)})`;
const shown = {
  gridName: lookup<string>(powerGrid.gridName, powerGrid.id, sysGroup.gridId),
  userCount: userCount.mapWith(Number),
};
type Row = ShownRow<typeof sysGroup, typeof shown>;
const { getsysgrouplist: list, getsysgroupdetail: detail, savesysgroup: save, updatesysgroup: update } = groupApi;

/** User groups: every user-management page sees them all; a group's grid is its members' data scope. */
const groupDefinition = defineArchive<typeof groupEntity, typeof sysGroup, Row, Group, GroupCreate>({
  entity: groupEntity,
  api: { list, detail, save, update },
  table: sysGroup,
  paging: 'numbered',
  shown,
  // A caller hands out only grid nodes they reach.
  toValues: async (input, { tx, scope }) => {
    if (!(await anyRow(tx, powerGrid, and(eq(powerGrid.id, input.gridId), gridScope(scope, powerGrid.id)))))
      throw fieldError(RESULT.badRequest, 'gridId', 'gridNotFound');
    return { ...input };
  },
});

export class GroupService extends ArchiveService<
  typeof groupEntity,
  Row,
  Group,
  GroupCreate,
  'groupName' | 'groupCode'
> {
  constructor(db: Db) {
    super(db, groupDefinition);
  }

  /** Deletes the group named by its code, unless a user still belongs to it. */
  async deleteByCode(groupCode: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [group] = await tx.select().from(sysGroup).where(eq(sysGroup.groupCode, groupCode));
      if (!group) throw notFound();
      if (await anyRow(tx, sysUserGroup, eq(sysUserGroup.groupId, group.id)))
        throw new ApiError(RESULT.conflict, 'groupHasUsers');
      await tx.delete(sysGroup).where(eq(sysGroup.id, group.id));
    });
  }
}

/** The list, detail, add and edit calls as the kit wires them; delete names the group by its code. */
export function registerGroupRoutes(app: FastifyInstance, service: GroupService): void {
  registerArchiveRoutes(app, service);
  registerOperation(app, groupApi.deletesysgroup, async ({ body }) => {
    await service.deleteByCode(body.groupCode);
    return null;
  });
}
