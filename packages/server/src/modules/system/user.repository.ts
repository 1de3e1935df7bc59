import { type User, type UserCreate, type UserListQuery, type UserUpdate, userEntity } from '@meterdesk/contracts';
import { and, eq, inArray, ne, not, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { defineList, listPage, selectSource } from '../../db/list';
import type { EveryField } from '../../db/rows';
import { anyRow, iso, qualified } from '../../db/rows';
import { sysGroup, sysNotice, sysOrg, sysRole, sysUser, sysUserGroup, sysUserRole } from '../../db/schema';
import { ORG_TREE } from '../../rbac/scope';

const roleIds = sql<
  string[]
>`coalesce((select array_agg(ur.role_id order by ur.role_id) from sys_user_role ur where ur.user_id = ${qualified(sysUser.id)}), '{}')`;
const roleNames = sql<string>`coalesce((select string_agg(r.role_name, ', ' order by r.role_name) from sys_user_role ur join sys_role r on r.id = ur.role_id where ur.user_id = ${qualified(sysUser.id)}), '')`;
const groupCodes = sql<
  string[]
>`coalesce((select array_agg(g.group_code order by g.group_code) from sys_user_group ug join sys_group g on g.id = ug.group_id where ug.user_id = ${qualified(sysUser.id)}), '{}')`;
const groupNames = sql<string>`coalesce((select string_agg(g.group_name, ', ' order by g.group_name) from sys_user_group ug join sys_group g on g.id = ug.group_id where ug.user_id = ${qualified(sysUser.id)}), '')`;

export const USER_LIST = defineList({
  entity: userEntity,
  columns: {
    username: sysUser.username,
    fullName: sysUser.fullName,
    status: sysUser.status,
    orgId: sysUser.orgId,
    phone: sysUser.phone,
    expiryDate: sysUser.expiryDate,
    updateTime: sysUser.updateTime,
  },
  trees: { orgId: ORG_TREE },
  defaultOrder: sql`${sysUser.username} asc`,
  tieBreak: sysUser.id,
});

type Row = typeof sysUser.$inferSelect;

const toUser = (
  u: Row,
  extra: {
    orgName: string | null;
    roleIdList: string[];
    roleNames: string;
    groupCodeList: string[];
    groupNames: string;
  },
): User => ({
  id: u.id,
  username: u.username,
  fullName: u.fullName,
  orgId: u.orgId ?? '',
  orgName: extra.orgName ?? '',
  roleIdList: extra.roleIdList,
  roleNames: extra.roleNames,
  groupCodeList: extra.groupCodeList,
  groupNames: extra.groupNames,
  status: u.status,
  expiryDate: iso(u.expiryDate),
  gender: u.gender === 1 || u.gender === 2 ? u.gender : 0,
  birthday: u.birthday ?? '',
  phone: u.phone,
  email: u.email,
  address: u.address,
  remark: u.remark,
  lockedUntil: iso(u.lockedUntil),
  mustChangePassword: u.mustChangePassword,
  createTime: iso(u.createTime),
  updateTime: iso(u.updateTime),
});

type Values = Omit<UserCreate, 'password' | 'roleIdList' | 'groupCodeList'>;
const columns = (v: Values) =>
  ({
    username: v.username,
    fullName: v.fullName,
    orgId: v.orgId,
    status: v.status,
    expiryDate: v.expiryDate ? new Date(v.expiryDate) : null,
    gender: v.gender,
    birthday: v.birthday || null,
    phone: v.phone,
    email: v.email,
    address: v.address,
    remark: v.remark,
  }) satisfies EveryField<Values>;

export class UserRepository {
  constructor(private readonly db: Executor) {}

  private select() {
    return this.db
      .select({
        u: sysUser,
        orgName: sysOrg.orgName,
        roleIdList: roleIds,
        roleNames,
        groupCodeList: groupCodes,
        groupNames,
      })
      .from(sysUser)
      .leftJoin(sysOrg, eq(sysOrg.id, sysUser.orgId));
  }

  list(q: UserListQuery, scope: SQL | undefined) {
    return listPage(
      USER_LIST,
      q,
      selectSource(this.db, {
        select: () => this.select(),
        map: ({ u, ...extra }) => toUser(u, extra),
        countFrom: sysUser,
      }),
      scope,
    );
  }

  async detail(id: string, scope: SQL | undefined): Promise<User | undefined> {
    const [row] = await this.select().where(and(eq(sysUser.id, id), scope));
    return row && toUser(row.u, row);
  }

  async simpleList(scope: SQL | undefined) {
    return this.db
      .select({ id: sysUser.id, username: sysUser.username, fullName: sysUser.fullName, email: sysUser.email })
      .from(sysUser)
      .where(scope)
      .orderBy(sysUser.username);
  }

  async find(id: string, scope?: SQL): Promise<Row | undefined> {
    const [row] = await this.db
      .select()
      .from(sysUser)
      .where(and(eq(sysUser.id, id), scope));
    return row;
  }

  usernameTaken(username: string, exceptId?: string) {
    return anyRow(
      this.db,
      sysUser,
      and(eq(sql`lower(${sysUser.username})`, username.toLowerCase()), exceptId ? ne(sysUser.id, exceptId) : undefined),
    );
  }

  async missingRoles(ids: string[]): Promise<boolean> {
    if (ids.length === 0) return false;
    const found = await this.db.select({ id: sysRole.id }).from(sysRole).where(inArray(sysRole.id, ids));
    return found.length !== new Set(ids).size;
  }

  /** The ids of the roles and user groups a user holds. */
  async memberships(userId: string): Promise<{ roleIds: Set<string>; groupIds: Set<string> }> {
    const [roles, groups] = await Promise.all([
      this.db.select({ id: sysUserRole.roleId }).from(sysUserRole).where(eq(sysUserRole.userId, userId)),
      this.db.select({ id: sysUserGroup.groupId }).from(sysUserGroup).where(eq(sysUserGroup.userId, userId)),
    ]);
    return { roleIds: new Set(roles.map((r) => r.id)), groupIds: new Set(groups.map((g) => g.id)) };
  }

  async groupIdsOf(codes: string[]): Promise<string[] | null> {
    if (codes.length === 0) return [];
    const found = await this.db.select({ id: sysGroup.id }).from(sysGroup).where(inArray(sysGroup.groupCode, codes));
    return found.length === new Set(codes).size ? found.map((g) => g.id) : null;
  }

  /** Whether any of the groups lies outside `gridScope`, the caller's grid scope over `sys_group.grid_id`. */
  groupsOutside(groupIds: readonly string[], gridScope: SQL | undefined): Promise<boolean> {
    if (groupIds.length === 0 || !gridScope) return Promise.resolve(false);
    return anyRow(this.db, sysGroup, and(inArray(sysGroup.id, [...groupIds]), not(gridScope)));
  }

  async insert(id: string, passwordHash: string, v: Values): Promise<void> {
    await this.db.insert(sysUser).values({ id, passwordHash, mustChangePassword: true, ...columns(v) });
  }

  async update(
    id: string,
    v: UserUpdate,
    lockChange: { failedLogins?: number; lockedUntil?: Date | null },
  ): Promise<void> {
    await this.db
      .update(sysUser)
      .set({ ...columns(v), ...lockChange, updateTime: new Date() })
      .where(eq(sysUser.id, id));
  }

  /** Notices name their users; a renamed user keeps them. */
  async renameInNotices(from: string, to: string): Promise<void> {
    await this.db.update(sysNotice).set({ recUsername: to }).where(eq(sysNotice.recUsername, from));
    await this.db.update(sysNotice).set({ sendUsername: to }).where(eq(sysNotice.sendUsername, from));
  }

  async setMemberships(userId: string, roleIdList: string[], groupIds: string[]): Promise<void> {
    await this.db.delete(sysUserRole).where(eq(sysUserRole.userId, userId));
    await this.db.delete(sysUserGroup).where(eq(sysUserGroup.userId, userId));
    const roles = [...new Set(roleIdList)];
    if (roles.length) await this.db.insert(sysUserRole).values(roles.map((roleId) => ({ userId, roleId })));
    if (groupIds.length) await this.db.insert(sysUserGroup).values(groupIds.map((groupId) => ({ userId, groupId })));
  }

  async setLock(id: string, values: Partial<Pick<Row, 'status' | 'failedLogins' | 'lockedUntil'>>): Promise<void> {
    await this.db
      .update(sysUser)
      .set({ ...values, updateTime: new Date() })
      .where(eq(sysUser.id, id));
  }

  async setPassword(id: string, passwordHash: string, mustChangePassword: boolean): Promise<void> {
    await this.db
      .update(sysUser)
      .set({ passwordHash, mustChangePassword, updateTime: new Date() })
      .where(eq(sysUser.id, id));
  }

  async delete(id: string): Promise<void> {
    await this.db.delete(sysUser).where(eq(sysUser.id, id));
  }
}
