import type { CookieSerializeOptions } from '@fastify/cookie';
import { authApi, type ResourceNode, SESSION_COOKIE } from '@meterdesk/contracts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { clientInfo } from '../audit/client-info';
import type { Config } from '../config';
import { unauthorized } from '../errors/api-error';
import { registerOperation, registerPublicOperation } from '../http/operation';
import { type AuthService, toSessionUser } from './auth.service';
import type { CaptchaStore } from './captcha';
import type { SessionStore } from './session';

export async function registerAuthRoutes(
  app: FastifyInstance,
  deps: {
    auth: AuthService;
    sessions: SessionStore;
    captchas: CaptchaStore;
    config: Config;
    /** The system module's resources (`services.resources`): the menu of the logged-in user. */
    resources: { permittedTree(userId: string): Promise<ResourceNode[]> };
  },
): Promise<void> {
  const cookieOptions: CookieSerializeOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: deps.config.secureCookies,
  };
  const clearCookie = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, cookieOptions);

  registerPublicOperation(
    app,
    authApi.login,
    async ({ body, req, reply }) => {
      const { token, user } = await deps.auth.login(body, clientInfo(req), req.url);
      reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: deps.config.sessionAbsoluteMs / 1000 });
      return user;
    },
    { perMinute: deps.config.loginRateLimitPerMinute },
  );

  registerPublicOperation(app, authApi.auth, ({ req }) => {
    if (!req.session) throw unauthorized();
    return toSessionUser(req.session);
  });

  registerPublicOperation(app, authApi.getgifcode, () => deps.captchas.issue());

  registerOperation(app, authApi.loginout, async ({ session, reply }) => {
    await deps.sessions.destroy(session.tokenHash);
    clearCookie(reply);
    return null;
  });

  registerOperation(app, authApi.updatepassword, async ({ session, body, req, reply }) => {
    await deps.auth.updatePassword(session, body.rawPassword, body.newPassword, req.ip);
    clearCookie(reply);
    return null;
  });

  registerOperation(app, authApi.checkpassword, async ({ session, body, req }) => ({
    correct: await deps.auth.checkPassword(session, body.rawPassword, req.ip),
  }));

  registerOperation(app, authApi.changelanguage, async ({ session, body }) => {
    await deps.auth.changeLanguage(session, body.type);
    return null;
  });

  registerOperation(app, authApi.getuserresourcelist, ({ session }) => deps.resources.permittedTree(session.userId));
}
