import { GENDERS, RESULT, type User, type UserCreate, userApi, userEntity } from '@meterdesk/contracts';
import { and, eq, inArray, not } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { clearLoginFailures } from '../../auth/login-failures';
import { hashPassword } from '../../auth/password';
import type { SessionStore } from '../../auth/session';
import type { Db } from '../../db/driver';
import { type Link, linkedIds, linkedList, linkedText, replaceLinks } from '../../db/links';
import { anyRow, idsOf, lookup } from '../../db/rows';
import { sysGroup, sysOrg, sysRole, sysUser, sysUserGroup, sysUserRole } from '../../db/schema';
import { ADMIN_ROLE_ID } from '../../db/seeded-ids';
import { ApiError, fieldError, notFound } from '../../errors/api-error';
import { registerOperation, type SessionContext } from '../../http/operation';
import { Grants } from '../../rbac/grants';
import { gridScope, ORG_TREE, orgScope, scopeOf } from '../../rbac/scope';
import { ArchiveService, defineArchive, recordOf, registerArchiveRoutes, type ShownRow } from '../archive/archive-kit';
import { renameInNotices } from './notice.repository';

const ROLES: Link = { owner: sysUserRole.userId, target: sysUserRole.roleId };
const GROUPS: Link = { owner: sysUserGroup.userId, target: sysUserGroup.groupId };
const shown = {
  orgName: lookup(sysOrg.orgName, sysOrg.id, sysUser.orgId),
  roleIdList: linkedList(ROLES, sysUser.id, sysUserRole.roleId),
  roleNames: linkedText(ROLES, sysUser.id, sysRole.roleName),
  groupCodeList: linkedList(GROUPS, sysUser.id, sysGroup.groupCode),
  groupNames: linkedText(GROUPS, sysUser.id, sysGroup.groupName),
};
type Row = ShownRow<typeof sysUser, typeof shown>;
/** What add and edit take: the password only on add (an administrator resets it with its own call). */
type Input = Omit<UserCreate, 'password'> & { password?: string };

const sameSet = (held: ReadonlySet<string>, given: readonly string[]) =>
  new Set(given).size === held.size && given.every((id) => held.has(id));
const asRecord = recordOf(userEntity.record);
const UNLOCKED = { failedLogins: 0, lockedUntil: null };
const { getsysuserlist: list, getsysuserdetail: detail, savesysuser: save, updatesysuser: update } = userApi;

/**
 * Users within the caller's organisation scope (anything else is 404). Nobody grants more than they
 * hold (roles with their resources, groups on grid nodes in their data scope), acts on someone holding
 * more, leaves the system without an enabled administrator, or changes what they hold, how far their
 * data reaches or how long their account lasts on their own record.
 */
const userDefinition = (sessions: SessionStore) =>
  defineArchive<typeof userEntity, typeof sysUser, Row, User, Input>({
    entity: userEntity,
    api: { list, detail, save, update },
    table: sysUser,
    orgColumn: sysUser.orgId,
    paging: 'numbered',
    trees: { orgId: ORG_TREE },
    shown,
    toRecord: (row: Row): User => ({ ...asRecord<User>(row), gender: GENDERS.find((g) => g === row.gender) ?? 0 }),
    mayActOn: (tx, row, session) => new Grants(tx).assertMayActOn(session.userId, row.id),
    toValues: async (input: Input, { tx, session, scope, id, before }) => {
      const { password, roleIdList, groupCodeList, expiryDate, birthday, ...values } = input;
      const [self, grants] = [id === session.userId, new Grants(tx)];
      if (self && input.status !== 'enabled') throw new ApiError(RESULT.badRequest, 'cannotChangeSelf');
      // Refers only to what exists and lies in the caller's scope.
      if (!(await anyRow(tx, sysOrg, and(eq(sysOrg.id, input.orgId), orgScope(scope, sysOrg.id)))))
        throw fieldError(RESULT.badRequest, 'orgId', 'orgNotFound');
      if (!(await idsOf(tx, sysRole.id, roleIdList))) throw fieldError(RESULT.badRequest, 'roleIdList', 'roleNotFound');
      const groupIds = await idsOf(tx, sysGroup.groupCode, groupCodeList);
      if (!groupIds) throw fieldError(RESULT.badRequest, 'groupCodeList', 'groupNotFound');
      // One after the other: both run on the transaction's single connection.
      const heldRoles = before ? await linkedIds(tx, ROLES, id) : new Set<string>();
      const heldGroups = before ? await linkedIds(tx, GROUPS, id) : new Set<string>();
      const expiry = expiryDate ? new Date(expiryDate) : null;
      const changed = [
        !sameSet(heldRoles, roleIdList) && 'roleIdList',
        !sameSet(heldGroups, groupIds) && 'groupCodeList',
        expiry?.getTime() !== before?.expiryDate?.getTime() && 'expiryDate',
      ].find(Boolean);
      if (self && before && changed) throw fieldError(RESULT.forbidden, changed, 'cannotChangeOwnAccess');
      const newRoles = roleIdList.filter((r) => !heldRoles.has(r));
      await grants.assertMayGrantRoles(session.userId, newRoles);
      const added = groupIds.filter((g) => !heldGroups.has(g));
      const gridIn = gridScope(scope, sysGroup.gridId);
      if (added.length && gridIn && (await anyRow(tx, sysGroup, and(inArray(sysGroup.id, added), not(gridIn)))))
        throw fieldError(RESULT.forbidden, 'groupCodeList', 'groupOutsideScope');
      const stored = { ...values, expiryDate: expiry, birthday: birthday || null };
      // A new user changes the password an administrator gave at the first login.
      if (!before) return { ...stored, passwordHash: await hashPassword(password ?? ''), mustChangePassword: true };
      if (input.status !== 'enabled' || !roleIdList.includes(ADMIN_ROLE_ID)) await grants.assertAdminRemains([id]);
      const [wasLocked, locked] = [before.status === 'locking', input.status === 'locking'];
      return wasLocked === locked ? stored : { ...stored, ...(wasLocked ? UNLOCKED : { lockedUntil: null }) };
    },
    afterWrite: async (input, { tx, id, before }) => {
      await replaceLinks(tx, ROLES, id, input.roleIdList);
      await replaceLinks(tx, GROUPS, id, (await idsOf(tx, sysGroup.groupCode, input.groupCodeList)) ?? []);
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
  async deleteOne(id: string, username: string, caller: SessionContext): Promise<void> {
    if (id === caller.userId) throw new ApiError(RESULT.badRequest, 'cannotChangeSelf');
    await this.actOn(id, caller, async (tx, user) => {
      if (user.username !== username) throw notFound();
      await new Grants(tx).assertAdminRemains([id]);
      await this.sessions.destroyAllForUser(id, tx);
      await tx.delete(sysUser).where(eq(sysUser.id, id));
    });
  }

  /** Lifts a lock, the failed logins that led to it included. */
  unlock(id: string, caller: SessionContext): Promise<void> {
    return this.actOn(id, caller, async (tx, user) => {
      const unlocked = { ...UNLOCKED, status: 'enabled' as const, updateTime: new Date() };
      await tx.update(sysUser).set(unlocked).where(eq(sysUser.id, id));
      await clearLoginFailures(tx, user.username);
    });
  }

  /** A new password the user must change at the next login; the user's sessions end. */
  async resetPassword(id: string, newPassword: string, caller: SessionContext): Promise<void> {
    const reset = { passwordHash: await hashPassword(newPassword), mustChangePassword: true, updateTime: new Date() };
    await this.actOn(id, caller, async (tx) => {
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
  const none = () => null;
  registerOperation(app, userApi.deletesysuser, ({ body, session }) =>
    service.deleteOne(body.id, body.username, session).then(none),
  );
  registerOperation(app, userApi.unlocksysuser, ({ body, session }) => service.unlock(body.id, session).then(none));
  registerOperation(app, userApi.resetsysuserpassword, ({ body, session }) =>
    service.resetPassword(body.id, body.newPassword, session).then(none),
  );
}
