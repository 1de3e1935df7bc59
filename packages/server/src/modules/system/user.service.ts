import { RESULT, type UserCreate, type UserListQuery, type UserUpdate, userEntity } from '@meterdesk/contracts';
import { clearLoginFailures } from '../../auth/login-failures';
import { hashPassword } from '../../auth/password';
import type { SessionStore } from '../../auth/session';
import type { Db, Executor } from '../../db/driver';
import { newId } from '../../db/ids';
import { sysGroup, sysUser } from '../../db/schema';
import { ADMIN_ROLE_ID } from '../../db/seeded-ids';
import { ApiError, existedError, fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { Grants } from '../../rbac/grants';
import { gridScope, orgInScope, orgScope, resolveScope, type Scope } from '../../rbac/scope';
import { OrgRepository } from './org.repository';
import { UserRepository } from './user.repository';

/**
 * Users as the caller may see and change them: only within the caller's organisation scope
 * (anything else is 404), granting only what the caller holds, never acting on someone who
 * holds more, and never leaving the system without an enabled administrator.
 */
export class UserService {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionStore,
  ) {}

  private scope(caller: SessionContext, db: Executor = this.db) {
    return resolveScope(db, caller.userId);
  }

  async list(q: UserListQuery, caller: SessionContext) {
    const scope = await this.scope(caller);
    return new UserRepository(this.db).list(q, orgScope(scope, sysUser.orgId));
  }

  async detail(id: string, caller: SessionContext) {
    const scope = await this.scope(caller);
    const user = await new UserRepository(this.db).detail(id, orgScope(scope, sysUser.orgId));
    if (!user) throw notFound();
    return user;
  }

  async simpleList(caller: SessionContext) {
    const scope = await this.scope(caller);
    return new UserRepository(this.db).simpleList(orgScope(scope, sysUser.orgId));
  }

  usernameExists(username: string, exceptId?: string) {
    return new UserRepository(this.db).usernameTaken(username, exceptId);
  }

  /** A new user changes the password an administrator gave at the first login. */
  async save(input: UserCreate, caller: SessionContext): Promise<{ id: string }> {
    const { password, roleIdList, groupCodeList, ...values } = input;
    const id = newId();
    const passwordHash = await hashPassword(password);
    await this.db.transaction(async (tx) => {
      const repo = new UserRepository(tx);
      const scope = await this.scope(caller, tx);
      const groupIds = await this.check(tx, repo, scope, input);
      await this.assertMayAssign(tx, repo, scope, caller, { roleIds: roleIdList, groupIds });
      await repo.insert(id, passwordHash, values);
      await repo.setMemberships(id, roleIdList, groupIds);
    });
    return { id };
  }

  async update(input: UserUpdate, caller: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new UserRepository(tx);
      const grants = new Grants(tx);
      const scope = await this.scope(caller, tx);
      const current = await this.reachable(tx, scope, caller, input.id);
      if (input.id === caller.userId && input.status !== 'enabled')
        throw new ApiError(RESULT.badRequest, 'cannotChangeSelf');
      const groupIds = await this.check(tx, repo, scope, input, input.id);
      const held = await repo.memberships(input.id);
      if (input.id === caller.userId) assertOwnAccessKept(held, current.expiryDate, input, groupIds);
      await this.assertMayAssign(tx, repo, scope, caller, {
        roleIds: input.roleIdList.filter((id) => !held.roleIds.has(id)),
        groupIds: groupIds.filter((id) => !held.groupIds.has(id)),
      });
      const staysAdmin = input.status === 'enabled' && input.roleIdList.includes(ADMIN_ROLE_ID);
      if (!staysAdmin && (await grants.isAdmin(input.id))) await grants.assertAdminRemains([input.id]);
      const unlocking = current.status === 'locking' && input.status !== 'locking';
      const locking = current.status !== 'locking' && input.status === 'locking';
      await repo.update(input.id, input, {
        ...(unlocking ? { failedLogins: 0, lockedUntil: null } : {}),
        ...(locking ? { lockedUntil: null } : {}),
      });
      await repo.setMemberships(input.id, input.roleIdList, groupIds);
      if (current.username !== input.username) await repo.renameInNotices(current.username, input.username);
      if (unlocking) await clearLoginFailures(tx, current.username);
      if (input.status !== 'enabled') await this.sessions.destroyAllForUser(input.id, tx);
    });
  }

  async delete(id: string, username: string, caller: SessionContext): Promise<void> {
    if (id === caller.userId) throw new ApiError(RESULT.badRequest, 'cannotChangeSelf');
    await this.db.transaction(async (tx) => {
      const current = await this.reachable(tx, await this.scope(caller, tx), caller, id);
      if (current.username !== username) throw notFound();
      const grants = new Grants(tx);
      if (await grants.isAdmin(id)) await grants.assertAdminRemains([id]);
      await this.sessions.destroyAllForUser(id, tx);
      await new UserRepository(tx).delete(id);
    });
  }

  async unlock(id: string, caller: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const user = await this.reachable(tx, await this.scope(caller, tx), caller, id);
      await new UserRepository(tx).setLock(id, { status: 'enabled', failedLogins: 0, lockedUntil: null });
      await clearLoginFailures(tx, user.username);
    });
  }

  async resetPassword(id: string, newPassword: string, caller: SessionContext): Promise<void> {
    const passwordHash = await hashPassword(newPassword);
    await this.db.transaction(async (tx) => {
      await this.reachable(tx, await this.scope(caller, tx), caller, id);
      await new UserRepository(tx).setPassword(id, passwordHash, true);
      await this.sessions.destroyAllForUser(id, tx);
    });
  }

  /** The user, when the caller may act on them: in scope (else 404) and holding nothing the caller lacks (else 403). */
  private async reachable(tx: Executor, scope: Scope, caller: SessionContext, id: string) {
    const user = await new UserRepository(tx).find(id, orgScope(scope, sysUser.orgId));
    if (!user) throw notFound();
    await new Grants(tx).assertMayActOn(caller.userId, id);
    return user;
  }

  /**
   * Nobody hands out more than they have: roles only with resources the caller holds, user groups
   * only on grid nodes within the caller's data scope (a group's grid is its members' data scope).
   */
  private async assertMayAssign(
    tx: Executor,
    repo: UserRepository,
    scope: Scope,
    caller: SessionContext,
    added: { roleIds: readonly string[]; groupIds: readonly string[] },
  ): Promise<void> {
    await new Grants(tx).assertMayGrantRoles(caller.userId, added.roleIds);
    if (await repo.groupsOutside(added.groupIds, gridScope(scope, sysGroup.gridId)))
      throw fieldError(RESULT.forbidden, 'groupCodeList', 'groupOutsideScope');
  }

  /** Refers only to what exists and lies in the caller's scope; returns the ids of the named groups. */
  private async check(tx: Executor, repo: UserRepository, scope: Scope, input: UserCreate | UserUpdate, id?: string) {
    if (!(await new OrgRepository(tx).exists(input.orgId)) || !(await orgInScope(tx, scope, input.orgId)))
      throw fieldError(RESULT.badRequest, 'orgId', 'orgNotFound');
    if (await repo.missingRoles(input.roleIdList)) throw fieldError(RESULT.badRequest, 'roleIdList', 'roleNotFound');
    const groupIds = await repo.groupIdsOf(input.groupCodeList);
    if (!groupIds) throw fieldError(RESULT.badRequest, 'groupCodeList', 'groupNotFound');
    if (await repo.usernameTaken(input.username, id)) throw existedError(userEntity, 'username');
    return groupIds;
  }
}

const sameSet = (held: ReadonlySet<string>, given: readonly string[]) => {
  const set = new Set(given);
  return set.size === held.size && [...set].every((id) => held.has(id));
};

/**
 * What a user holds, how far its data reaches and how long its account lasts are given by someone
 * else: on its own record these come back unchanged, or the edit is refused naming the field.
 */
function assertOwnAccessKept(
  held: { roleIds: ReadonlySet<string>; groupIds: ReadonlySet<string> },
  expiryDate: Date | null,
  input: UserUpdate,
  groupIds: readonly string[],
): void {
  const expiry = input.expiryDate ? Date.parse(input.expiryDate) : null;
  const changed = !sameSet(held.roleIds, input.roleIdList)
    ? 'roleIdList'
    : !sameSet(held.groupIds, groupIds)
      ? 'groupCodeList'
      : expiry !== (expiryDate?.getTime() ?? null)
        ? 'expiryDate'
        : null;
  if (changed) throw fieldError(RESULT.forbidden, changed, 'cannotChangeOwnAccess');
}
