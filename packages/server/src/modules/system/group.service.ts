import { type GroupCreate, type GroupListQuery, groupEntity, RESULT } from '@meterdesk/contracts';
import type { Db, Executor } from '../../db/driver';
import { newId } from '../../db/ids';
import { powerGrid } from '../../db/schema';
import { ApiError, existedError, fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { gridScope, resolveScope } from '../../rbac/scope';
import { GroupRepository } from './group.repository';

export class GroupService {
  constructor(private readonly db: Db) {}

  list(q: GroupListQuery) {
    return new GroupRepository(this.db).list(q);
  }

  async detail(id: string) {
    const group = await new GroupRepository(this.db).detail(id);
    if (!group) throw notFound();
    return group;
  }

  async save(input: GroupCreate, caller: SessionContext): Promise<{ id: string }> {
    const id = newId();
    await this.db.transaction(async (tx) => {
      const repo = new GroupRepository(tx);
      await this.check(tx, repo, input, caller);
      await repo.insert(id, input);
    });
    return { id };
  }

  async update(id: string, input: GroupCreate, caller: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new GroupRepository(tx);
      if (!(await repo.exists(id))) throw notFound();
      await this.check(tx, repo, input, caller, id);
      await repo.update(id, input);
    });
  }

  async delete(groupCode: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new GroupRepository(tx);
      const group = await repo.findByCode(groupCode);
      if (!group) throw notFound();
      if (await repo.hasUsers(group.id)) throw new ApiError(RESULT.conflict, 'groupHasUsers');
      await repo.delete(group.id);
    });
  }

  /** A group's grid gives its members a data scope: a caller hands out only grid nodes they reach. */
  private async check(tx: Executor, repo: GroupRepository, input: GroupCreate, caller: SessionContext, id?: string) {
    const scope = await resolveScope(tx, caller.userId);
    if (!(await repo.gridExists(input.gridId, gridScope(scope, powerGrid.id)))) {
      throw fieldError(RESULT.badRequest, 'gridId', 'gridNotFound');
    }
    if (await repo.taken('groupName', input.groupName, id)) throw existedError(groupEntity, 'groupName');
    if (await repo.taken('groupCode', input.groupCode, id)) throw existedError(groupEntity, 'groupCode');
  }
}
