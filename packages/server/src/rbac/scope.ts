import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/driver';
import { inSubtree, type TreeTable } from '../db/list';
import { qualified } from '../db/rows';
import { powerGrid, sysOrg, sysUser, sysUserRole } from '../db/schema';
import { ADMIN_ROLE_ID } from '../db/seeded-ids';

/**
 * What records a caller reaches. Outside the built-in admin role a user sees system records
 * only within their own organisation's subtree (and, from the archive on, archive records only
 * under the grid nodes of their user groups). A record outside answers 404 like one that does
 * not exist, so every list, detail, lookup and change goes through a condition built here.
 */
export interface Scope {
  /** Holds the built-in admin role: everything. */
  all: boolean;
  /** The caller's organisation; null reaches no organisation-scoped record. */
  orgId: string | null;
  /** The grid nodes of the caller's user groups; none reaches no archive record. */
  gridIds: readonly string[];
}

export const ORG_TREE: TreeTable = { table: sysOrg, parentKey: 'pid' };
export const GRID_TREE: TreeTable = { table: powerGrid, parentKey: 'parentId' };

/**
 * What a user reaches, as select fields over the `sys_user` row: the session check of every request
 * reads them in its own query, so the scope costs no extra round trip.
 */
export const scopeFields = {
  orgId: sysUser.orgId,
  gridIds: sql<
    string[]
  >`coalesce((select array_agg(distinct g.grid_id) from sys_user_group ug join sys_group g on g.id = ug.group_id where ug.user_id = ${qualified(sysUser.id)}), '{}')`,
  admin: sql<boolean>`exists (select 1 from ${sysUserRole} where ${sysUserRole.userId} = ${qualified(sysUser.id)} and ${sysUserRole.roleId} = ${ADMIN_ROLE_ID})`,
};

export const toScope = (
  row: { orgId: string | null; gridIds: string[] | null; admin: boolean } | undefined,
): Scope => ({
  all: row?.admin === true,
  orgId: row?.orgId ?? null,
  gridIds: row?.gridIds ?? [],
});

export async function resolveScope(db: Executor, userId: string): Promise<Scope> {
  const [row] = await db.select(scopeFields).from(sysUser).where(eq(sysUser.id, userId));
  return toScope(row);
}

/**
 * The caller's scope: as the session check read it at the start of the request, or read now for a
 * session made elsewhere (a job acting for its user).
 */
export const scopeOf = (db: Executor, session: { userId: string; scope?: Scope | undefined }): Promise<Scope> =>
  session.scope ? Promise.resolve(session.scope) : resolveScope(db, session.userId);

/** Limits `orgColumn` to the caller's organisation subtree; nothing for an administrator. */
export function orgScope(scope: Scope, orgColumn: AnyPgColumn | SQL): SQL | undefined {
  if (scope.all) return undefined;
  if (!scope.orgId) return sql`false`;
  return inSubtree(orgColumn, ORG_TREE, scope.orgId);
}

/** Limits `gridColumn` to the grid nodes of the caller's groups and below; nothing for an administrator. */
export function gridScope(scope: Scope, gridColumn: AnyPgColumn | SQL): SQL | undefined {
  if (scope.all) return undefined;
  if (scope.gridIds.length === 0) return sql`false`;
  return inSubtree(gridColumn, GRID_TREE, scope.gridIds);
}

/** Whether an organisation lies within the caller's scope. */
export async function orgInScope(db: Executor, scope: Scope, orgId: string): Promise<boolean> {
  if (scope.all) return true;
  const rows = await db
    .select({ id: sysOrg.id })
    .from(sysOrg)
    .where(and(eq(sysOrg.id, orgId), orgScope(scope, sysOrg.id)));
  return rows.length > 0;
}
