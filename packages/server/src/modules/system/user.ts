import { RESULT, type User, type UserCreate, userApi, userEntity } from '@meterdesk/contracts';
import { and, eq, getTableColumns, inArray, not } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { clearLoginFailures } from '../../auth/login-failures';
import { hashPassword } from '../../auth/password';
import type { SessionStore } from '../../auth/session';
import type { Db, Executor } from '../../db/driver';
import { type Link, linkedIds, linkedList, linkedText, replaceLinks } from '../../db/links';
import { anyRow, lookup } from '../../db/rows';
import { sysGroup, sysOrg, sysRole, sysUser, sysUserGroup, sysUserRole } from '../../db/schema';
import { ADMIN_ROLE_ID } from '../../db/seeded-ids';
import { ApiError, fieldError, notFound } from '../../errors/api-error';
import { registerOperation, type SessionContext } from '../../http/operation';
import { Grants } from '../../rbac/grants';
import { gridScope, ORG_TREE, orgScope, type Scope, scopeOf } from '../../rbac/scope';
import { ArchiveService, defineArchive, recordOf, registerArchiveRoutes } from '../archive/archive-kit';
import { renameInNotices } from './notice.repository';

const ROLES: Link = { owner: sysUserRole.userId, target: sysUserRole.roleId };
const GROUPS: Link = { owner: sysUserGroup.userId, target: sysUserGroup.groupId };
const selectUsers = (db: Executor) =>
  db
    .select({
      ...getTableColumns(sysUser),
      orgName: lookup(sysOrg.orgName, sysOrg.id, sysUser.orgId),
      roleIdList: linkedList(ROLES, sysUser.id, sysUserRole.roleId),
      roleNames: linkedText(ROLES, sysUser.id, sysRole.roleName),
      groupCodeList: linkedList(GROUPS, sysUser.id, sysGroup.groupCode),
      groupNames: linkedText(GROUPS, sysUser.id, sysGroup.groupName),
    })
    .from(sysUser);
type Row = Awaited<ReturnType<typeof selectUsers>>[number];
/** What add and edit take: the password only on add (an administrator resets it with its own call). */
type Input = Omit<UserCreate, 'password'> & { password?: string };

const sameSet = (held: ReadonlySet<string>, given: readonly string[]) =>
  new Set(given).size === held.size && given.every((id) => held.has(id));
const groupIdsOf = async (tx: Executor, codes: string[]) =>
  codes.length
    ? (await tx.select({ id: sysGroup.id }).from(sysGroup).where(inArray(sysGroup.groupCode, codes))).map((g) => g.id)
    : [];

/** Refers only to what exists and lies in the caller's scope; returns the ids of the named groups. */
async function referenced(tx: Executor, scope: Scope, input: Input): Promise<string[]> {
  if (!(await anyRow(tx, sysOrg, and(eq(sysOrg.id, input.orgId), orgScope(scope, sysOrg.id)))))
    throw fieldError(RESULT.badRequest, 'orgId', 'orgNotFound');
  const roleIds = [...new Set(input.roleIdList)];
  const roles = roleIds.length ? await tx.select().from(sysRole).where(inArray(sysRole.id, roleIds)) : [];
  if (roles.length !== roleIds.length) throw fieldError(RESULT.badRequest, 'roleIdList', 'roleNotFound');
  const groupIds = await groupIdsOf(tx, input.groupCodeList);
  if (groupIds.length !== new Set(input.groupCodeList).size)
    throw fieldError(RESULT.badRequest, 'groupCodeList', 'groupNotFound');
  return groupIds;
}

/**
 * Users as the caller may see and change them: only within the caller's organisation scope (anything
 * else is 404), granting only what the caller holds (roles with resources the caller holds, groups on
 * grid nodes within the caller's data scope), never acting on someone who holds more, never leaving the
 * system without an enabled administrator. What a user holds, how far its data reaches and how long its
 * account lasts are given by someone else: on their own record these come back unchanged.
 */
const { getsysuserlist: list, getsysuserdetail: detail, savesysuser: save, updatesysuser: update } = userApi;
const userDefinition = (sessions: SessionStore) =>
  defineArchive<typeof userEntity, typeof sysUser, Row, User, Input>({
    entity: userEntity,
    api: { list, detail, save, update },
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
      const [self, grants] = [id === session.userId, new Grants(tx)];
      if (self && input.status !== 'enabled') throw new ApiError(RESULT.badRequest, 'cannotChangeSelf');
      const groupIds = await referenced(tx, scope, input);
      const held = before && Promise.all([linkedIds(tx, ROLES, id), linkedIds(tx, GROUPS, id)]);
      const [heldRoles, heldGroups] = (await held) || [new Set<string>(), new Set<string>()];
      const expiry = expiryDate ? new Date(expiryDate) : null;
      const changed = [
        !sameSet(heldRoles, roleIdList) && 'roleIdList',
        !sameSet(heldGroups, groupIds) && 'groupCodeList',
        expiry?.getTime() !== before?.expiryDate?.getTime() && 'expiryDate',
      ].find(Boolean);
      if (self && before && changed) throw fieldError(RESULT.forbidden, changed, 'cannotChangeOwnAccess');
      await grants.assertMayGrantRoles(
        session.userId,
        roleIdList.filter((r) => !heldRoles.has(r)),
      );
      const added = groupIds.filter((g) => !heldGroups.has(g));
      const gridIn = gridScope(scope, sysGroup.gridId);
      if (added.length && gridIn && (await anyRow(tx, sysGroup, and(inArray(sysGroup.id, added), not(gridIn)))))
        throw fieldError(RESULT.forbidden, 'groupCodeList', 'groupOutsideScope');
      const stored = { ...values, expiryDate: expiry, birthday: birthday || null };
      // A new user changes the password an administrator gave at the first login.
      if (!before) return { ...stored, passwordHash: await hashPassword(password ?? ''), mustChangePassword: true };
      if (input.status !== 'enabled' || !roleIdList.includes(ADMIN_ROLE_ID)) await grants.assertAdminRemains([id]);
      const [wasLocked, locked] = [before.status === 'locking', input.status === 'locking'];
      if (wasLocked === locked) return stored;
      return { ...stored, lockedUntil: null, ...(wasLocked ? { failedLogins: 0 } : {}) };
    },
    afterWrite: async (input, { tx, id, before }) => {
      await replaceLinks(tx, ROLES, id, input.roleIdList);
      await replaceLinks(tx, GROUPS, id, await groupIdsOf(tx, input.groupCodeList));
      if (!before) return;
      if (before.username !== input.username) await renameInNotices(tx, before.username, input.username);
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

  /** Deletes a user named by id and username, and ends the user's sessions. */
  async deleteOne(id: string, username: string, caller: SessionContext): Promise<null> {
    if (id === caller.userId) throw new ApiError(RESULT.badRequest, 'cannotChangeSelf');
    return this.actOn(id, caller, async (tx, user) => {
      if (user.username !== username) throw notFound();
      await new Grants(tx).assertAdminRemains([id]);
      await this.sessions.destroyAllForUser(id, tx);
      await tx.delete(sysUser).where(eq(sysUser.id, id));
      return null;
    });
  }

  /** Lifts a lock, the failed logins that led to it included. */
  unlock(id: string, caller: SessionContext): Promise<null> {
    return this.actOn(id, caller, async (tx, user) => {
      const unlocked = { status: 'enabled' as const, failedLogins: 0, lockedUntil: null, updateTime: new Date() };
      await tx.update(sysUser).set(unlocked).where(eq(sysUser.id, id));
      await clearLoginFailures(tx, user.username);
      return null;
    });
  }

  /** A new password the user must change at the next login; the user's sessions end. */
  async resetPassword(id: string, newPassword: string, caller: SessionContext): Promise<null> {
    const passwordHash = await hashPassword(newPassword);
    return this.actOn(id, caller, async (tx) => {
      const reset = { passwordHash, mustChangePassword: true, updateTime: new Date() };
      await tx.update(sysUser).set(reset).where(eq(sysUser.id, id));
      await this.sessions.destroyAllForUser(id, tx);
      return null;
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
  registerOperation(app, userApi.deletesysuser, ({ body, session }) =>
    service.deleteOne(body.id, body.username, session),
  );
  registerOperation(app, userApi.unlocksysuser, ({ body, session }) => service.unlock(body.id, session));
  registerOperation(app, userApi.resetsysuserpassword, ({ body, session }) =>
    service.resetPassword(body.id, body.newPassword, session),
  );
}
