import { resourceApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { registerOperation } from '../../http/operation';
import type { ResourceService } from './resource.service';

export function registerResourceRoutes(app: FastifyInstance, service: ResourceService): void {
  registerOperation(app, resourceApi.getsysresourcelist, ({ body }) => service.list(body));
  registerOperation(app, resourceApi.getsysresourcetree, () => service.tree());
  registerOperation(app, resourceApi.getsysresourcedetail, ({ body }) => service.detail(body.id));
  registerOperation(app, resourceApi.savesysresource, ({ body }) => service.save(body));
  registerOperation(app, resourceApi.updatesysresource, async ({ body }) => {
    await service.update(body);
    return null;
  });
  registerOperation(app, resourceApi.deletesysresource, async ({ body }) => {
    await service.delete(body.id);
    return null;
  });
  registerOperation(app, resourceApi.checkresourcename, async ({ body }) => ({
    existed: await service.nameExists(body),
  }));
}
