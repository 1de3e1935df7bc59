import type { SystemLog, SystemLogQuery } from '@meterdesk/contracts';
import { and, eq, gte, ilike, lt, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { pageWindow, sortBy } from '../../db/paging';
import { countAll, iso, likeContains } from '../../db/rows';
import { sysLog } from '../../db/schema';

const SORTABLE = {
  time: sysLog.time,
  logType: sysLog.logType,
  username: sysLog.username,
  operatingType: sysLog.operatingType,
};

type Filters = Omit<SystemLogQuery, 'pageSize' | 'curPage'>;

export const toSystemLog = (r: typeof sysLog.$inferSelect): SystemLog => ({
  id: r.id,
  logType: r.logType,
  actorKind: r.actorKind,
  username: r.username,
  operatingType: r.operatingType,
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

  private where(q: Filters): SQL | undefined {
    return and(
      ...([
        gte(sysLog.time, new Date(q.startTime)),
        lt(sysLog.time, new Date(q.endTime)),
        q.logType ? eq(sysLog.logType, q.logType) : undefined,
        q.actorKind ? eq(sysLog.actorKind, q.actorKind) : undefined,
        q.username ? ilike(sysLog.username, likeContains(q.username)) : undefined,
        q.operatingType ? eq(sysLog.operatingType, q.operatingType) : undefined,
        q.logLevel ? eq(sysLog.logLevel, q.logLevel) : undefined,
        q.content ? ilike(sysLog.content, likeContains(q.content)) : undefined,
        q.ip ? ilike(sysLog.ip, likeContains(q.ip)) : undefined,
      ] as (SQL | undefined)[]),
    );
  }

  async list(q: SystemLogQuery) {
    const where = this.where(q);
    const { limit, offset } = pageWindow(q);
    const [rows, [counted]] = await Promise.all([
      this.db
        .select()
        .from(sysLog)
        .where(where)
        .orderBy(...sortBy(q, SORTABLE, sql`${sysLog.time} desc`, sysLog.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ total: countAll() }).from(sysLog).where(where),
    ]);
    return { list: rows.map(toSystemLog), total: counted?.total ?? 0 };
  }

  async all(q: Filters, limit: number) {
    const rows = await this.db
      .select()
      .from(sysLog)
      .where(this.where(q))
      .orderBy(...sortBy(q, SORTABLE, sql`${sysLog.time} desc`, sysLog.id))
      .limit(limit);
    return rows.map(toSystemLog);
  }
}
