import { groupApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { registerOperation } from '../../http/operation';
import type { GroupService } from './group.service';

export function registerGroupRoutes(app: FastifyInstance, service: GroupService): void {
  registerOperation(app, groupApi.getsysgrouplist, ({ body }) => service.list(body));
  registerOperation(app, groupApi.getsysgroupdetail, ({ body }) => service.detail(body.id));
  registerOperation(app, groupApi.savesysgroup, ({ body, session }) => service.save(body, session));
  registerOperation(app, groupApi.updatesysgroup, async ({ body: { id, ...values }, session }) => {
    await service.update(id, values, session);
    return null;
  });
  registerOperation(app, groupApi.deletesysgroup, async ({ body }) => {
    await service.delete(body.groupCode);
    return null;
  });
}
