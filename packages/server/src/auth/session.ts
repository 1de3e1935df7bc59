import { createHash, randomBytes } from 'node:crypto';
import { and, eq, lt, or, type SQL, sql } from 'drizzle-orm';
import type { ClientInfo } from '../audit/client-info';
import type { Config } from '../config';
import { deleteInBatches } from '../db/batch-delete';
import type { Db, Executor } from '../db/driver';
import { sysResource, sysRoleResource, sysSession, sysUser, sysUserRole } from '../db/schema';

export interface SessionContext {
  tokenHash: string;
  userId: string;
  username: string;
  fullName: string;
  language: number;
  mustChangePassword: boolean;
}

const TOUCH_EVERY_MS = 30_000;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Opaque 256-bit tokens; the database keeps only their hash, so a leaked table opens no session. */
export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly config: Pick<Config, 'sessionIdleMs' | 'sessionAbsoluteMs'>,
  ) {}

  async create(userId: string, client: ClientInfo): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.db.insert(sysSession).values({
      tokenHash: hashToken(token),
      userId,
      expiresAt: new Date(Date.now() + this.config.sessionAbsoluteMs),
      ip: client.ip,
      ua: client.ua,
    });
    return token;
  }

  /** The session behind a cookie, or null when it is unknown, idle too long, past its absolute end, or its user may no longer log in. */
  async resolve(token: string): Promise<SessionContext | null> {
    const tokenHash = hashToken(token);
    const [row] = await this.db
      .select({
        userId: sysUser.id,
        username: sysUser.username,
        fullName: sysUser.fullName,
        language: sysUser.language,
        mustChangePassword: sysUser.mustChangePassword,
        status: sysUser.status,
        expiryDate: sysUser.expiryDate,
        lastSeenAt: sysSession.lastSeenAt,
        expiresAt: sysSession.expiresAt,
      })
      .from(sysSession)
      .innerJoin(sysUser, eq(sysUser.id, sysSession.userId))
      .where(eq(sysSession.tokenHash, tokenHash));
    if (!row) return null;
    const now = Date.now();
    const idle = now - row.lastSeenAt.getTime() > this.config.sessionIdleMs;
    const expired = now >= row.expiresAt.getTime();
    const userBarred = row.status !== 'enabled' || (row.expiryDate !== null && row.expiryDate.getTime() <= now);
    if (idle || expired || userBarred) {
      await this.db.delete(sysSession).where(eq(sysSession.tokenHash, tokenHash));
      return null;
    }
    if (now - row.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
      await this.db
        .update(sysSession)
        .set({ lastSeenAt: new Date(now) })
        .where(eq(sysSession.tokenHash, tokenHash));
    }
    return {
      tokenHash,
      userId: row.userId,
      username: row.username,
      fullName: row.fullName,
      language: row.language,
      mustChangePassword: row.mustChangePassword,
    };
  }

  async destroy(tokenHash: string): Promise<void> {
    await this.db.delete(sysSession).where(eq(sysSession.tokenHash, tokenHash));
  }

  /** Logout everywhere: password change, disabling, locking or deleting a user. */
  async destroyAllForUser(userId: string, db: Executor = this.db): Promise<void> {
    await db.delete(sysSession).where(eq(sysSession.userId, userId));
  }

  /** Removes sessions past their absolute or idle limit, by the database clock; returns how many. */
  async purgeExpired(): Promise<number> {
    const idleLimit = sql`now() - make_interval(secs => ${this.config.sessionIdleMs / 1000})`;
    return deleteInBatches(
      this.db,
      sysSession,
      sysSession.tokenHash,
      or(lt(sysSession.expiresAt, sql`now()`), lt(sysSession.lastSeenAt, idleLimit)) as SQL,
    );
  }
}

/**
 * The resource uris a user may use, read on every request so that a changed role takes
 * effect on the user's next request.
 */
export async function permittedUris(db: Executor, userId: string): Promise<Set<string>> {
  const rows = await db
    .selectDistinct({ uri: sysResource.resourceUri })
    .from(sysUserRole)
    .innerJoin(sysRoleResource, eq(sysRoleResource.roleId, sysUserRole.roleId))
    .innerJoin(sysResource, eq(sysResource.id, sysRoleResource.resourceId))
    .where(and(eq(sysUserRole.userId, userId)));
  return new Set(rows.map((r) => r.uri));
}
