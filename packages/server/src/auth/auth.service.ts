import { type LoginRequest, type MessageKey, RESULT, type SessionUser } from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import { writeLog } from '../audit/audit.repository';
import type { ClientInfo } from '../audit/client-info';
import type { Config } from '../config';
import type { Db } from '../db/driver';
import { sysUser } from '../db/schema';
import { ApiError } from '../http/api-error';
import type { CaptchaStore } from './captcha';
import { burnPasswordCheck, hashPassword, verifyPassword } from './password';
import { permittedUris, type SessionContext, type SessionStore } from './session';

type LoginConfig = Pick<Config, 'captchaEnabled' | 'lockThreshold' | 'lockMs'>;

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
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionStore,
    private readonly captchas: CaptchaStore,
    private readonly config: LoginConfig,
  ) {}

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

    const [user] = await this.db.select().from(sysUser).where(eq(sysUser.username, input.username));
    if (!user) {
      await burnPasswordCheck(input.password);
      return refuse(RESULT.badRequest, 'wrongCredentials');
    }

    const now = Date.now();
    if (user.status === 'locking') {
      // Without an end time the lock was set by an administrator and lasts until one lifts it.
      if (!user.lockedUntil || user.lockedUntil.getTime() > now) return refuse(RESULT.badRequest, 'userLocked');
      await this.db
        .update(sysUser)
        .set({ status: 'enabled', failedLogins: 0, lockedUntil: null })
        .where(eq(sysUser.id, user.id));
      user.status = 'enabled';
    }

    if (!(await verifyPassword(user.passwordHash, input.password))) {
      const [after] = await this.db
        .update(sysUser)
        .set({ failedLogins: sql`${sysUser.failedLogins} + 1` })
        .where(eq(sysUser.id, user.id))
        .returning({ failedLogins: sysUser.failedLogins });
      if ((after?.failedLogins ?? 0) >= this.config.lockThreshold) {
        await this.db
          .update(sysUser)
          .set({ status: 'locking', lockedUntil: new Date(now + this.config.lockMs) })
          .where(eq(sysUser.id, user.id));
        await this.sessions.destroyAllForUser(user.id);
        return refuse(RESULT.badRequest, 'userLocked');
      }
      return refuse(RESULT.badRequest, 'wrongCredentials');
    }

    if (user.status === 'notEnabled') return refuse(RESULT.badRequest, 'userNotEnabled');
    if (user.status === 'disabled') return refuse(RESULT.badRequest, 'userDisabled');
    if (user.expiryDate && user.expiryDate.getTime() <= now) return refuse(RESULT.badRequest, 'userExpired');
    if ((await permittedUris(this.db, user.id)).size === 0) return refuse(RESULT.unauthorized, 'noPermission');

    await this.db.update(sysUser).set({ failedLogins: 0 }).where(eq(sysUser.id, user.id));
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

  async checkPassword(session: SessionContext, rawPassword: string): Promise<boolean> {
    const [user] = await this.db
      .select({ passwordHash: sysUser.passwordHash })
      .from(sysUser)
      .where(eq(sysUser.id, session.userId));
    return user !== undefined && verifyPassword(user.passwordHash, rawPassword);
  }

  /** Ends every session of the user, this one included: the user logs in again with the new password. */
  async updatePassword(session: SessionContext, rawPassword: string, newPassword: string): Promise<void> {
    if (!(await this.checkPassword(session, rawPassword))) throw new ApiError(RESULT.badRequest, 'rawPasswordWrong');
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
