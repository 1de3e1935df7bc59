import { userApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { SessionStore } from '../../auth/session';
import type { Db } from '../../db/driver';
import { registerOperation } from '../../http/operation';
import { UserService } from './user.service';

export function registerUserRoutes(app: FastifyInstance, deps: { db: Db; sessions: SessionStore }): void {
  const service = new UserService(deps.db, deps.sessions);
  registerOperation(app, userApi.getsysuserlist, ({ body }) => service.list(body));
  registerOperation(app, userApi.getsysuserdetail, ({ body }) => service.detail(body.id));
  registerOperation(app, userApi.getsimplesysuserlist, () => service.simpleList());
  registerOperation(app, userApi.checkusername, async ({ body }) => ({
    existed: await service.usernameExists(body.username, body.id),
  }));
  registerOperation(app, userApi.savesysuser, ({ body }) => service.save(body));
  registerOperation(app, userApi.updatesysuser, async ({ body, session }) => {
    await service.update(body, session);
    return null;
  });
  registerOperation(app, userApi.deletesysuser, async ({ body, session }) => {
    await service.delete(body.id, body.username, session);
    return null;
  });
  registerOperation(app, userApi.unlocksysuser, async ({ body }) => {
    await service.unlock(body.id);
    return null;
  });
  registerOperation(app, userApi.resetsysuserpassword, async ({ body }) => {
    await service.resetPassword(body.id, body.newPassword);
    return null;
  });
}
