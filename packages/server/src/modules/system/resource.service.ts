import {
  type MessageKey,
  RESULT,
  type ResourceCreate,
  type ResourceListQuery,
  type ResourceUpdate,
  ROOT_PARENT_ID,
} from '@meterdesk/contracts';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { pageResult } from '../../db/paging';
import { fieldError, notFound } from '../../http/api-error';
import { ResourceRepository } from './resource.repository';

/** Which resource types may sit under which: areas at the root, buttons never have children. */
const ALLOWED_PARENT_TYPES: Record<number, readonly number[]> = { 1: [0, 1], 2: [0, 1, 2], 3: [0, 1, 2] };

export class ResourceService {
  private readonly repo: ResourceRepository;

  constructor(private readonly db: Db) {
    this.repo = new ResourceRepository(db);
  }

  async list(query: ResourceListQuery) {
    return pageResult(query, await this.repo.list(query));
  }

  tree() {
    return this.repo.tree();
  }

  async detail(id: string) {
    const found = await this.repo.detail(id);
    if (!found) throw notFound();
    return found;
  }

  async nameExists(input: { id?: string | undefined; type: 1 | 2; resourceName: string; parentId: string }) {
    const column = input.type === 1 ? 'resourceNameEn' : 'resourceName';
    return this.repo.siblingNameTaken(column, input.resourceName, input.parentId, input.id);
  }

  async save(input: ResourceCreate): Promise<{ id: string }> {
    const id = newId();
    await this.db.transaction(async (tx) => {
      const repo = new ResourceRepository(tx);
      await this.check(repo, input);
      await repo.insert(id, input);
    });
    return { id };
  }

  async update(input: ResourceUpdate): Promise<void> {
    const { id, ...values } = input;
    await this.db.transaction(async (tx) => {
      const repo = new ResourceRepository(tx);
      if (!(await repo.findById(id))) throw notFound();
      await this.check(repo, values, id);
      await repo.update(id, values);
    });
  }

  private async check(repo: ResourceRepository, input: ResourceCreate, id?: string): Promise<void> {
    const refuse = (field: string, key: MessageKey, code: number = RESULT.badRequest) => {
      throw fieldError(code, field, key);
    };
    if (input.resourceType === 0) {
      if (input.parentId !== ROOT_PARENT_ID) refuse('parentId', 'parentTypeMismatch');
    } else {
      if (input.parentId === ROOT_PARENT_ID) refuse('parentId', 'parentTypeMismatch');
      const parent = await repo.findById(input.parentId);
      if (!parent) return refuse('parentId', 'parentNotFound');
      if (!ALLOWED_PARENT_TYPES[input.resourceType]?.includes(parent.resourceType)) {
        refuse('parentId', 'parentTypeMismatch');
      }
      if (id && (input.parentId === id || (await repo.ancestorIds(input.parentId)).includes(id))) {
        refuse('parentId', 'parentCycle');
      }
    }
    if (id && input.resourceType === 3 && (await repo.hasChildren(id))) refuse('resourceType', 'parentTypeMismatch');
    if (await repo.siblingNameTaken('resourceName', input.resourceName, input.parentId, id)) {
      refuse('resourceName', 'existed', RESULT.conflict);
    }
    if (await repo.siblingNameTaken('resourceNameEn', input.resourceNameEn, input.parentId, id)) {
      refuse('resourceNameEn', 'existed', RESULT.conflict);
    }
    if (await repo.uriTaken(input.resourceUri, id)) refuse('resourceUri', 'resourceUriExisted', RESULT.conflict);
  }
}
