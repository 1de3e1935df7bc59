import { type Org, type OrgCreate, type OrgNode, ROOT_PARENT_ID } from '@meterdesk/contracts';
import { and, eq, ne, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/driver';
import { anyRow, countAll, iso, qualified, rowsOf } from '../../db/rows';
import { sysOrg, sysUser } from '../../db/schema';

const parent = alias(sysOrg, 'parent');
const userCount = sql<number>`(select count(*) from sys_user u where u.org_id = ${qualified(sysOrg.id)})`.mapWith(
  Number,
);

export class OrgRepository {
  constructor(private readonly db: Executor) {}

  private async rows(where?: SQL): Promise<Org[]> {
    const rows = await this.db
      .select({ o: sysOrg, parentName: parent.orgName, userCount })
      .from(sysOrg)
      .leftJoin(parent, eq(parent.id, sysOrg.pid))
      .where(where)
      .orderBy(sysOrg.orgName);
    return rows.map(({ o, parentName, userCount: count }) => ({
      id: o.id,
      orgName: o.orgName,
      orgCode: o.orgCode,
      pid: o.pid,
      remark: o.remark,
      extendInfo: { phoneUser: '', email: '', phone: '', address: '', ...o.extendInfo },
      parentName: parentName ?? '',
      userCount: count,
      createTime: iso(o.createTime),
      updateTime: iso(o.updateTime),
    }));
  }

  /** The organisations within `scope` as a tree; a node whose parent lies outside is a root. */
  async tree(scope: SQL | undefined): Promise<OrgNode[]> {
    const nodes = new Map((await this.rows(scope)).map((o) => [o.id, { ...o, children: [] as OrgNode[] }]));
    const roots: OrgNode[] = [];
    for (const node of nodes.values()) {
      const parent = node.pid === ROOT_PARENT_ID ? undefined : nodes.get(node.pid);
      if (parent) parent.children.push(node);
      else roots.push(node);
    }
    return roots;
  }

  async detail(id: string, scope: SQL | undefined): Promise<Org | undefined> {
    return (await this.rows(and(eq(sysOrg.id, id), scope)))[0];
  }

  exists(id: string, scope?: SQL) {
    return anyRow(this.db, sysOrg, and(eq(sysOrg.id, id), scope));
  }

  async find(id: string, scope?: SQL) {
    const [row] = await this.db
      .select()
      .from(sysOrg)
      .where(and(eq(sysOrg.id, id), scope));
    return row;
  }

  codeTaken(code: string, exceptId?: string) {
    return anyRow(
      this.db,
      sysOrg,
      and(eq(sql`lower(${sysOrg.orgCode})`, code.toLowerCase()), exceptId ? ne(sysOrg.id, exceptId) : undefined),
    );
  }

  nameTaken(name: string, exceptId?: string) {
    return anyRow(
      this.db,
      sysOrg,
      and(eq(sql`lower(${sysOrg.orgName})`, name.toLowerCase()), exceptId ? ne(sysOrg.id, exceptId) : undefined),
    );
  }

  /** Ids of the organisation and everything below it. */
  async subtreeIds(id: string): Promise<string[]> {
    const rows = await rowsOf<{ id: string }>(
      this.db,
      sql`
      with recursive sub(id) as (
        select id from sys_org where id = ${id}
        union all
        select o.id from sys_org o join sub on o.pid = sub.id
      ) select id from sub`,
    );
    return rows.map((r) => r.id);
  }

  hasChildren(id: string) {
    return anyRow(this.db, sysOrg, eq(sysOrg.pid, id));
  }

  async userCount(id: string): Promise<number> {
    const [row] = await this.db.select({ n: countAll() }).from(sysUser).where(eq(sysUser.orgId, id));
    return row?.n ?? 0;
  }

  async insert(id: string, values: OrgCreate) {
    await this.db.insert(sysOrg).values({ id, ...values });
  }

  async update(id: string, values: OrgCreate) {
    await this.db
      .update(sysOrg)
      .set({ ...values, updateTime: new Date() })
      .where(eq(sysOrg.id, id));
  }

  async delete(id: string) {
    await this.db.delete(sysOrg).where(eq(sysOrg.id, id));
  }
}
