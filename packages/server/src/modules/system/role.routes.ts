import { roleApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { registerOperation } from '../../http/operation';
import type { RoleService } from './role.service';

export function registerRoleRoutes(app: FastifyInstance, service: RoleService): void {
  registerOperation(app, roleApi.getsysrolelist, ({ body, session }) => service.list(body, session));
  registerOperation(app, roleApi.getsysroledetail, ({ body, session }) => service.detail(body.id, session));
  registerOperation(app, roleApi.checkrolename, async ({ body }) => ({
    existed: await service.nameExists(body.roleName, body.id),
  }));
  registerOperation(app, roleApi.savesysrole, ({ body, session }) => service.save(body, session));
  registerOperation(app, roleApi.updatesysrole, async ({ body: { id, ...values }, session }) => {
    await service.update(id, values, session);
    return null;
  });
  registerOperation(app, roleApi.deletesysrole, async ({ body, session }) => {
    await service.delete(body.id, session);
    return null;
  });
  registerOperation(app, roleApi.saveuserrole, async ({ body, session }) => {
    await service.assignUsers(body.roleId, body.userIdList, session);
    return null;
  });
}
