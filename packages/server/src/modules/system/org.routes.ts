import { orgApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerOperation } from '../../http/operation';
import { OrgService } from './org.service';

export function registerOrgRoutes(app: FastifyInstance, deps: { db: Db }): void {
  const service = new OrgService(deps.db);
  registerOperation(app, orgApi.treesysorg, () => service.tree());
  registerOperation(app, orgApi.getsysorgdetail, ({ body }) => service.detail(body.id));
  registerOperation(app, orgApi.checkorgname, async ({ body }) => ({
    existed: await service.nameExists(body.orgName, body.id),
  }));
  registerOperation(app, orgApi.savesysorg, ({ body }) => service.save(body));
  registerOperation(app, orgApi.updatesysorg, async ({ body: { id, ...values } }) => {
    await service.update(id, values);
    return null;
  });
  registerOperation(app, orgApi.deletesysorg, async ({ body }) => {
    await service.delete(body.id);
    return null;
  });
}
