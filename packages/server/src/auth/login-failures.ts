import { and, count, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Config } from '../config';
import type { Executor } from '../db/driver';
import { sysLoginFailure, sysUser } from '../db/schema';

export type LockConfig = Pick<Config, 'lockThreshold' | 'lockMs' | 'lockAddresses'>;

const keyOf = (username: string) => username.trim().toLowerCase().slice(0, 50);

/**
 * Failed logins (and wrong passwords given to checkpassword / updatepassword) per typed username
 * and address. `lockThreshold` failures lock that name from that address for `lockMs`; once
 * `lockAddresses` addresses hold such a lock at the same time, the name is locked from everywhere,
 * and an existing user's status becomes `locking` until `lockMs` has passed, so that an
 * administrator sees it. Nothing here asks whether the user exists before it answers.
 */
export class LoginFailures {
  constructor(private readonly config: LockConfig) {}

  /** Whether attempts for this name from this address are refused right now. */
  async isLocked(db: Executor, username: string, ip: string): Promise<boolean> {
    const name = keyOf(username);
    const now = new Date();
    const [here] = await db
      .select({ lockedUntil: sysLoginFailure.lockedUntil })
      .from(sysLoginFailure)
      .where(and(eq(sysLoginFailure.username, name), eq(sysLoginFailure.ip, ip), gt(sysLoginFailure.lockedUntil, now)));
    if (here) return true;
    return (await this.lockedAddresses(db, name, now)) >= this.config.lockAddresses;
  }

  /**
   * Counts one failure; answers whether the name is now locked from this address. Reaching the
   * many-addresses threshold also marks an existing user `locking` and reports its id, so the
   * caller ends its sessions.
   */
  async record(db: Executor, username: string, ip: string): Promise<{ locked: boolean; lockedUserId: string | null }> {
    const name = keyOf(username);
    const now = new Date();
    const staleBefore = new Date(now.getTime() - this.config.lockMs);
    const [row] = await db
      .select()
      .from(sysLoginFailure)
      .where(and(eq(sysLoginFailure.username, name), eq(sysLoginFailure.ip, ip)));
    // A lock that has run out, or failures older than a lock period, start the count again.
    const fresh =
      row !== undefined && row.lastFailureAt >= staleBefore && (row.lockedUntil === null || row.lockedUntil > now);
    const failures = (fresh ? row.failures : 0) + 1;
    const lockedUntil =
      failures >= this.config.lockThreshold
        ? new Date(now.getTime() + this.config.lockMs)
        : fresh
          ? (row?.lockedUntil ?? null)
          : null;
    await db
      .insert(sysLoginFailure)
      .values({ username: name, ip, failures, lastFailureAt: now, lockedUntil })
      .onConflictDoUpdate({
        target: [sysLoginFailure.username, sysLoginFailure.ip],
        set: { failures, lastFailureAt: now, lockedUntil },
      });
    await db
      .update(sysUser)
      .set({ failedLogins: sql`${sysUser.failedLogins} + 1` })
      .where(sql`lower(${sysUser.username}) = ${name}`);

    let lockedUserId: string | null = null;
    if ((await this.lockedAddresses(db, name, now)) >= this.config.lockAddresses) {
      const [user] = await db
        .update(sysUser)
        .set({ status: 'locking', lockedUntil: new Date(now.getTime() + this.config.lockMs) })
        .where(and(sql`lower(${sysUser.username}) = ${name}`, eq(sysUser.status, 'enabled')))
        .returning({ id: sysUser.id });
      lockedUserId = user?.id ?? null;
    }
    return { locked: lockedUntil !== null, lockedUserId };
  }

  /** A successful login from an address forgets that address's failures. */
  async succeeded(db: Executor, username: string, ip: string): Promise<void> {
    await db
      .delete(sysLoginFailure)
      .where(and(eq(sysLoginFailure.username, keyOf(username)), eq(sysLoginFailure.ip, ip)));
    await db
      .update(sysUser)
      .set({ failedLogins: 0 })
      .where(sql`lower(${sysUser.username}) = ${keyOf(username)}`);
  }

  /** Rows whose count no longer matters. */
  async purgeStale(db: Executor): Promise<void> {
    const staleBefore = new Date(Date.now() - this.config.lockMs);
    await db
      .delete(sysLoginFailure)
      .where(
        and(
          lt(sysLoginFailure.lastFailureAt, staleBefore),
          or(isNull(sysLoginFailure.lockedUntil), lt(sysLoginFailure.lockedUntil, new Date())),
        ),
      );
  }

  private async lockedAddresses(db: Executor, name: string, now: Date): Promise<number> {
    const [row] = await db
      .select({ n: count() })
      .from(sysLoginFailure)
      .where(and(eq(sysLoginFailure.username, name), gt(sysLoginFailure.lockedUntil, now)));
    return Number(row?.n ?? 0);
  }
}

/**
 * An administrator's unlock (the user page or `npm run admin -- unlock`): the user may log in
 * again from every address at once.
 */
export async function clearLoginFailures(db: Executor, username: string): Promise<void> {
  await db.delete(sysLoginFailure).where(eq(sysLoginFailure.username, keyOf(username)));
}
