import { type LoginRequest, type MessageKey, RESULT, type SessionUser } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { writeLog } from '../audit/audit.repository';
import type { ClientInfo } from '../audit/client-info';
import type { Config } from '../config';
import type { Db } from '../db/driver';
import { sysUser } from '../db/schema';
import { ApiError } from '../errors/api-error';
import type { SessionContext } from '../http/operation';
import type { CaptchaStore } from './captcha';
import { type LockConfig, LoginFailures } from './login-failures';
import { burnPasswordCheck, hashPassword, verifyPassword } from './password';
import { permittedUris, type SessionStore } from './session';

type LoginConfig = Pick<Config, 'captchaEnabled'> & LockConfig;

export const toSessionUser = (u: {
  username: string;
  fullName: string;
  language: number;
  mustChangePassword: boolean;
}): SessionUser => ({
  username: u.username,
  fullName: u.fullName,
  language: u.language === 2 ? 2 : 1,
  mustChangePassword: u.mustChangePassword,
});

export class AuthService {
  private readonly failures: LoginFailures;

  constructor(
    private readonly db: Db,
    private readonly sessions: SessionStore,
    private readonly captchas: CaptchaStore,
    private readonly config: LoginConfig,
  ) {
    this.failures = new LoginFailures(config);
  }

  /** Every attempt, refused or not, leaves a login log entry. */
  async login(
    input: LoginRequest,
    client: ClientInfo,
    requestUrl: string,
  ): Promise<{ token: string; user: SessionUser }> {
    const refuse = async (code: number, key: MessageKey): Promise<never> => {
      await writeLog(this.db, {
        logType: 'login',
        username: input.username,
        operatingType: 'login',
        content: key,
        result: code,
        requestUrl,
        client,
      });
      throw new ApiError(code, key);
    };

    if (this.config.captchaEnabled && !(await this.captchas.take(input.code, input.codeFill))) {
      return refuse(RESULT.badRequest, 'captchaWrong');
    }
    // Known or not, a name locked from this address answers the same, before any password is checked.
    if (await this.failures.isLocked(this.db, input.username, client.ip))
      return refuse(RESULT.badRequest, 'userLocked');

    const [user] = await this.db.select().from(sysUser).where(eq(sysUser.username, input.username));
    const passwordOk = user
      ? await verifyPassword(user.passwordHash, input.password)
      : await burnPasswordCheck(input.password).then(() => false);
    if (!user || !passwordOk) {
      const locked = await this.countFailure(input.username, client.ip);
      return refuse(RESULT.badRequest, locked ? 'userLocked' : 'wrongCredentials');
    }

    const now = Date.now();
    // Past the password, like the other statuses: only the user's owner learns of a lock set by an administrator.
    if (user.status === 'locking') {
      if (!user.lockedUntil || user.lockedUntil.getTime() > now) return refuse(RESULT.badRequest, 'userLocked');
      await this.db.update(sysUser).set({ status: 'enabled', lockedUntil: null }).where(eq(sysUser.id, user.id));
      user.status = 'enabled';
    }

    if (user.status === 'notEnabled') return refuse(RESULT.badRequest, 'userNotEnabled');
    if (user.status === 'disabled') return refuse(RESULT.badRequest, 'userDisabled');
    if (user.expiryDate && user.expiryDate.getTime() <= now) return refuse(RESULT.badRequest, 'userExpired');
    if ((await permittedUris(this.db, user.id)).size === 0) return refuse(RESULT.unauthorized, 'noPermission');

    await this.failures.succeeded(this.db, user.username, client.ip);
    const token = await this.sessions.create(user.id, client);
    await writeLog(this.db, {
      logType: 'login',
      username: user.username,
      operatingType: 'login',
      content: 'success',
      result: RESULT.ok,
      requestUrl,
      client,
    });
    return { token, user: toSessionUser(user) };
  }

  /** Counts a wrong password; true when the name is now locked from this address. */
  private async countFailure(username: string, ip: string): Promise<boolean> {
    const { locked, lockedUserId } = await this.failures.record(this.db, username, ip);
    if (lockedUserId) await this.sessions.destroyAllForUser(lockedUserId);
    return locked;
  }

  /**
   * A logged-in caller guessing its own password (a stolen cookie) is counted like a failed login;
   * once that locks the name from this address, the session ends.
   */
  async checkPassword(session: SessionContext, rawPassword: string, ip: string): Promise<boolean> {
    const lockedOut = async (): Promise<never> => {
      await this.sessions.destroy(session.tokenHash);
      throw new ApiError(RESULT.badRequest, 'userLocked');
    };
    if (await this.failures.isLocked(this.db, session.username, ip)) return lockedOut();
    const [user] = await this.db
      .select({ passwordHash: sysUser.passwordHash })
      .from(sysUser)
      .where(eq(sysUser.id, session.userId));
    if (user && (await verifyPassword(user.passwordHash, rawPassword))) return true;
    if (await this.countFailure(session.username, ip)) return lockedOut();
    return false;
  }

  /** Ends every session of the user, this one included: the user logs in again with the new password. */
  async updatePassword(session: SessionContext, rawPassword: string, newPassword: string, ip: string): Promise<void> {
    if (!(await this.checkPassword(session, rawPassword, ip)))
      throw new ApiError(RESULT.badRequest, 'rawPasswordWrong');
    if (rawPassword === newPassword) throw new ApiError(RESULT.badRequest, 'samePassword');
    const passwordHash = await hashPassword(newPassword);
    await this.db.transaction(async (tx) => {
      await tx
        .update(sysUser)
        .set({ passwordHash, mustChangePassword: false, updateTime: new Date() })
        .where(eq(sysUser.id, session.userId));
      await this.sessions.destroyAllForUser(session.userId, tx);
    });
  }

  async changeLanguage(session: SessionContext, language: 1 | 2): Promise<void> {
    await this.db.update(sysUser).set({ language }).where(eq(sysUser.id, session.userId));
  }
}
