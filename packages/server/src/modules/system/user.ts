import { RESULT, type User, type UserCreate, userApi, userEntity } from '@meterdesk/contracts';
import { and, eq, getTableColumns, inArray, not, type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { clearLoginFailures } from '../../auth/login-failures';
import { hashPassword } from '../../auth/password';
import type { SessionStore } from '../../auth/session';
import type { Db, Executor } from '../../db/driver';
import { anyRow, qualified } from '../../db/rows';
import { sysGroup, sysNotice, sysOrg, sysRole, sysUser, sysUserGroup, sysUserRole } from '../../db/schema';
import { ADMIN_ROLE_ID } from '../../db/seeded-ids';
import { ApiError, fieldError, notFound } from '../../errors/api-error';
import { registerOperation, type SessionContext } from '../../http/operation';
import { Grants } from '../../rbac/grants';
import { gridScope, ORG_TREE, orgScope, type Scope, scopeOf } from '../../rbac/scope';
import { ArchiveService, defineArchive, recordOf, registerArchiveRoutes } from '../archive/archive-kit';

const ofUser = (from: SQL, value: SQL, empty: SQL) =>
  sql`coalesce((select ${value} from ${from} where ur.user_id = ${qualified(sysUser.id)}), ${empty})`;
const roles = sql`sys_user_role ur join sys_role r on r.id = ur.role_id`;
const groups = sql`sys_user_group ur join sys_group g on g.id = ur.group_id`;
const selectUsers = (db: Executor) =>
  db
    .select({
      ...getTableColumns(sysUser),
      orgName: sysOrg.orgName,
      roleIdList: ofUser(sql`sys_user_role ur`, sql`array_agg(ur.role_id order by ur.role_id)`, sql`'{}'`).mapWith(
        (ids: string[]) => ids,
      ),
      roleNames: ofUser(roles, sql`string_agg(r.role_name, ', ' order by r.role_name)`, sql`''`).mapWith(String),
      groupCodeList: ofUser(groups, sql`array_agg(g.group_code order by g.group_code)`, sql`'{}'`).mapWith(
        (codes: string[]) => codes,
      ),
      groupNames: ofUser(groups, sql`string_agg(g.group_name, ', ' order by g.group_name)`, sql`''`).mapWith(String),
    })
    .from(sysUser)
    .leftJoin(sysOrg, eq(sysOrg.id, sysUser.orgId));
type Row = Awaited<ReturnType<typeof selectUsers>>[number];
/** What add and edit take: the password only on add (an administrator resets it with its own call). */
type Input = Omit<UserCreate, 'password'> & { password?: string };

const sameSet = (held: ReadonlySet<string>, given: readonly string[]) =>
  new Set(given).size === held.size && given.every((id) => held.has(id));

async function memberships(tx: Executor, userId: string) {
  const [roleRows, groupRows] = await Promise.all([
    tx.select({ id: sysUserRole.roleId }).from(sysUserRole).where(eq(sysUserRole.userId, userId)),
    tx.select({ id: sysUserGroup.groupId }).from(sysUserGroup).where(eq(sysUserGroup.userId, userId)),
  ]);
  return { roleIds: new Set(roleRows.map((r) => r.id)), groupIds: new Set(groupRows.map((g) => g.id)) };
}

/** The ids of the named groups, or null when one does not exist. */
async function groupIdsOf(tx: Executor, codes: string[]): Promise<string[] | null> {
  if (codes.length === 0) return [];
  const found = await tx.select({ id: sysGroup.id }).from(sysGroup).where(inArray(sysGroup.groupCode, codes));
  return found.length === new Set(codes).size ? found.map((g) => g.id) : null;
}

/** Refers only to what exists and lies in the caller's scope; returns the ids of the named groups. */
async function referenced(tx: Executor, scope: Scope, input: Input): Promise<string[]> {
  if (!(await anyRow(tx, sysOrg, and(eq(sysOrg.id, input.orgId), orgScope(scope, sysOrg.id)))))
    throw fieldError(RESULT.badRequest, 'orgId', 'orgNotFound');
  const roleIds = [...new Set(input.roleIdList)];
  const found = roleIds.length ? await tx.select().from(sysRole).where(inArray(sysRole.id, roleIds)) : [];
  if (found.length !== roleIds.length) throw fieldError(RESULT.badRequest, 'roleIdList', 'roleNotFound');
  const groupIds = await groupIdsOf(tx, input.groupCodeList);
  if (!groupIds) throw fieldError(RESULT.badRequest, 'groupCodeList', 'groupNotFound');
  return groupIds;
}

async function assertAdminRemains(tx: Executor, userId: string) {
  const grants = new Grants(tx);
  if (await grants.isAdmin(userId)) await grants.assertAdminRemains([userId]);
}

/**
 * Users as the caller may see and change them: only within the caller's organisation scope (anything
 * else is 404), granting only what the caller holds (roles with resources the caller holds, groups on
 * grid nodes within the caller's data scope), never acting on someone who holds more, never leaving the
 * system without an enabled administrator. What a user holds, how far its data reaches and how long its
 * account lasts are given by someone else: on their own record these come back unchanged.
 */
const userDefinition = (sessions: SessionStore) =>
  defineArchive<typeof userEntity, typeof sysUser, Row, User, Input>({
    entity: userEntity,
    api: {
      list: userApi.getsysuserlist,
      detail: userApi.getsysuserdetail,
      save: userApi.savesysuser,
      update: userApi.updatesysuser,
    },
    table: sysUser,
    orgColumn: sysUser.orgId,
    paging: 'numbered',
    trees: { orgId: ORG_TREE },
    select: selectUsers,
    toRecord: (row: Row): User => ({
      ...recordOf(userEntity.record)<User>(row),
      gender: row.gender === 1 || row.gender === 2 ? row.gender : 0,
    }),
    mayActOn: (tx, row, session) => new Grants(tx).assertMayActOn(session.userId, row.id),
    toValues: async (input: Input, { tx, session, scope, id, before }) => {
      const { password, roleIdList, groupCodeList, expiryDate, birthday, ...values } = input;
      const self = id === session.userId;
      if (self && input.status !== 'enabled') throw new ApiError(RESULT.badRequest, 'cannotChangeSelf');
      const groupIds = await referenced(tx, scope, input);
      const held = before ? await memberships(tx, id) : { roleIds: new Set<string>(), groupIds: new Set<string>() };
      const expiry = expiryDate ? new Date(expiryDate) : null;
      if (self && before) {
        const changed = !sameSet(held.roleIds, roleIdList)
          ? 'roleIdList'
          : !sameSet(held.groupIds, groupIds)
            ? 'groupCodeList'
            : expiry?.getTime() !== before.expiryDate?.getTime()
              ? 'expiryDate'
              : null;
        if (changed) throw fieldError(RESULT.forbidden, changed, 'cannotChangeOwnAccess');
      }
      await new Grants(tx).assertMayGrantRoles(
        session.userId,
        roleIdList.filter((r) => !held.roleIds.has(r)),
      );
      const added = groupIds.filter((g) => !held.groupIds.has(g));
      const gridIn = gridScope(scope, sysGroup.gridId);
      if (added.length && gridIn && (await anyRow(tx, sysGroup, and(inArray(sysGroup.id, added), not(gridIn)))))
        throw fieldError(RESULT.forbidden, 'groupCodeList', 'groupOutsideScope');
      const stored = { ...values, expiryDate: expiry, birthday: birthday || null };
      // A new user changes the password an administrator gave at the first login.
      if (!before) return { ...stored, passwordHash: await hashPassword(password ?? ''), mustChangePassword: true };
      if (input.status !== 'enabled' || !roleIdList.includes(ADMIN_ROLE_ID)) await assertAdminRemains(tx, id);
      const unlocking = before.status === 'locking' && input.status !== 'locking';
      const locking = before.status !== 'locking' && input.status === 'locking';
      return {
        ...stored,
        ...(unlocking ? { failedLogins: 0 } : {}),
        ...(unlocking || locking ? { lockedUntil: null } : {}),
      };
    },
    afterWrite: async (input, { tx, id, before }) => {
      await tx.delete(sysUserRole).where(eq(sysUserRole.userId, id));
      await tx.delete(sysUserGroup).where(eq(sysUserGroup.userId, id));
      const roleIds = [...new Set(input.roleIdList)];
      const groupIds = (await groupIdsOf(tx, input.groupCodeList)) ?? [];
      if (roleIds.length) await tx.insert(sysUserRole).values(roleIds.map((roleId) => ({ userId: id, roleId })));
      if (groupIds.length) await tx.insert(sysUserGroup).values(groupIds.map((groupId) => ({ userId: id, groupId })));
      if (!before) return;
      // Notices name their users; a renamed user keeps them.
      if (before.username !== input.username) {
        await tx
          .update(sysNotice)
          .set({ recUsername: input.username })
          .where(eq(sysNotice.recUsername, before.username));
        await tx
          .update(sysNotice)
          .set({ sendUsername: input.username })
          .where(eq(sysNotice.sendUsername, before.username));
      }
      if (before.status === 'locking' && input.status !== 'locking') await clearLoginFailures(tx, before.username);
      if (input.status !== 'enabled') await sessions.destroyAllForUser(id, tx);
    },
  });

export class UserService extends ArchiveService<typeof userEntity, Row, User, Input, 'username'> {
  constructor(
    db: Db,
    private readonly sessions: SessionStore,
  ) {
    super(db, userDefinition(sessions));
  }

  async simpleList(session: SessionContext) {
    const { id, username, fullName, email } = sysUser;
    const where = this.scopeCondition(await scopeOf(this.db, session));
    return this.db.select({ id, username, fullName, email }).from(sysUser).where(where).orderBy(username);
  }

  async deleteOne(id: string, username: string, caller: SessionContext): Promise<void> {
    if (id === caller.userId) throw new ApiError(RESULT.badRequest, 'cannotChangeSelf');
    await this.db.transaction(async (tx) => {
      if ((await this.reachable(tx, id, caller)).username !== username) throw notFound();
      await assertAdminRemains(tx, id);
      await this.sessions.destroyAllForUser(id, tx);
      await tx.delete(sysUser).where(eq(sysUser.id, id));
    });
  }

  /** Lifts a lock, the failed logins that led to it included. */
  async unlock(id: string, caller: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const { username } = await this.reachable(tx, id, caller);
      const unlocked = { status: 'enabled' as const, failedLogins: 0, lockedUntil: null, updateTime: new Date() };
      await tx.update(sysUser).set(unlocked).where(eq(sysUser.id, id));
      await clearLoginFailures(tx, username);
    });
  }

  /** A new password the user must change at the next login; the user's sessions end. */
  async resetPassword(id: string, newPassword: string, caller: SessionContext): Promise<void> {
    const passwordHash = await hashPassword(newPassword);
    await this.db.transaction(async (tx) => {
      await this.reachable(tx, id, caller);
      const reset = { passwordHash, mustChangePassword: true, updateTime: new Date() };
      await tx.update(sysUser).set(reset).where(eq(sysUser.id, id));
      await this.sessions.destroyAllForUser(id, tx);
    });
  }
}

/** The list, detail, add and edit calls as the kit wires them; the user's own calls with their own fields. */
export function registerUserRoutes(app: FastifyInstance, service: UserService): void {
  registerArchiveRoutes(app, service);
  registerOperation(app, userApi.getsimplesysuserlist, ({ session }) => service.simpleList(session));
  registerOperation(app, userApi.checkusername, async ({ body }) => ({
    existed: await service.isTaken('username', body.username, body.id),
  }));
  const done = () => null;
  registerOperation(app, userApi.deletesysuser, ({ body, session }) =>
    service.deleteOne(body.id, body.username, session).then(done),
  );
  registerOperation(app, userApi.unlocksysuser, ({ body, session }) => service.unlock(body.id, session).then(done));
  registerOperation(app, userApi.resetsysuserpassword, ({ body, session }) =>
    service.resetPassword(body.id, body.newPassword, session).then(done),
  );
}
