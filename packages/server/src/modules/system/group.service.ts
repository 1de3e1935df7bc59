import { type GroupCreate, type GroupListQuery, groupEntity, RESULT } from '@meterdesk/contracts';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { ApiError, existedError, fieldError, notFound } from '../../http/api-error';
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

  gridTree() {
    return new GroupRepository(this.db).gridTree();
  }

  async save(input: GroupCreate): Promise<{ id: string }> {
    const id = newId();
    await this.db.transaction(async (tx) => {
      const repo = new GroupRepository(tx);
      await this.check(repo, input);
      await repo.insert(id, input);
    });
    return { id };
  }

  async update(id: string, input: GroupCreate): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new GroupRepository(tx);
      if (!(await repo.exists(id))) throw notFound();
      await this.check(repo, input, id);
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

  private async check(repo: GroupRepository, input: GroupCreate, id?: string) {
    if (!(await repo.gridExists(input.gridId))) throw fieldError(RESULT.badRequest, 'gridId', 'gridNotFound');
    if (await repo.taken('groupName', input.groupName, id)) throw existedError(groupEntity, 'groupName');
    if (await repo.taken('groupCode', input.groupCode, id)) throw existedError(groupEntity, 'groupCode');
  }
}
