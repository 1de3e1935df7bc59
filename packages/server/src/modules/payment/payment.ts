import { virtualMeterApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerOperation } from '../../http/operation';
import { ArchiveService, registerArchiveRoutes } from '../archive/archive-kit';
import { billingRuleArchive } from './billing-rule.archive';
import { VirtualMeterService } from './virtual-meter';

/** The payment area's services, built once by the composition root. */
export function createPayment(db: Db) {
  return {
    billingRules: new ArchiveService(db, billingRuleArchive),
    virtualMeters: new VirtualMeterService(db),
  };
}

export type Payment = ReturnType<typeof createPayment>;

export function registerPayment(app: FastifyInstance, payment: Payment): void {
  registerArchiveRoutes(app, payment.billingRules);
  registerOperation(app, virtualMeterApi.members, ({ body, session }) =>
    payment.virtualMeters.members(body.id, session),
  );
  registerOperation(app, virtualMeterApi.saveMembers, async ({ body, session }) => {
    await payment.virtualMeters.saveMembers(body, session);
    return null;
  });
}
