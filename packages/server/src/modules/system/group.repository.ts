import { type Group, type GroupCreate, type GroupListQuery, groupEntity } from '@meterdesk/contracts';
import { and, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { defineList, listPage, selectSource } from '../../db/list';
import { anyRow, countAll, iso, qualified } from '../../db/rows';
import { powerGrid, sysGroup, sysUserGroup } from '../../db/schema';

const userCount =
  sql<number>`(select count(*) from sys_user_group ug where ug.group_id = ${qualified(sysGroup.id)})`.mapWith(Number);
export const GROUP_LIST = defineList({
  entity: groupEntity,
  columns: {
    groupName: sysGroup.groupName,
    groupCode: sysGroup.groupCode,
    gridName: powerGrid.gridName,
    updateTime: sysGroup.updateTime,
  },
  defaultOrder: sql`${sysGroup.groupName} asc`,
  tieBreak: sysGroup.id,
});

export class GroupRepository {
  constructor(private readonly db: Executor) {}

  private select() {
    return this.db
      .select({ g: sysGroup, gridName: powerGrid.gridName, userCount })
      .from(sysGroup)
      .innerJoin(powerGrid, eq(powerGrid.id, sysGroup.gridId));
  }

  private toGroup = ({
    g,
    gridName,
    userCount: count,
  }: {
    g: typeof sysGroup.$inferSelect;
    gridName: string;
    userCount: number;
  }): Group => ({
    id: g.id,
    groupName: g.groupName,
    groupCode: g.groupCode,
    gridId: g.gridId,
    gridName,
    remark: g.remark,
    userCount: count,
    createTime: iso(g.createTime),
    updateTime: iso(g.updateTime),
  });

  list(q: GroupListQuery) {
    return listPage(
      GROUP_LIST,
      q,
      selectSource(this.db, {
        select: () => this.select(),
        map: this.toGroup,
        countFrom: async (where) =>
          (
            await this.db
              .select({ total: countAll() })
              .from(sysGroup)
              .innerJoin(powerGrid, eq(powerGrid.id, sysGroup.gridId))
              .where(where)
          )[0]?.total ?? 0,
      }),
    );
  }

  async detail(id: string): Promise<Group | undefined> {
    const [row] = await this.select().where(eq(sysGroup.id, id));
    return row && this.toGroup(row);
  }

  async findByCode(code: string) {
    const [row] = await this.db.select().from(sysGroup).where(eq(sysGroup.groupCode, code));
    return row;
  }

  exists(id: string) {
    return anyRow(this.db, sysGroup, eq(sysGroup.id, id));
  }

  gridExists(id: string, scope: SQL | undefined) {
    return anyRow(this.db, powerGrid, and(eq(powerGrid.id, id), scope));
  }

  taken(column: 'groupName' | 'groupCode', value: string, exceptId?: string) {
    return anyRow(
      this.db,
      sysGroup,
      and(eq(sql`lower(${sysGroup[column]})`, value.toLowerCase()), exceptId ? ne(sysGroup.id, exceptId) : undefined),
    );
  }

  hasUsers(id: string) {
    return anyRow(this.db, sysUserGroup, eq(sysUserGroup.groupId, id));
  }

  async insert(id: string, v: GroupCreate) {
    await this.db.insert(sysGroup).values({ id, ...v });
  }

  async update(id: string, v: GroupCreate) {
    await this.db
      .update(sysGroup)
      .set({ ...v, updateTime: new Date() })
      .where(eq(sysGroup.id, id));
  }

  async delete(id: string) {
    await this.db.delete(sysGroup).where(eq(sysGroup.id, id));
  }
}
