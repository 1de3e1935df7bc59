import { tariffPushApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { registerOperation } from '../../http/operation';
import type { TariffPushService } from './tariff-push.service';

/** Tariff configuration's calls: push a tariff, re-send to the failed meters, read the pushes. */
export function registerTariffPushRoutes(app: FastifyInstance, pushes: TariffPushService): void {
  registerOperation(app, tariffPushApi.createtariffplan, ({ body, session }) => pushes.create(body, session));
  registerOperation(app, tariffPushApi.restarttariffeventlog, ({ body, session }) => pushes.restart(body, session));
  registerOperation(app, tariffPushApi.listtariffeventlog, ({ body, session }) => pushes.events(body, session));
  registerOperation(app, tariffPushApi.listtariffplan, ({ body, session }) => pushes.pushes(body, session));
  registerOperation(app, tariffPushApi.detail, ({ body, session }) => pushes.detail(body.pushId, session));
}
