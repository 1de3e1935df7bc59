import { orgApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { registerOperation } from '../../http/operation';
import type { OrgService } from './org.service';

export function registerOrgRoutes(app: FastifyInstance, service: OrgService): void {
  registerOperation(app, orgApi.treesysorg, ({ session }) => service.tree(session));
  registerOperation(app, orgApi.getsysorgdetail, ({ body, session }) => service.detail(body.id, session));
  registerOperation(app, orgApi.checkorgname, async ({ body }) => ({
    existed: await service.nameExists(body.orgName, body.id),
  }));
  registerOperation(app, orgApi.savesysorg, ({ body, session }) => service.save(body, session));
  registerOperation(app, orgApi.updatesysorg, async ({ body: { id, ...values }, session }) => {
    await service.update(id, values, session);
    return null;
  });
  registerOperation(app, orgApi.deletesysorg, async ({ body, session }) => {
    await service.delete(body.id, session);
    return null;
  });
}
