import { prepaidApi, RECHARGE_COLUMNS, type Recharge, virtualMeterApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../../auth/auth.service';
import type { SecretBox } from '../../crypto/secret-box';
import type { Db } from '../../db/driver';
import type { HeadEnd } from '../../headend/head-end';
import { exportTable, pagedRows } from '../../http/export-table';
import { registerDownload, registerOperation } from '../../http/operation';
import { type ColumnText, formatMoment, translator } from '../../i18n/labels';
import type { Broker } from '../../mqtt/broker';
import { ArchiveService, registerArchiveRoutes } from '../archive/archive-kit';
import { billingRuleArchive } from './billing-rule.archive';
import { type PrepaidOptions, PrepaidService } from './prepaid.service';
import { VirtualMeterService } from './virtual-meter';

export interface PaymentDeps {
  db: Db;
  headEnd: HeadEnd;
  auth: AuthService;
  secrets: SecretBox;
  broker: Broker;
  log: FastifyInstance['log'];
  prepaid: PrepaidOptions;
}

/** The payment area's services, built once by the composition root. */
export function createPayment(deps: PaymentDeps) {
  const { db } = deps;
  return {
    billingRules: new ArchiveService(db, billingRuleArchive),
    virtualMeters: new VirtualMeterService(db),
    prepaid: new PrepaidService(db, deps.headEnd, deps.auth, deps.secrets, deps.broker, deps.log, deps.prepaid),
  };
}

export type Payment = ReturnType<typeof createPayment>;

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
}
