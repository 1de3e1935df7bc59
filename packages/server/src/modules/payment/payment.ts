import { billingReportApi, REPORT_KINDS, virtualMeterApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { registerDownload, registerOperation } from '../../http/operation';
import type { JobSystem } from '../../jobs/job-system';
import { ArchiveService, registerArchiveRoutes } from '../archive/archive-kit';
import { BillingReportService } from './billing-report';
import { billingRuleArchive } from './billing-rule.archive';
import { VirtualMeterService } from './virtual-meter';

/** The payment area's services, built once by the composition root. */
export function createPayment(db: Db, jobs: JobSystem) {
  return {
    billingRules: new ArchiveService(db, billingRuleArchive),
    billingReports: new BillingReportService(db, jobs),
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
  for (const kind of REPORT_KINDS) {
    const api = billingReportApi[kind];
    const reports = payment.billingReports;
    registerOperation(app, api.list, ({ body, session }) => reports.list(kind, body, session));
    registerOperation(app, api.build, ({ body, session }) => reports.build(kind, body, session));
    registerOperation(app, api.rules, ({ session }) => reports.rules(session));
    registerOperation(app, api.content, ({ body, session }) => reports.content(kind, body.id, session));
    registerDownload(app, api.download, ({ body, session, req }) =>
      reports.download(kind, body.id, body.format, session, (err) => req.log.error({ err }, 'report download failed')),
    );
  }
}
