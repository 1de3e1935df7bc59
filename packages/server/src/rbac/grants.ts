import { RESULT } from '@meterdesk/contracts';
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/driver';
import { countAll } from '../db/rows';
import { sysRoleResource, sysUser, sysUserRole } from '../db/schema';
import { ADMIN_ROLE_ID } from '../db/seeded-ids';
import { ApiError, fieldError } from '../errors/api-error';

/**
 * Nobody gives away more than they hold: a caller assigns only roles whose resources it holds
 * itself, and never acts on a user who holds a resource it lacks. The system always keeps one
 * enabled user with the built-in admin role.
 */
export class Grants {
  constructor(private readonly db: Executor) {}

  /** The resource ids a user holds through their roles. */
  async heldBy(userId: string): Promise<Set<string>> {
    const rows = await this.db
      .selectDistinct({ id: sysRoleResource.resourceId })
      .from(sysUserRole)
      .innerJoin(sysRoleResource, eq(sysRoleResource.roleId, sysUserRole.roleId))
      .where(eq(sysUserRole.userId, userId));
    return new Set(rows.map((r) => r.id));
  }

  /** Refuses (403, on `field`) when the roles carry a resource the caller does not hold. */
  async assertMayGrantRoles(callerId: string, roleIds: readonly string[], field = 'roleIdList'): Promise<void> {
    if (roleIds.length === 0) return;
    const held = [...(await this.heldBy(callerId))];
    const [beyond] = await this.db
      .select({ n: countAll() })
      .from(sysRoleResource)
      .where(
        and(
          inArray(sysRoleResource.roleId, [...roleIds]),
          held.length ? notInArray(sysRoleResource.resourceId, held) : undefined,
        ),
      );
    if ((beyond?.n ?? 0) > 0) throw fieldError(RESULT.forbidden, field, 'grantExceedsOwn');
  }

  /** Refuses (403) acting on a user who holds a resource the caller lacks. */
  async assertMayActOn(callerId: string, targetId: string): Promise<void> {
    if (callerId === targetId) return;
    const held = await this.heldBy(callerId);
    for (const id of await this.heldBy(targetId)) {
      if (!held.has(id)) throw new ApiError(RESULT.forbidden, 'userHoldsMore');
    }
  }

  /**
   * Refuses (409) a change after which no enabled user would hold the built-in admin role;
   * `leaving` are the users the change disables, deletes or strips of that role. Only an administrator
   * leaving can leave the system without one: for anyone else there is nothing to refuse.
   */
  async assertAdminRemains(leaving: readonly string[]): Promise<void> {
    if (leaving.length === 0) return;
    const admins = await this.db
      .select({ one: sql`1` })
      .from(sysUserRole)
      .where(and(inArray(sysUserRole.userId, [...leaving]), eq(sysUserRole.roleId, ADMIN_ROLE_ID)))
      .limit(1);
    if (admins.length === 0) return;
    const [row] = await this.db
      .select({ n: countAll() })
      .from(sysUserRole)
      .innerJoin(sysUser, eq(sysUser.id, sysUserRole.userId))
      .where(
        and(
          eq(sysUserRole.roleId, ADMIN_ROLE_ID),
          eq(sysUser.status, 'enabled'),
          sql`(${sysUser.expiryDate} is null or ${sysUser.expiryDate} > now())`,
          notInArray(sysUser.id, [...leaving]),
        ),
      );
    if ((row?.n ?? 0) === 0) throw new ApiError(RESULT.conflict, 'lastAdmin');
  }
}
