import { meterApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { registerOperation } from '../../http/operation';
import type { MeterService } from './meter.service';

/** The meter's calls beyond the archive kit's (which `registerArchiveRoutes` gives it). */
export function registerMeterRoutes(app: FastifyInstance, service: MeterService): void {
  registerOperation(app, meterApi.maintain, async ({ body, session }) => {
    await service.maintain(body, session);
    return null;
  });
  registerOperation(app, meterApi.history, ({ body, session }) => service.history(body.id, session));
}
