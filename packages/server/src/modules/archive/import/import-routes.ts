import { MAX_IMPORT_BYTES, RESULT } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../db/driver';
import { fieldError, notFound } from '../../../errors/api-error';
import { XLSX_TYPE } from '../../../http/export';
import { registerDownload, registerOperation, registerUpload } from '../../../http/operation';
import { translator } from '../../../i18n/labels';
import type { JobSystem } from '../../../jobs/job-system';
import { type ImportDefinition, importStatus, startImport } from './import-kit';
import { importTemplate } from './template';

/** Template, upload and status of every import; the job system runs the imports themselves. */
export function registerImportRoutes(
  app: FastifyInstance,
  deps: { database: Database; jobs: JobSystem; imports: ReadonlyMap<string, ImportDefinition> },
): void {
  for (const definition of deps.imports.values()) {
    const { api, entity } = definition;
    registerDownload(app, api.template, async ({ session }) => {
      const t = translator(session.language);
      return {
        filename: `${t(`${entity}.exportName`)}-${t('crud.importTemplate')}.xlsx`,
        contentType: XLSX_TYPE,
        body: await importTemplate(definition.columns, t(`${entity}.exportName`), session.language),
      };
    });
    registerUpload(app, api.import, MAX_IMPORT_BYTES, async ({ file, fileName, session }) => {
      if (!fileName.toLowerCase().endsWith('.xlsx') && fileName !== '') {
        throw fieldError(RESULT.badRequest, 'file', 'importFileInvalid');
      }
      return startImport(
        deps.database,
        (importId, startedBy) => deps.jobs.send('archive-import', { importId }, { startedBy }),
        { entity, file, fileName, userId: session.userId, username: session.username, language: session.language },
      );
    });
    registerOperation(app, api.importStatus, async ({ body, session }) => {
      const status = await importStatus(deps.database.db, body.importId, session.username, (jobId) =>
        deps.jobs.getJob(jobId),
      );
      if (!status) throw notFound();
      return status;
    });
  }
}
