import { userApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { registerOperation } from '../../http/operation';
import type { UserService } from './user.service';

export function registerUserRoutes(app: FastifyInstance, service: UserService): void {
  registerOperation(app, userApi.getsysuserlist, ({ body, session }) => service.list(body, session));
  registerOperation(app, userApi.getsysuserdetail, ({ body, session }) => service.detail(body.id, session));
  registerOperation(app, userApi.getsimplesysuserlist, ({ session }) => service.simpleList(session));
  registerOperation(app, userApi.checkusername, async ({ body }) => ({
    existed: await service.usernameExists(body.username, body.id),
  }));
  registerOperation(app, userApi.savesysuser, ({ body, session }) => service.save(body, session));
  registerOperation(app, userApi.updatesysuser, async ({ body, session }) => {
    await service.update(body, session);
    return null;
  });
  registerOperation(app, userApi.deletesysuser, async ({ body, session }) => {
    await service.delete(body.id, body.username, session);
    return null;
  });
  registerOperation(app, userApi.unlocksysuser, async ({ body, session }) => {
    await service.unlock(body.id, session);
    return null;
  });
  registerOperation(app, userApi.resetsysuserpassword, async ({ body, session }) => {
    await service.resetPassword(body.id, body.newPassword, session);
    return null;
  });
}
