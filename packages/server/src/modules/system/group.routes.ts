import { groupApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { registerOperation } from '../../http/operation';
import type { GroupService } from './group.service';

export function registerGroupRoutes(app: FastifyInstance, service: GroupService): void {
  registerOperation(app, groupApi.getsysgrouplist, ({ body }) => service.list(body));
  registerOperation(app, groupApi.getsysgroupdetail, ({ body }) => service.detail(body.id));
  registerOperation(app, groupApi.gridtree, () => service.gridTree());
  registerOperation(app, groupApi.savesysgroup, ({ body }) => service.save(body));
  registerOperation(app, groupApi.updatesysgroup, async ({ body: { id, ...values } }) => {
    await service.update(id, values);
    return null;
  });
  registerOperation(app, groupApi.deletesysgroup, async ({ body }) => {
    await service.delete(body.groupCode);
    return null;
  });
}
