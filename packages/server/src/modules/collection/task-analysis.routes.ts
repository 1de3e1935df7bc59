import { type TaskKpi, taskAnalysisApi, taskAnalysisEntity } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { streamWorkbook } from '../../http/export';
import { registerDownload, registerOperation } from '../../http/operation';
import { entityColumns, translator } from '../../i18n/labels';
import type { TaskAnalysisService } from './task-analysis.service';

export function registerTaskAnalysisRoutes(app: FastifyInstance, analysis: TaskAnalysisService): void {
  registerOperation(app, taskAnalysisApi.list, ({ body, session }) => analysis.list(body, session));
  registerOperation(app, taskAnalysisApi.detail, ({ body, session }) => analysis.detail(body, session));
  registerOperation(app, taskAnalysisApi.runs, ({ body, session }) => analysis.runs(body, session));
  registerOperation(app, taskAnalysisApi.dcus, ({ body, session }) => analysis.dcus(body, session));
  registerDownload(app, taskAnalysisApi.export, async ({ body, session, req }) => {
    const title = translator(session.language)('taskAnalysis.exportName');
    const chunks = await analysis.all(body, session);
    return streamWorkbook({
      filename: `${title}-${body.startTime.slice(0, 10)}-${body.endTime.slice(0, 10)}.xlsx`,
      sheetName: title,
      columns: entityColumns<TaskKpi>(taskAnalysisEntity, taskAnalysisEntity.detail, session.language),
      chunks,
      onError: (err) => req.log.error({ err }, 'task analysis export failed'),
    });
  });
}
