import type { User, UserCreate, UserListQuery, UserUpdate } from '@meterdesk/contracts';
import { and, eq, ilike, inArray, ne, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { pageWindow, sortBy } from '../../db/paging';
import { anyRow, countAll, iso, likeContains } from '../../db/rows';
import { sysGroup, sysNotice, sysOrg, sysRole, sysUser, sysUserGroup, sysUserRole } from '../../db/schema';

const roleIds = sql<
  string[]
>`coalesce((select array_agg(ur.role_id order by ur.role_id) from sys_user_role ur where ur.user_id = ${sysUser.id}), '{}')`;
const roleNames = sql<string>`coalesce((select string_agg(r.role_name, ', ' order by r.role_name) from sys_user_role ur join sys_role r on r.id = ur.role_id where ur.user_id = ${sysUser.id}), '')`;
const groupCodes = sql<
  string[]
>`coalesce((select array_agg(g.group_code order by g.group_code) from sys_user_group ug join sys_group g on g.id = ug.group_id where ug.user_id = ${sysUser.id}), '{}')`;
const groupNames = sql<string>`coalesce((select string_agg(g.group_name, ', ' order by g.group_name) from sys_user_group ug join sys_group g on g.id = ug.group_id where ug.user_id = ${sysUser.id}), '')`;

const SORTABLE = {
  username: sysUser.username,
  fullName: sysUser.fullName,
  status: sysUser.status,
  expiryDate: sysUser.expiryDate,
  updateTime: sysUser.updateTime,
};

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
const columns = (v: Values) => ({
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
});

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

  async list(q: UserListQuery, orgIds: string[] | undefined): Promise<{ list: User[]; total: number }> {
    const conditions: (SQL | undefined)[] = [
      q.username ? ilike(sysUser.username, likeContains(q.username)) : undefined,
      q.fullName ? ilike(sysUser.fullName, likeContains(q.fullName)) : undefined,
      q.phone ? ilike(sysUser.phone, likeContains(q.phone)) : undefined,
      q.status ? eq(sysUser.status, q.status) : undefined,
      orgIds ? inArray(sysUser.orgId, orgIds) : undefined,
    ];
    const where = and(...conditions);
    const { limit, offset } = pageWindow(q);
    const [rows, [counted]] = await Promise.all([
      this.select()
        .where(where)
        .orderBy(...sortBy(q, SORTABLE, sql`${sysUser.username} asc`, sysUser.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ total: countAll() }).from(sysUser).where(where),
    ]);
    return { list: rows.map(({ u, ...extra }) => toUser(u, extra)), total: counted?.total ?? 0 };
  }

  async detail(id: string): Promise<User | undefined> {
    const [row] = await this.select().where(eq(sysUser.id, id));
    return row && toUser(row.u, row);
  }

  async simpleList() {
    return this.db
      .select({ id: sysUser.id, username: sysUser.username, fullName: sysUser.fullName, email: sysUser.email })
      .from(sysUser)
      .orderBy(sysUser.username);
  }

  async find(id: string): Promise<Row | undefined> {
    const [row] = await this.db.select().from(sysUser).where(eq(sysUser.id, id));
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

  async groupIdsOf(codes: string[]): Promise<string[] | null> {
    if (codes.length === 0) return [];
    const found = await this.db.select({ id: sysGroup.id }).from(sysGroup).where(inArray(sysGroup.groupCode, codes));
    return found.length === new Set(codes).size ? found.map((g) => g.id) : null;
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
