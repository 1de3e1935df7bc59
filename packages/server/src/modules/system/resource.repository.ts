import {
  type Resource,
  type ResourceCreate,
  type ResourceListQuery,
  type ResourceNode,
  ROOT_PARENT_ID,
  resourceEntity,
} from '@meterdesk/contracts';
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/driver';
import { defineList, listPage, selectSource } from '../../db/list';
import { anyRow, iso } from '../../db/rows';
import { sysResource, sysRoleResource, sysUserRole } from '../../db/schema';

type Row = typeof sysResource.$inferSelect;

const parent = alias(sysResource, 'parent');

export const RESOURCE_LIST = defineList({
  entity: resourceEntity,
  columns: {
    resourceName: sysResource.resourceName,
    resourceNameEn: sysResource.resourceNameEn,
    resourceType: sysResource.resourceType,
    resourceUri: sysResource.resourceUri,
    orderNum: sysResource.orderNum,
    updateTime: sysResource.updateTime,
  },
  defaultOrder: asc(sysResource.resourceUri),
  tieBreak: sysResource.id,
});

const toNode = (r: Row): ResourceNode => ({
  id: r.id,
  resourceName: r.resourceName,
  resourceNameEn: r.resourceNameEn,
  resourceType: r.resourceType,
  resourceUri: r.resourceUri,
  perms: r.perms,
  icon: r.icon,
  parentId: r.parentId,
  orderNum: r.orderNum,
  children: [],
});

/** Nodes whose parent is not among the rows are dropped with their subtree: a child is reachable only through its parent. */
export function buildTree(rows: Row[]): ResourceNode[] {
  const nodes = new Map(rows.map((r) => [r.id, toNode(r)]));
  const roots: ResourceNode[] = [];
  for (const node of nodes.values()) {
    if (node.parentId === ROOT_PARENT_ID) roots.push(node);
    else nodes.get(node.parentId)?.children.push(node);
  }
  const sort = (list: ResourceNode[]) => {
    list.sort((a, b) => a.orderNum - b.orderNum || a.resourceNameEn.localeCompare(b.resourceNameEn));
    for (const n of list) sort(n.children);
  };
  sort(roots);
  return roots;
}

export class ResourceRepository {
  constructor(private readonly db: Executor) {}

  list(q: ResourceListQuery) {
    return listPage(
      RESOURCE_LIST,
      q,
      selectSource(this.db, {
        select: () =>
          this.db
            .select({ r: sysResource, parentName: parent.resourceName, parentNameEn: parent.resourceNameEn })
            .from(sysResource)
            .leftJoin(parent, eq(parent.id, sysResource.parentId)),
        map: ({ r, parentName, parentNameEn }): Resource => {
          const { children: _children, ...node } = toNode(r);
          return {
            ...node,
            parentName: parentName ?? '',
            parentNameEn: parentNameEn ?? '',
            createTime: iso(r.createTime),
            updateTime: iso(r.updateTime),
          };
        },
        countFrom: sysResource,
      }),
    );
  }

  async findById(id: string): Promise<Row | undefined> {
    const [row] = await this.db.select().from(sysResource).where(eq(sysResource.id, id));
    return row;
  }

  async detail(id: string): Promise<Resource | undefined> {
    const [row] = await this.db
      .select({ r: sysResource, parentName: parent.resourceName, parentNameEn: parent.resourceNameEn })
      .from(sysResource)
      .leftJoin(parent, eq(parent.id, sysResource.parentId))
      .where(eq(sysResource.id, id));
    if (!row) return undefined;
    const { children: _children, ...node } = toNode(row.r);
    return {
      ...node,
      parentName: row.parentName ?? '',
      parentNameEn: row.parentNameEn ?? '',
      createTime: iso(row.r.createTime),
      updateTime: iso(row.r.updateTime),
    };
  }

  async tree(): Promise<ResourceNode[]> {
    return buildTree(await this.db.select().from(sysResource));
  }

  async permittedTree(userId: string): Promise<ResourceNode[]> {
    const rows = await this.db
      .selectDistinct({ r: sysResource })
      .from(sysUserRole)
      .innerJoin(sysRoleResource, eq(sysRoleResource.roleId, sysUserRole.roleId))
      .innerJoin(sysResource, eq(sysResource.id, sysRoleResource.resourceId))
      .where(eq(sysUserRole.userId, userId));
    return buildTree(rows.map((x) => x.r));
  }

  /** Whether a sibling (same parent) other than `exceptId` already has this name in the given column. */
  siblingNameTaken(column: 'resourceName' | 'resourceNameEn', name: string, parentId: string, exceptId?: string) {
    return anyRow(
      this.db,
      sysResource,
      and(
        eq(sysResource.parentId, parentId),
        eq(sql`lower(${sysResource[column]})`, name.toLowerCase()),
        exceptId ? ne(sysResource.id, exceptId) : undefined,
      ),
    );
  }

  uriTaken(uri: string, exceptId?: string) {
    return anyRow(
      this.db,
      sysResource,
      and(eq(sysResource.resourceUri, uri), exceptId ? ne(sysResource.id, exceptId) : undefined),
    );
  }

  hasChildren(id: string) {
    return anyRow(this.db, sysResource, eq(sysResource.parentId, id));
  }

  async ancestorIds(id: string): Promise<string[]> {
    const chain: string[] = [];
    let current = await this.findById(id);
    while (current && current.parentId !== ROOT_PARENT_ID && !chain.includes(current.parentId)) {
      chain.push(current.parentId);
      current = await this.findById(current.parentId);
    }
    return chain;
  }

  /** The built-in admin role holds every resource, including the ones added later. */
  async insert(id: string, values: ResourceCreate): Promise<void> {
    await this.db.insert(sysResource).values({ id, ...values });
    await this.db.execute(
      sql`insert into sys_role_resource (role_id, resource_id) select id, ${id} from sys_role where built_in`,
    );
  }

  async update(id: string, values: ResourceCreate): Promise<void> {
    await this.db
      .update(sysResource)
      .set({ ...values, updateTime: new Date() })
      .where(eq(sysResource.id, id));
  }

  async delete(id: string): Promise<void> {
    await this.db.delete(sysResource).where(eq(sysResource.id, id));
  }
}
