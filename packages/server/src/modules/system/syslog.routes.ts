import { RESULT, type SystemLog, syslogApi, systemLogEntity } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { writeLog } from '../../audit/audit.repository';
import { clientInfo } from '../../audit/client-info';
import type { Db } from '../../db/driver';
import { fieldError } from '../../errors/api-error';
import { streamWorkbook } from '../../http/export';
import { registerDownload, registerOperation } from '../../http/operation';
import { entityColumns, translator } from '../../i18n/labels';
import { scopeOf } from '../../rbac/scope';
import { journalScope, type SystemLogRepository } from './syslog.repository';

const DAY_MS = 86_400_000;
const EXPORT_LIMIT = 100_000;

function checkRange(q: { startTime: string; endTime: string }): void {
  const start = Date.parse(q.startTime);
  const end = Date.parse(q.endTime);
  if (start >= end) throw fieldError(RESULT.badRequest, 'startTime', 'timeRangeInvalid');
  if (end - start > syslogApi.MAX_LOG_RANGE_DAYS * DAY_MS)
    throw fieldError(RESULT.badRequest, 'endTime', 'timeRangeTooLong');
}

export function registerSystemLogRoutes(app: FastifyInstance, deps: { db: Db; systemLog: SystemLogRepository }): void {
  const repo = deps.systemLog;

  registerOperation(app, syslogApi.listsystemlog, async ({ body, session }) => {
    checkRange(body);
    return repo.list(body, session.language, journalScope(await scopeOf(deps.db, session)));
  });

  registerDownload(app, syslogApi.exportsystemlog, async ({ body, session, req }) => {
    checkRange(body);
    const scope = journalScope(await scopeOf(deps.db, session));
    const title = translator(session.language)('syslog.exportName');
    // The entity's detail fields are the export's columns, titled and rendered as on the screen.
    return streamWorkbook({
      filename: `${title}-${body.startTime.slice(0, 10)}-${body.endTime.slice(0, 10)}.xlsx`,
      sheetName: title,
      columns: entityColumns<SystemLog>(systemLogEntity, systemLogEntity.detail, session.language),
      chunks: repo.all(body, EXPORT_LIMIT, session.language, scope),
      onError: (err) => req.log.error({ err }, 'system log export failed'),
    });
  });

  registerOperation(app, syslogApi.savevisitlog, async ({ body, session, req }) => {
    await writeLog(deps.db, {
      logType: 'visit',
      username: session.username,
      operatingType: 'visit',
      content: `${body.pageName} ${body.pageUri}`.trim(),
      result: RESULT.ok,
      requestUrl: body.pageUri,
      client: clientInfo(req),
    });
    return null;
  });
}
