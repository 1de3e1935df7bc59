import { type Task, taskApi, taskEntity } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { streamWorkbook } from '../../http/export';
import { registerDownload, registerOperation } from '../../http/operation';
import { entityColumns, translator } from '../../i18n/labels';
import { ArchiveService, registerArchiveRoutes } from '../archive/archive-kit';
import type { SettingsService } from '../system/settings.service';
import { TaskService } from './task.service';
import { registerTaskAnalysisRoutes } from './task-analysis.routes';
import { TaskAnalysisService } from './task-analysis.service';
import { templateArchive } from './template.archive';

/** Scheduled collection's services (templates and tasks), built once by the composition root. */
export function createCollection(db: Db, settings: SettingsService) {
  const tasks = new TaskService(db, settings);
  return {
    templates: new ArchiveService(db, templateArchive),
    tasks,
    analysis: new TaskAnalysisService(db, tasks),
  };
}

export type Collection = ReturnType<typeof createCollection>;

/** templateMGT's calls, taskMGT's beyond the plan calls (plan.routes.ts dispatches those) and task analysis. */
export function registerCollectionRoutes(app: FastifyInstance, collection: Collection): void {
  const { tasks } = collection;
  registerArchiveRoutes(app, collection.templates);
  registerTaskAnalysisRoutes(app, collection.analysis);
  registerOperation(app, taskApi.list, ({ body, session }) => tasks.list(body, session));
  registerOperation(app, taskApi.detail, ({ body, session }) => tasks.detail(body.id, session));
  registerOperation(app, taskApi.check, async ({ body }) => ({ existed: await tasks.nameTaken(body.value, body.id) }));
  registerOperation(app, taskApi.enable, ({ body, session }) => tasks.enable(body.planid, session));
  registerOperation(app, taskApi.disable, ({ body, session }) => tasks.disable(body.planid, session));
  registerOperation(app, taskApi.pause, ({ body, session }) => tasks.pause(body.planid, session));
  registerOperation(app, taskApi.resume, ({ body, session }) => tasks.resume(body.planid, session));
  registerDownload(app, taskApi.export, async ({ body, session, req }) => {
    const title = translator(session.language)('task.exportName');
    const fields = taskEntity.columns.map((c) => c.field);
    return streamWorkbook({
      filename: `${title}.xlsx`,
      sheetName: title,
      columns: entityColumns<Task>(taskEntity, fields, session.language),
      chunks: tasks.all(body, session),
      onError: (err) => req.log.error({ err }, 'task export failed'),
    });
  });
}
