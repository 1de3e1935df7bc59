import { type Role, type RoleCreate, type RoleListQuery, roleEntity } from '@meterdesk/contracts';
import { and, eq, inArray, ne, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { replaceLinks } from '../../db/links';
import { defineList, listPage, selectSource } from '../../db/list';
import { anyRow, countAll, iso, qualified } from '../../db/rows';
import { sysResource, sysRole, sysRoleResource, sysUser, sysUserRole } from '../../db/schema';

const resourceIds = sql<
  string[]
>`coalesce((select array_agg(rr.resource_id order by rr.resource_id) from sys_role_resource rr where rr.role_id = ${qualified(sysRole.id)}), '{}')`;
/** The role's users the caller reaches: a member outside the caller's organisations stays unnamed. */
const userIdsWithin = (scope: SQL | undefined) =>
  sql<
    string[]
  >`coalesce((select array_agg(ur.user_id order by ur.user_id) from sys_user_role ur join sys_user member on member.id = ur.user_id where ur.role_id = ${qualified(sysRole.id)} and ${scope ?? sql`true`}), '{}')`;
export const ROLE_LIST = defineList({
  entity: roleEntity,
  columns: { roleName: sysRole.roleName, updateTime: sysRole.updateTime },
  defaultOrder: sql`${sysRole.roleName} asc`,
  tieBreak: sysRole.id,
});

export class RoleRepository {
  constructor(private readonly db: Executor) {}

  /** `memberScope` limits the listed users, written against the `member` alias of sys_user. */
  private select(memberScope: SQL | undefined) {
    return this.db
      .select({ r: sysRole, resourceIdList: resourceIds, userIdList: userIdsWithin(memberScope) })
      .from(sysRole);
  }

  private toRole = ({
    r,
    resourceIdList,
    userIdList,
  }: {
    r: typeof sysRole.$inferSelect;
    resourceIdList: string[];
    userIdList: string[];
  }): Role => ({
    id: r.id,
    roleName: r.roleName,
    remark: r.remark,
    builtIn: r.builtIn,
    resourceIdList,
    userIdList,
    userCount: userIdList.length,
    createTime: iso(r.createTime),
    updateTime: iso(r.updateTime),
  });

  list(q: RoleListQuery, memberScope: SQL | undefined) {
    return listPage(
      ROLE_LIST,
      q,
      selectSource(this.db, { select: () => this.select(memberScope), map: this.toRole, countFrom: sysRole }),
    );
  }

  /** Users of the role, with whether each lies within `scope`. */
  async members(roleId: string, scope: SQL | undefined) {
    return this.db
      .select({ id: sysUser.id, inScope: scope ? sql<boolean>`coalesce(${scope}, false)` : sql<boolean>`true` })
      .from(sysUserRole)
      .innerJoin(sysUser, eq(sysUser.id, sysUserRole.userId))
      .where(eq(sysUserRole.roleId, roleId));
  }

  async resourceIdsOf(roleId: string): Promise<string[]> {
    const rows = await this.db
      .select({ id: sysRoleResource.resourceId })
      .from(sysRoleResource)
      .where(eq(sysRoleResource.roleId, roleId));
    return rows.map((r) => r.id);
  }

  async detail(id: string, memberScope: SQL | undefined): Promise<Role | undefined> {
    const [row] = await this.select(memberScope).where(eq(sysRole.id, id));
    return row && this.toRole(row);
  }

  async find(id: string) {
    const [row] = await this.db.select().from(sysRole).where(eq(sysRole.id, id));
    return row;
  }

  nameTaken(name: string, exceptId?: string) {
    return anyRow(
      this.db,
      sysRole,
      and(eq(sql`lower(${sysRole.roleName})`, name.toLowerCase()), exceptId ? ne(sysRole.id, exceptId) : undefined),
    );
  }

  async allResourceIds(): Promise<string[]> {
    return (await this.db.select({ id: sysResource.id }).from(sysResource)).map((r) => r.id);
  }

  async countExisting(table: 'resource' | 'user', ids: string[], scope?: SQL): Promise<number> {
    if (ids.length === 0) return 0;
    const [row] =
      table === 'resource'
        ? await this.db.select({ n: countAll() }).from(sysResource).where(inArray(sysResource.id, ids))
        : await this.db
            .select({ n: countAll() })
            .from(sysUser)
            .where(and(inArray(sysUser.id, ids), scope));
    return row?.n ?? 0;
  }

  hasUsers(id: string) {
    return anyRow(this.db, sysUserRole, eq(sysUserRole.roleId, id));
  }

  async insert(id: string, v: RoleCreate) {
    await this.db.insert(sysRole).values({ id, roleName: v.roleName, remark: v.remark });
    await this.setResources(id, v.resourceIdList);
  }

  async update(id: string, v: RoleCreate) {
    await this.db
      .update(sysRole)
      .set({ roleName: v.roleName, remark: v.remark, updateTime: new Date() })
      .where(eq(sysRole.id, id));
    await this.setResources(id, v.resourceIdList);
  }

  private setResources(roleId: string, ids: string[]) {
    return replaceLinks(this.db, { owner: sysRoleResource.roleId, target: sysRoleResource.resourceId }, roleId, ids);
  }

  setUsers(roleId: string, userIdList: string[]) {
    return replaceLinks(this.db, { owner: sysUserRole.roleId, target: sysUserRole.userId }, roleId, userIdList);
  }

  async delete(id: string) {
    await this.db.delete(sysRole).where(eq(sysRole.id, id));
  }
}
