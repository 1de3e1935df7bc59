import { type OrgCreate, RESULT, ROOT_PARENT_ID } from '@meterdesk/contracts';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { ApiError, fieldError, notFound } from '../../http/api-error';
import { OrgRepository } from './org.repository';

export class OrgService {
  constructor(private readonly db: Db) {}

  tree() {
    return new OrgRepository(this.db).tree();
  }

  async detail(id: string) {
    const org = await new OrgRepository(this.db).detail(id);
    if (!org) throw notFound();
    return org;
  }

  nameExists(name: string, exceptId?: string) {
    return new OrgRepository(this.db).nameTaken(name, exceptId);
  }

  async save(input: OrgCreate): Promise<{ id: string }> {
    const id = newId();
    await this.db.transaction(async (tx) => {
      const repo = new OrgRepository(tx);
      await this.check(repo, input);
      await repo.insert(id, input);
    });
    return { id };
  }

  async update(id: string, input: OrgCreate): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new OrgRepository(tx);
      if (!(await repo.exists(id))) throw notFound();
      await this.check(repo, input, id);
      await repo.update(id, input);
    });
  }

  async delete(id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new OrgRepository(tx);
      if (!(await repo.exists(id))) throw notFound();
      if (await repo.hasChildren(id)) throw new ApiError(RESULT.conflict, 'orgHasChildren');
      if ((await repo.userCount(id)) > 0) throw new ApiError(RESULT.conflict, 'orgHasUsers');
      await repo.delete(id);
    });
  }

  private async check(repo: OrgRepository, input: OrgCreate, id?: string): Promise<void> {
    if (input.pid !== ROOT_PARENT_ID) {
      if (!(await repo.exists(input.pid))) throw fieldError(RESULT.badRequest, 'pid', 'orgNotFound');
      if (id && (await repo.subtreeIds(id)).includes(input.pid))
        throw fieldError(RESULT.badRequest, 'pid', 'orgParentCycle');
    }
    if (await repo.nameTaken(input.orgName, id)) throw fieldError(RESULT.conflict, 'orgName', 'existed');
  }
}
