import {
  billingReportApi,
  PREPAID_EXCEPTION_COLUMNS,
  type PrepaidException,
  prepaidApi,
  RECHARGE_COLUMNS,
  REPORT_KINDS,
  type Recharge,
  virtualMeterApi,
} from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../../auth/auth.service';
import type { SecretBox } from '../../crypto/secret-box';
import type { Db } from '../../db/driver';
import type { HeadEnd } from '../../headend/head-end';
import { exportTable, pagedRows } from '../../http/export-table';
import { registerDownload, registerOperation } from '../../http/operation';
import { type ColumnText, formatMoment, translator } from '../../i18n/labels';
import { defineJob, type JobSystem } from '../../jobs/job-system';
import type { Broker } from '../../mqtt/broker';
import { ArchiveService, registerArchiveRoutes } from '../archive/archive-kit';
import { BillingReportService } from './billing-report';
import { billingRuleArchive } from './billing-rule.archive';
import { type PrepaidOptions, PrepaidService } from './prepaid.service';
import { VirtualMeterService } from './virtual-meter';

export interface PaymentDeps {
  db: Db;
  jobs: JobSystem;
  headEnd: HeadEnd;
  auth: AuthService;
  secrets: SecretBox;
  broker: Broker;
  log: FastifyInstance['log'];
  prepaid: PrepaidOptions;
}

/** The payment area's services, built once by the composition root. */
export function createPayment(deps: PaymentDeps) {
  const { db, jobs } = deps;
  return {
    billingRules: new ArchiveService(db, billingRuleArchive),
    billingReports: new BillingReportService(db, jobs),
    virtualMeters: new VirtualMeterService(db),
    prepaid: new PrepaidService(db, deps.headEnd, deps.auth, deps.secrets, deps.broker, deps.log, deps.prepaid),
  };
}

export type Payment = ReturnType<typeof createPayment>;

export const PREPAID_RECONCILIATION_JOB = 'prepaid-reconciliation';

/** Daily, after midnight's readings: the prepaid meters whose relay or credit disagree with their account. */
export const prepaidReconciliationJob = (payment: Payment) =>
  defineJob({
    name: PREPAID_RECONCILIATION_JOB,
    schedule: '40 1 * * *',
    policy: 'stately',
    expireInSeconds: 60 * 60,
    handler: async () => ({ exceptions: await payment.prepaid.reconcileAccounts() }),
  });

/** The exception list's columns as the page shows them, in the caller's language. */
function exceptionColumns(language: number): ColumnText<PrepaidException>[] {
  const t = translator(language);
  return PREPAID_EXCEPTION_COLUMNS.map((key) => ({
    key,
    title: t(`prepaid.exceptions.fields.${key}`),
    text: (row) => {
      if (key === 'checkTime') return formatMoment(row.checkTime);
      if (key === 'kind') return t(`prepaid.exceptions.kinds.${row.kind}`);
      if (key === 'relayState') return t(`prepaid.account.relayStates.${row.relayState ?? 'unknown'}`);
      if (key === 'meterCredit' || key === 'ledgerBalance') return row[key]?.toFixed(2) ?? '';
      return row[key];
    },
  }));
}

/** The recharge history's columns as the page shows them, in the caller's language. */
function rechargeColumns(language: number): ColumnText<Recharge>[] {
  const t = translator(language);
  return RECHARGE_COLUMNS.map((key) => ({
    key,
    title: t(`prepaid.fields.${key}`),
    text: (row) => {
      if (key === 'createTime' || key === 'finishTime') return formatMoment(row[key] ?? '');
      if (key === 'state') return t(`prepaid.states.${row.state}`);
      if (key === 'failure') return row.failure ? t(`prepaid.failures.${row.failure}`) : '';
      if (key === 'amount') return row.amount.toFixed(2);
      return row[key];
    },
  }));
}

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

  const { prepaid } = payment;
  registerOperation(app, prepaidApi.find, ({ body, session }) => prepaid.find(body.keyword, session));
  registerOperation(app, prepaidApi.account, ({ body, session }) => prepaid.account(body.meterId, session));
  registerOperation(app, prepaidApi.recharge, ({ body, session, req }) => prepaid.recharge(body, session, req.ip));
  registerOperation(app, prepaidApi.detail, ({ body, session }) => prepaid.detail(body.id, session));
  registerOperation(app, prepaidApi.history, ({ body, session }) => prepaid.history(body, session));
  registerDownload(app, prepaidApi.export, async ({ body, session, req }) => {
    const t = translator(session.language);
    return exportTable({
      format: body.format,
      language: session.language,
      title: t('prepaid.exportName'),
      columns: rechargeColumns(session.language),
      rows: (limit) =>
        pagedRows<Recharge>((curPage, pageSize) => prepaid.history({ ...body, curPage, pageSize }, session), limit),
      onError: (err) => req.log.error({ err }, 'recharge export failed'),
    });
  });
  registerOperation(app, prepaidApi.exceptions, ({ body, session }) => prepaid.exceptions(body, session));
  registerDownload(app, prepaidApi.exportExceptions, async ({ body, session, req }) => {
    const t = translator(session.language);
    return exportTable({
      format: body.format,
      language: session.language,
      title: t('prepaid.exceptions.exportName'),
      columns: exceptionColumns(session.language),
      rows: (limit) =>
        pagedRows<PrepaidException>((curPage, pageSize) => prepaid.exceptions({ curPage, pageSize }, session), limit),
      onError: (err) => req.log.error({ err }, 'prepaid exception export failed'),
    });
  });
}
