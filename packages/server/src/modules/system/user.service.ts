import { RESULT, type UserCreate, type UserListQuery, type UserUpdate } from '@meterdesk/contracts';
import { clearLoginFailures } from '../../auth/login-failures';
import { hashPassword } from '../../auth/password';
import type { SessionContext, SessionStore } from '../../auth/session';
import type { Db, Executor } from '../../db/driver';
import { newId } from '../../db/ids';
import { pageResult } from '../../db/paging';
import { ApiError, fieldError, notFound } from '../../http/api-error';
import { OrgRepository } from './org.repository';
import { UserRepository } from './user.repository';

export class UserService {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionStore,
  ) {}

  async list(q: UserListQuery) {
    const orgIds = q.orgId ? await new OrgRepository(this.db).subtreeIds(q.orgId) : undefined;
    return pageResult(q, await new UserRepository(this.db).list(q, orgIds));
  }

  async detail(id: string) {
    const user = await new UserRepository(this.db).detail(id);
    if (!user) throw notFound();
    return user;
  }

  simpleList() {
    return new UserRepository(this.db).simpleList();
  }

  usernameExists(username: string, exceptId?: string) {
    return new UserRepository(this.db).usernameTaken(username, exceptId);
  }

  /** A new user changes the password an administrator gave at the first login. */
  async save(input: UserCreate): Promise<{ id: string }> {
    const { password, roleIdList, groupCodeList, ...values } = input;
    const id = newId();
    const passwordHash = await hashPassword(password);
    await this.db.transaction(async (tx) => {
      const repo = new UserRepository(tx);
      const groupIds = await this.check(tx, repo, input);
      await repo.insert(id, passwordHash, values);
      await repo.setMemberships(id, roleIdList, groupIds);
    });
    return { id };
  }

  async update(input: UserUpdate, caller: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new UserRepository(tx);
      const current = await repo.find(input.id);
      if (!current) throw notFound();
      if (input.id === caller.userId && input.status !== 'enabled')
        throw new ApiError(RESULT.badRequest, 'cannotChangeSelf');
      const groupIds = await this.check(tx, repo, input, input.id);
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
      const repo = new UserRepository(tx);
      const current = await repo.find(id);
      if (!current || current.username !== username) throw notFound();
      await this.sessions.destroyAllForUser(id, tx);
      await repo.delete(id);
    });
  }

  async unlock(id: string): Promise<void> {
    const repo = new UserRepository(this.db);
    const user = await repo.find(id);
    if (!user) throw notFound();
    await repo.setLock(id, { status: 'enabled', failedLogins: 0, lockedUntil: null });
    await clearLoginFailures(this.db, user.username);
  }

  async resetPassword(id: string, newPassword: string): Promise<void> {
    const passwordHash = await hashPassword(newPassword);
    await this.db.transaction(async (tx) => {
      const repo = new UserRepository(tx);
      if (!(await repo.find(id))) throw notFound();
      await repo.setPassword(id, passwordHash, true);
      await this.sessions.destroyAllForUser(id, tx);
    });
  }

  /** Refers only to what exists; returns the ids of the named groups. */
  private async check(tx: Executor, repo: UserRepository, input: UserCreate | UserUpdate, id?: string) {
    if (!(await new OrgRepository(tx).exists(input.orgId))) throw fieldError(RESULT.badRequest, 'orgId', 'orgNotFound');
    if (await repo.missingRoles(input.roleIdList)) throw fieldError(RESULT.badRequest, 'roleIdList', 'roleNotFound');
    const groupIds = await repo.groupIdsOf(input.groupCodeList);
    if (!groupIds) throw fieldError(RESULT.badRequest, 'groupCodeList', 'groupNotFound');
    if (await repo.usernameTaken(input.username, id)) throw fieldError(RESULT.conflict, 'username', 'existed');
    return groupIds;
  }
}
