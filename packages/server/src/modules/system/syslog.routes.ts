import { RESULT, syslogApi, systemLogEntity } from '@meterdesk/contracts';
import ExcelJS from 'exceljs';
import type { FastifyInstance } from 'fastify';
import { writeLog } from '../../audit/audit.repository';
import { clientInfo } from '../../audit/client-info';
import type { Db } from '../../db/driver';
import { pageResult } from '../../db/paging';
import { fieldError } from '../../http/api-error';
import { registerDownload, registerOperation } from '../../http/operation';
import { SystemLogRepository } from './syslog.repository';

const DAY_MS = 86_400_000;
const EXPORT_LIMIT = 100_000;
/** spec §9: spreadsheet export with 150 px columns (about 21 characters). */
const COLUMN_WIDTH = 21;

function checkRange(q: { startTime: string; endTime: string }): void {
  const start = Date.parse(q.startTime);
  const end = Date.parse(q.endTime);
  if (start >= end) throw fieldError(RESULT.badRequest, 'startTime', 'timeRangeInvalid');
  if (end - start > syslogApi.MAX_LOG_RANGE_DAYS * DAY_MS)
    throw fieldError(RESULT.badRequest, 'endTime', 'timeRangeTooLong');
}

export function registerSystemLogRoutes(app: FastifyInstance, deps: { db: Db }): void {
  const repo = new SystemLogRepository(deps.db);

  registerOperation(app, syslogApi.listsystemlog, async ({ body }) => {
    checkRange(body);
    return pageResult(body, await repo.list(body));
  });

  registerDownload(app, syslogApi.exportsystemlog, async ({ body }) => {
    checkRange(body);
    const rows = await repo.all(body, EXPORT_LIMIT);
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('System log');
    // The entity's detail fields are the export's columns: declared once in contracts.
    sheet.columns = systemLogEntity.detail.map((key) => ({ header: key, key, width: COLUMN_WIDTH }));
    for (const row of rows) sheet.addRow(row);
    sheet.getRow(1).font = { bold: true };
    return {
      filename: `system-log-${body.startTime.slice(0, 10)}-${body.endTime.slice(0, 10)}.xlsx`,
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      body: Buffer.from(await workbook.xlsx.writeBuffer()),
    };
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
