import { type SystemLog, type SystemLogQuery, systemLogEntity } from '@meterdesk/contracts';
import { desc, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { defineList, keysetPage, listOrder, listWhere } from '../../db/list';
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
    content: sysLog.content,
    ip: sysLog.ip,
    time: sysLog.time,
  },
  defaultOrder: [desc(sysLog.time), desc(sysLog.id)],
  tieBreak: sysLog.id,
});

type Filters = Omit<SystemLogQuery, 'pageSize' | 'curPage'>;

export const toSystemLog = (r: typeof sysLog.$inferSelect): SystemLog => ({
  id: r.id,
  logType: r.logType,
  actorKind: r.actorKind,
  username: r.username,
  // Rows written without a kind (the column's default) read as 'other'.
  operatingType: r.operatingType || 'other',
  logLevel: r.logLevel,
  content: r.content,
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

  private rows = async (where: SQL | undefined, orderBy: SQL[], limit: number, offset: number) =>
    (
      await this.db
        .select()
        .from(sysLog)
        .where(where)
        .orderBy(...orderBy)
        .limit(limit)
        .offset(offset)
    ).map(toSystemLog);

  list(q: SystemLogQuery) {
    return keysetPage(
      SYSLOG_LIST,
      q,
      { rows: this.rows, count: (where) => countUpTo(this.db, sysLog, where, COUNT_CAP) },
      { column: sysLog.time, keyOf: (row) => [new Date(row.time), row.id], countCap: COUNT_CAP },
    );
  }

  /** Every entry the filters select, in pages of `chunk`, for a streamed export. */
  async *all(q: Filters, limit: number, chunk = 1000): AsyncGenerator<SystemLog[]> {
    const where = listWhere(SYSLOG_LIST, q);
    const orderBy = listOrder(SYSLOG_LIST, q);
    for (let offset = 0; offset < limit; offset += chunk) {
      const rows = await this.rows(where, orderBy, Math.min(chunk, limit - offset), offset);
      if (rows.length > 0) yield rows;
      if (rows.length < chunk) return;
    }
  }
}
