import { type CommandRecord, planApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { streamWorkbook } from '../../http/export';
import { registerDownload, registerOperation } from '../../http/operation';
import { type ColumnText, formatMoment, translator } from '../../i18n/labels';
import { TaskService } from '../collection/task.service';
import type { PlanService } from './plan.service';

/**
 * The plan calls. A plan whose orders collect is a scheduled collection task (taskMGT): createplan
 * hands it to the task service, and updateplan and deleteplan go by the stored plan's kind.
 */
export function registerPlanRoutes(app: FastifyInstance, plans: PlanService, tasks: TaskService): void {
  registerOperation(app, planApi.createplan, ({ body, session }) =>
    TaskService.isTask(body) ? tasks.create(body, session) : plans.create(body, session),
  );
  registerOperation(app, planApi.updateplan, async ({ body, session }) => {
    if (await tasks.isTaskId(body.planid)) await tasks.update(body, session);
    else await plans.update(body, session);
    return null;
  });
  registerOperation(app, planApi.deleteplan, async ({ body, session }) => {
    if (await tasks.isTaskId(body.planid)) await tasks.remove(body.planid, session);
    else await plans.remove(body.planid, session);
    return null;
  });
  registerOperation(app, planApi.detail, ({ body, session }) => plans.detail(body.planid, session));
  registerOperation(app, planApi.results, ({ body, session }) => plans.results(body, session));
  registerOperation(app, planApi.pending, ({ body, session }) => plans.pending(body, session));
  registerOperation(app, planApi.approve, ({ body, session }) => plans.approve(body.planid, session));
  registerOperation(app, planApi.reject, async ({ body, session }) => {
    await plans.reject(body.planid, session);
    return null;
  });
  registerOperation(app, planApi.retry, ({ body, session }) => plans.retry(body.planid, session));
  registerOperation(app, planApi.meterCommands, ({ body, session }) => plans.meterCommands(body, session));
  registerDownload(app, planApi.export, async ({ body, session, req }) => {
    const t = translator(session.language);
    const records = await plans.allResults(body.planid, session);
    const columns: ColumnText<CommandRecord>[] = [
      { key: 'deviceKey', title: t('operations.fields.deviceKey'), text: (r) => r.deviceKey },
      { key: 'operation', title: t('operations.fields.operation'), text: (r) => t(`operations.names.${r.operation}`) },
      { key: 'state', title: t('operations.fields.state'), text: (r) => t(`operations.commandStates.${r.state}`) },
      {
        key: 'resultCode',
        title: t('operations.fields.resultCode'),
        text: (r) => (r.resultCode ? `${r.resultCode} ${t(`operations.resultCodes.${r.resultCode}`)}` : ''),
      },
      {
        key: 'items',
        title: t('operations.fields.items'),
        text: (r) =>
          r.items
            .map((i) =>
              `${i.obis} ${typeof i.value === 'object' ? JSON.stringify(i.value) : String(i.value ?? '')} ${i.unit ?? ''}`.trim(),
            )
            .join('; '),
      },
      { key: 'attempts', title: t('operations.fields.attempts'), text: (r) => r.attempts.length },
      { key: 'requestedBy', title: t('operations.fields.requestedBy'), text: (r) => r.requestedBy },
      { key: 'createTime', title: t('operations.fields.createTime'), text: (r) => formatMoment(r.createTime) },
      { key: 'answerTime', title: t('operations.fields.answerTime'), text: (r) => formatMoment(r.answerTime ?? '') },
    ];
    const title = t('operations.fields.planName');
    return streamWorkbook({
      filename: `${title}-${body.planid}.xlsx`,
      sheetName: title,
      columns,
      chunks: (async function* () {
        yield records;
      })(),
      onError: (err) => req.log.error({ err }, 'plan export failed'),
    });
  });
}
