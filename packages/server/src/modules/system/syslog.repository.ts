import { type SystemLog, type SystemLogQuery, systemLogEntity } from '@meterdesk/contracts';
import type { SQL } from 'drizzle-orm';
import { renderContent } from '../../audit/log-content';
import type { Executor } from '../../db/driver';
import { defineList, keyOrder, keysetPage, listChunks } from '../../db/list';
import { countUpTo, iso } from '../../db/rows';
import { sysLog } from '../../db/schema';

/** Counting a log stops here: a month of a busy system holds millions of entries. */
const COUNT_CAP = 10_000;

export const SYSLOG_LIST = defineList({
  entity: systemLogEntity,
  columns: {
    logType: sysLog.logType,
    actorKind: sysLog.actorKind,
    username: sysLog.username,
    operatingType: sysLog.operatingType,
    logLevel: sysLog.logLevel,
    content: sysLog.searchText,
    ip: sysLog.ip,
    time: sysLog.time,
  },
  defaultOrder: keyOrder({ time: sysLog.time, id: sysLog.id }, 'desc'),
  tieBreak: sysLog.id,
});

type Filters = Omit<SystemLogQuery, 'pageSize' | 'curPage'>;

export const toSystemLog = (r: typeof sysLog.$inferSelect, language = 1): SystemLog => ({
  id: r.id,
  logType: r.logType,
  actorKind: r.actorKind,
  username: r.username,
  // Rows written without a kind (the column's default) read as 'other'.
  operatingType: r.operatingType || 'other',
  logLevel: r.logLevel,
  content: renderContent(r, language),
  result: r.result,
  ip: r.ip,
  ua: r.ua,
  os: r.os,
  browser: r.browser,
  requestUrl: r.requestUrl,
  time: iso(r.time),
});

export class SystemLogRepository {
  constructor(private readonly db: Executor) {}

  private rows = async (where: SQL | undefined, orderBy: SQL[], limit: number, offset: number, language: number) =>
    (
      await this.db
        .select()
        .from(sysLog)
        .where(where)
        .orderBy(...orderBy)
        .limit(limit)
        .offset(offset)
    ).map((r) => toSystemLog(r, language));

  /** A page of the log, its content worded for an operator in `language`. */
  list(q: SystemLogQuery, language: number) {
    return keysetPage(
      SYSLOG_LIST,
      q,
      {
        rows: (where, orderBy, limit, offset) => this.rows(where, orderBy, limit, offset, language),
        count: (where) => countUpTo(this.db, sysLog, where, COUNT_CAP),
      },
      { countCap: COUNT_CAP },
    );
  }

  /** Every entry the filters select, in pages of `chunk`, for a streamed export. */
  all(q: Filters, limit: number, language: number, chunk = 1000): AsyncGenerator<SystemLog[]> {
    return listChunks(
      SYSLOG_LIST,
      q,
      { rows: (where, orderBy, size, offset) => this.rows(where, orderBy, size, offset, language) },
      { chunk, max: limit },
    );
  }
}
