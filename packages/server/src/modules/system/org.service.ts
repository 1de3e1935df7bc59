import { type OrgCreate, orgEntity, RESULT, ROOT_PARENT_ID } from '@meterdesk/contracts';
import type { Db, Executor } from '../../db/driver';
import { newId } from '../../db/ids';
import { sysOrg } from '../../db/schema';
import { ApiError, existedError, fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { orgScope, resolveScope } from '../../rbac/scope';
import { OrgRepository } from './org.repository';

/** Organisations within the caller's scope: their own organisation's subtree (everything for an administrator). */
export class OrgService {
  constructor(private readonly db: Db) {}

  private async scope(caller: SessionContext, db: Executor = this.db) {
    const scope = await resolveScope(db, caller.userId);
    return { scope, where: orgScope(scope, sysOrg.id) };
  }

  async tree(caller: SessionContext) {
    const { where } = await this.scope(caller);
    return new OrgRepository(this.db).tree(where);
  }

  async detail(id: string, caller: SessionContext) {
    const { where } = await this.scope(caller);
    const org = await new OrgRepository(this.db).detail(id, where);
    if (!org) throw notFound();
    return org;
  }

  nameExists(name: string, exceptId?: string) {
    return new OrgRepository(this.db).nameTaken(name, exceptId);
  }

  async save(input: OrgCreate, caller: SessionContext): Promise<{ id: string }> {
    const id = newId();
    await this.db.transaction(async (tx) => {
      const repo = new OrgRepository(tx);
      const { scope, where } = await this.scope(caller, tx);
      // Outside the admin role a new organisation hangs below one the caller reaches, never at the root.
      if (!scope.all && input.pid === ROOT_PARENT_ID) throw fieldError(RESULT.badRequest, 'pid', 'orgNotFound');
      await this.check(repo, input, where);
      await repo.insert(id, input);
    });
    return { id };
  }

  async update(id: string, input: OrgCreate, caller: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new OrgRepository(tx);
      const { where } = await this.scope(caller, tx);
      const current = await repo.find(id, where);
      if (!current) throw notFound();
      // The caller's own organisation keeps its parent, which lies outside the caller's reach.
      await this.check(repo, input, current.pid === input.pid ? undefined : where, id);
      await repo.update(id, input);
    });
  }

  async delete(id: string, caller: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new OrgRepository(tx);
      const { where } = await this.scope(caller, tx);
      if (!(await repo.exists(id, where))) throw notFound();
      if (await repo.hasChildren(id)) throw new ApiError(RESULT.conflict, 'orgHasChildren');
      if ((await repo.userCount(id)) > 0) throw new ApiError(RESULT.conflict, 'orgHasUsers');
      await repo.delete(id);
    });
  }

  private async check(repo: OrgRepository, input: OrgCreate, parentScope: ReturnType<typeof orgScope>, id?: string) {
    if (input.pid !== ROOT_PARENT_ID) {
      if (!(await repo.exists(input.pid, parentScope))) throw fieldError(RESULT.badRequest, 'pid', 'orgNotFound');
      if (id && (await repo.subtreeIds(id)).includes(input.pid))
        throw fieldError(RESULT.badRequest, 'pid', 'orgParentCycle');
    }
    if (await repo.nameTaken(input.orgName, id)) throw existedError(orgEntity, 'orgName');
    if (await repo.codeTaken(input.orgCode, id)) throw existedError(orgEntity, 'orgCode');
  }
}
