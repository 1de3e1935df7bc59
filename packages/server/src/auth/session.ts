import { createHash, randomBytes } from 'node:crypto';
import type { ResourceNeeds } from '@meterdesk/contracts';
import { and, eq, inArray, lt, lte, ne, or, type SQL, sql } from 'drizzle-orm';
import type { ClientInfo } from '../audit/client-info';
import type { Config } from '../config';
import type { Db, Executor } from '../db/driver';
import { qualified } from '../db/rows';
import { sysResource, sysRoleResource, sysSession, sysUser, sysUserRole } from '../db/schema';
import type { SessionContext } from '../http/operation';
import { scopeFields, toScope } from '../rbac/scope';

/** A session, and whether its user holds what the route needs (true when it needs nothing). */
export interface ResolvedSession {
  session: SessionContext;
  permitted: boolean;
}

const TOUCH_EVERY_MS = 30_000;

/** Which sessions just ended: these tokens, or every session of a user. */
export type SessionsEnded = { tokenHashes: string[] } | { userId: string };
export type SessionsEndedListener = (ended: SessionsEnded) => void;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Opaque 256-bit tokens; the database keeps only their hash, so a leaked table opens no session.
 * Whoever holds something open on a session's behalf (the broker's browser connections) listens
 * with `onEnded`: every way a session ends goes through this class, so it tells them all.
 */
export class SessionStore {
  private readonly listeners = new Set<SessionsEndedListener>();

  constructor(
    private readonly db: Db,
    private readonly config: Pick<Config, 'sessionIdleMs' | 'sessionAbsoluteMs'>,
  ) {}

  /**
   * The session query of each access rule (a route's `needs`), built and named once: every request
   * runs one, so the server neither builds it again nor has the database plan it again.
   */
  private readonly lookups = new Map<string, ReturnType<SessionStore['prepareLookup']>>();

  private lookupFor(needs: ResourceNeeds) {
    const key = `${needs.anyOf.join('\n')}\n&\n${(needs.allOf ?? []).join('\n')}`;
    let lookup = this.lookups.get(key);
    if (!lookup) {
      // Named after what it asks, so one name never stands for two statements on a connection.
      lookup = this.prepareLookup(needs, `session_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`);
      this.lookups.set(key, lookup);
    }
    return lookup;
  }

  private prepareLookup(needs: ResourceNeeds, name: string) {
    return this.db
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
        ...scopeFields,
        permitted: holds(qualified(sysUser.id), needs),
      })
      .from(sysSession)
      .innerJoin(sysUser, eq(sysUser.id, sysSession.userId))
      .where(eq(sysSession.tokenHash, sql.placeholder('tokenHash')))
      .prepare(name);
  }

  /** Returns the way to stop listening. */
  onEnded(listener: SessionsEndedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Told as soon as the rows are deleted, even inside a transaction not yet committed: a
   * connection closed for a session that survives a rollback simply reconnects.
   */
  private ended(ended: SessionsEnded): void {
    if ('tokenHashes' in ended && ended.tokenHashes.length === 0) return;
    for (const listener of this.listeners) listener(ended);
  }

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

  /**
   * The session behind a cookie, or null when it is unknown, idle too long, past its absolute end, or
   * its user may no longer log in. One query reads the session, its user, the user's scope and
   * whether they hold what `needs` names (a route's access rule), because every
   * request asks all of it: the answer is never older than the request.
   */
  async resolve(token: string, needs: ResourceNeeds = { anyOf: [] }): Promise<ResolvedSession | null> {
    const tokenHash = hashToken(token);
    const [row] = await this.lookupFor(needs).execute({ tokenHash });
    if (!row) return null;
    const now = Date.now();
    const idle = now - row.lastSeenAt.getTime() > this.config.sessionIdleMs;
    const expired = now >= row.expiresAt.getTime();
    const userBarred = row.status !== 'enabled' || (row.expiryDate !== null && row.expiryDate.getTime() <= now);
    if (idle || expired || userBarred) {
      await this.destroy(tokenHash);
      return null;
    }
    if (now - row.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
      await this.db
        .update(sysSession)
        .set({ lastSeenAt: new Date(now) })
        .where(eq(sysSession.tokenHash, tokenHash));
    }
    return {
      session: {
        tokenHash,
        userId: row.userId,
        username: row.username,
        fullName: row.fullName,
        language: row.language,
        mustChangePassword: row.mustChangePassword,
        scope: toScope(row),
      },
      permitted: row.permitted === true,
    };
  }

  async destroy(tokenHash: string): Promise<void> {
    await this.db.delete(sysSession).where(eq(sysSession.tokenHash, tokenHash));
    this.ended({ tokenHashes: [tokenHash] });
  }

  /** Logout everywhere: password change, disabling, locking or deleting a user. */
  async destroyAllForUser(userId: string, db: Executor = this.db): Promise<void> {
    await db.delete(sysSession).where(eq(sysSession.userId, userId));
    this.ended({ userId });
  }

  /**
   * Sessions past their time, and those of users who may no longer log in (disabled, expired,
   * locked); only among `tokenHashes` when given (the broker's connected browsers). Returns how many.
   */
  async purgeExpired(tokenHashes?: readonly string[]): Promise<number> {
    if (tokenHashes?.length === 0) return 0;
    const idleLimit = new Date(Date.now() - this.config.sessionIdleMs);
    const barred = this.db
      .select({ id: sysUser.id })
      .from(sysUser)
      .where(or(ne(sysUser.status, 'enabled'), lte(sysUser.expiryDate, sql`now()`)));
    const dead = or(
      lt(sysSession.expiresAt, sql`now()`),
      lt(sysSession.lastSeenAt, idleLimit),
      inArray(sysSession.userId, barred),
    );
    const gone = await this.db
      .delete(sysSession)
      .where(tokenHashes ? and(inArray(sysSession.tokenHash, [...tokenHashes]), dead) : dead)
      .returning({ tokenHash: sysSession.tokenHash });
    this.ended({ tokenHashes: gone.map((g) => g.tokenHash) });
    return gone.length;
  }
}

/** The user's resources among `uris`, as a FROM clause over the user's id (one indexed join). */
const heldAmong = (userId: SQL | string, uris: readonly string[]) =>
  sql`${sysUserRole} join ${sysRoleResource} on ${sysRoleResource.roleId} = ${sysUserRole.roleId} join ${sysResource} on ${sysResource.id} = ${sysRoleResource.resourceId} where ${sysUserRole.userId} = ${userId} and ${inArray(sysResource.resourceUri, [...uris])}`;

/** Whether the user holds what `needs` names, as SQL over the user's id: true when it names nothing. */
function holds(userId: SQL | string, { anyOf, allOf = [] }: ResourceNeeds): SQL<boolean> {
  const any = anyOf.length ? sql`exists (select 1 from ${heldAmong(userId, anyOf)})` : sql`true`;
  if (allOf.length === 0) return sql<boolean>`${any}`;
  return sql<boolean>`(${any} and (select count(distinct ${sysResource.resourceUri}) from ${heldAmong(userId, allOf)}) = ${allOf.length})`;
}

/**
 * The resource uris a user may use, read when asked so that a changed role takes effect on the
 * user's next request.
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
