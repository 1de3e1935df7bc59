import { RESULT, type RoleCreate, type RoleListQuery, roleEntity } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/driver';
import { newId } from '../../db/ids';
import { sysUser } from '../../db/schema';
import { remarkFor, remarkToStore } from '../../db/seeded-roles';
import { ApiError, existedError, fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { Grants } from '../../rbac/grants';
import { orgScope, resolveScope } from '../../rbac/scope';
import { RoleRepository } from './role.repository';

/**
 * Roles as the caller may shape them: a role's resources are granted only by someone who holds
 * them all, and assigning a role changes only users the caller reaches and outranks.
 */
export class RoleService {
  constructor(private readonly db: Db) {}

  async list(q: RoleListQuery, caller: SessionContext) {
    const page = await new RoleRepository(this.db).list(q, await this.memberScope(caller));
    return { ...page, list: page.list.map((role) => ({ ...role, remark: remarkFor(role, caller.language) })) };
  }

  async detail(id: string, caller: SessionContext) {
    const role = await new RoleRepository(this.db).detail(id, await this.memberScope(caller));
    if (!role) throw notFound();
    return { ...role, remark: remarkFor(role, caller.language) };
  }

  /** Roles are shared by every organisation; their members are shown only where the caller reaches. */
  private async memberScope(caller: SessionContext) {
    return orgScope(await resolveScope(this.db, caller.userId), sql`member.org_id`);
  }

  nameExists(name: string, exceptId?: string) {
    return new RoleRepository(this.db).nameTaken(name, exceptId);
  }

  async save(input: RoleCreate, caller: SessionContext): Promise<{ id: string }> {
    const id = newId();
    await this.db.transaction(async (tx) => {
      const repo = new RoleRepository(tx);
      await this.check(repo, input);
      await this.assertHoldsAll(tx, caller, input.resourceIdList);
      await repo.insert(id, input);
    });
    return { id };
  }

  /** Users read their permissions on every request, so they see the change at their next one. */
  async update(id: string, input: RoleCreate, caller: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new RoleRepository(tx);
      const role = await repo.find(id);
      if (!role) throw notFound();
      await this.check(repo, input, id);
      if (role.builtIn) {
        const all = await repo.allResourceIds();
        const kept = new Set(input.resourceIdList);
        if (all.some((r) => !kept.has(r))) throw new ApiError(RESULT.conflict, 'builtInRole');
      }
      await this.assertHoldsAll(tx, caller, [...(await repo.resourceIdsOf(id)), ...input.resourceIdList]);
      await repo.update(id, { ...input, remark: remarkToStore(id, input.remark) });
    });
  }

  async delete(id: string, caller: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new RoleRepository(tx);
      const role = await repo.find(id);
      if (!role) throw notFound();
      if (role.builtIn) throw new ApiError(RESULT.conflict, 'builtInRole');
      if (await repo.hasUsers(id)) throw new ApiError(RESULT.conflict, 'roleHasUsers');
      await this.assertHoldsAll(tx, caller, await repo.resourceIdsOf(id));
      await repo.delete(id);
    });
  }

  /**
   * Sets the role's users among those the caller reaches; members outside the caller's scope
   * keep the role. Every user added or removed must hold nothing the caller lacks.
   */
  async assignUsers(roleId: string, userIdList: string[], caller: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new RoleRepository(tx);
      const grants = new Grants(tx);
      const role = await repo.find(roleId);
      if (!role) throw notFound();
      const wanted = new Set(userIdList);
      const scope = orgScope(await resolveScope(tx, caller.userId), sysUser.orgId);
      if ((await repo.countExisting('user', [...wanted], scope)) !== wanted.size) {
        throw fieldError(RESULT.badRequest, 'userIdList', 'userNotFound');
      }
      const members = await repo.members(roleId, scope);
      const current = new Set(members.map((m) => m.id));
      const kept = members.filter((m) => !m.inScope).map((m) => m.id);
      const added = [...wanted].filter((id) => !current.has(id));
      const removed = members.filter((m) => m.inScope && !wanted.has(m.id)).map((m) => m.id);
      if (added.length) await grants.assertMayGrantRoles(caller.userId, [roleId], 'roleId');
      for (const id of [...added, ...removed]) await grants.assertMayActOn(caller.userId, id);
      const next = [...new Set([...kept, ...wanted])];
      // Someone must always be able to administer the system.
      if (role.builtIn && next.length === 0) throw new ApiError(RESULT.conflict, 'builtInRole');
      if (role.builtIn) await grants.assertAdminRemains(removed);
      if (added.includes(caller.userId) || removed.includes(caller.userId))
        throw fieldError(RESULT.forbidden, 'userIdList', 'cannotChangeOwnAccess');
      await repo.setUsers(roleId, next);
    });
  }

  private async assertHoldsAll(tx: Executor, caller: SessionContext, resourceIds: readonly string[]) {
    const held = await new Grants(tx).heldBy(caller.userId);
    if (resourceIds.some((id) => !held.has(id)))
      throw fieldError(RESULT.forbidden, 'resourceIdList', 'grantExceedsOwn');
  }

  private async check(repo: RoleRepository, input: RoleCreate, id?: string) {
    const unique = [...new Set(input.resourceIdList)];
    if ((await repo.countExisting('resource', unique)) !== unique.length) {
      throw fieldError(RESULT.badRequest, 'resourceIdList', 'invalidValue');
    }
    if (await repo.nameTaken(input.roleName, id)) throw existedError(roleEntity, 'roleName');
  }
}
