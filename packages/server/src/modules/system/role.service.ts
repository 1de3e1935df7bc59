import { RESULT, type RoleCreate } from '@meterdesk/contracts';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { pageResult } from '../../db/paging';
import { ApiError, fieldError, notFound } from '../../http/api-error';
import { RoleRepository } from './role.repository';

export class RoleService {
  constructor(private readonly db: Db) {}

  async list(q: Parameters<RoleRepository['list']>[0]) {
    return pageResult(q, await new RoleRepository(this.db).list(q));
  }

  async detail(id: string) {
    const role = await new RoleRepository(this.db).detail(id);
    if (!role) throw notFound();
    return role;
  }

  nameExists(name: string, exceptId?: string) {
    return new RoleRepository(this.db).nameTaken(name, exceptId);
  }

  async save(input: RoleCreate): Promise<{ id: string }> {
    const id = newId();
    await this.db.transaction(async (tx) => {
      const repo = new RoleRepository(tx);
      await this.check(repo, input);
      await repo.insert(id, input);
    });
    return { id };
  }

  /** Users read their permissions on every request, so they see the change at their next one. */
  async update(id: string, input: RoleCreate): Promise<void> {
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
      await repo.update(id, input);
    });
  }

  async delete(id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new RoleRepository(tx);
      const role = await repo.find(id);
      if (!role) throw notFound();
      if (role.builtIn) throw new ApiError(RESULT.conflict, 'builtInRole');
      if (await repo.hasUsers(id)) throw new ApiError(RESULT.conflict, 'roleHasUsers');
      await repo.delete(id);
    });
  }

  async assignUsers(roleId: string, userIdList: string[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new RoleRepository(tx);
      const role = await repo.find(roleId);
      if (!role) throw notFound();
      const unique = [...new Set(userIdList)];
      if ((await repo.countExisting('user', unique)) !== unique.length) {
        throw fieldError(RESULT.badRequest, 'userIdList', 'userNotFound');
      }
      // Someone must always be able to administer the system.
      if (role.builtIn && unique.length === 0) throw new ApiError(RESULT.conflict, 'builtInRole');
      await repo.setUsers(roleId, unique);
    });
  }

  private async check(repo: RoleRepository, input: RoleCreate, id?: string) {
    const unique = [...new Set(input.resourceIdList)];
    if ((await repo.countExisting('resource', unique)) !== unique.length) {
      throw fieldError(RESULT.badRequest, 'resourceIdList', 'invalidValue');
    }
    if (await repo.nameTaken(input.roleName, id)) throw fieldError(RESULT.conflict, 'roleName', 'existed');
  }
}
