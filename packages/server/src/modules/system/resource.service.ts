import {
  flattenResourceTree,
  type MessageKey,
  RESULT,
  type ResourceCreate,
  type ResourceListQuery,
  type ResourceUpdate,
  ROOT_PARENT_ID,
  resourceEntity,
} from '@meterdesk/contracts';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { resourceIdOf } from '../../db/seeded-ids';
import { ApiError, existedError, fieldError, notFound } from '../../errors/api-error';
import { ResourceRepository } from './resource.repository';

/** The uris of the built-in tree: the server guards its routes with them, so no other node may take one. */
const BUILT_IN_URIS = new Set(flattenResourceTree().map(({ seed }) => seed.uri));
const isBuiltIn = (row: { id: string; resourceUri: string }) =>
  BUILT_IN_URIS.has(row.resourceUri) && row.id === resourceIdOf(row.resourceUri);

/** Which resource types may sit under which: areas at the root, buttons never have children. */
const ALLOWED_PARENT_TYPES: Record<number, readonly number[]> = { 1: [0, 1], 2: [0, 1, 2], 3: [0, 1, 2] };

export class ResourceService {
  private readonly repo: ResourceRepository;

  constructor(private readonly db: Db) {
    this.repo = new ResourceRepository(db);
  }

  list(query: ResourceListQuery) {
    return this.repo.list(query);
  }

  tree() {
    return this.repo.tree();
  }

  /** The resources a user's roles reach, as a tree: the menu the web builds after login. */
  permittedTree(userId: string) {
    return this.repo.permittedTree(userId);
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

  /**
   * A built-in node keeps its uri (every role holding it would otherwise gain the permission the
   * new uri guards); names, icon, order and parent may change.
   */
  async update(input: ResourceUpdate): Promise<void> {
    const { id, ...values } = input;
    await this.db.transaction(async (tx) => {
      const repo = new ResourceRepository(tx);
      const current = await repo.findById(id);
      if (!current) throw notFound();
      if (isBuiltIn(current) && values.resourceUri !== current.resourceUri)
        throw fieldError(RESULT.conflict, 'resourceUri', 'builtInResource');
      await this.check(repo, values, id, isBuiltIn(current));
      await repo.update(id, values);
    });
  }

  /** Only nodes an administrator added, and only without children; their grants go with them. */
  async delete(id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = new ResourceRepository(tx);
      const current = await repo.findById(id);
      if (!current) throw notFound();
      if (isBuiltIn(current)) throw new ApiError(RESULT.conflict, 'builtInResource');
      if (await repo.hasChildren(id)) throw new ApiError(RESULT.conflict, 'resourceHasChildren');
      await repo.delete(id);
    });
  }

  private async check(repo: ResourceRepository, input: ResourceCreate, id?: string, builtIn = false): Promise<void> {
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
      if (!builtIn && !input.resourceUri.startsWith(`${parent.resourceUri}/`)) {
        refuse('resourceUri', 'resourceUriOutsideParent');
      }
      if (id && (input.parentId === id || (await repo.ancestorIds(input.parentId)).includes(id))) {
        refuse('parentId', 'parentCycle');
      }
    }
    if (id && input.resourceType === 3 && (await repo.hasChildren(id))) refuse('resourceType', 'parentTypeMismatch');
    if (await repo.siblingNameTaken('resourceName', input.resourceName, input.parentId, id)) {
      throw existedError(resourceEntity, 'resourceName');
    }
    if (await repo.siblingNameTaken('resourceNameEn', input.resourceNameEn, input.parentId, id)) {
      throw existedError(resourceEntity, 'resourceNameEn');
    }
    if (!builtIn && BUILT_IN_URIS.has(input.resourceUri)) refuse('resourceUri', 'resourceUriGuarded');
    if (await repo.uriTaken(input.resourceUri, id)) refuse('resourceUri', 'resourceUriExisted', RESULT.conflict);
  }
}
