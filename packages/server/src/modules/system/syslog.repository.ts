import {
  type DeviceKind,
  type SystemLog,
  type SystemLogQuery,
  systemLogEntity,
  TOPIC_ROOT,
} from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { renderContent } from '../../audit/log-content';
import type { Executor } from '../../db/driver';
import { defineList, keyOrder, keysetPage, listChunks } from '../../db/list';
import { countUpTo, iso, qualified } from '../../db/rows';
import { dcu, meter, sysLog, sysUser } from '../../db/schema';
import { gridScope, orgScope, type Scope } from '../../rbac/scope';

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

const actor = qualified(sysLog.username);

/**
 * A device entry whose meter or DCU the grid scope reaches: the head-end names the device in
 * `username` and its reply topic, which tells a meter from a DCU, in `requestUrl`.
 */
const deviceInScope = (scope: Scope, kind: DeviceKind, table: PgTable, key: AnyPgColumn, grid: AnyPgColumn) =>
  sql`(${qualified(sysLog.requestUrl)} like ${`${TOPIC_ROOT}/${kind}/%`} and exists (select 1 from ${table} where ${key} = ${actor} and ${gridScope(scope, grid)}))`;

/**
 * The entries a caller reads, as one SQL condition, so paging and totals agree with it. An entry is
 * about its actor: a device's about that meter or DCU (the grid scope, as the archive), a user's login,
 * visit or operation about that user (the organisation scope, as the user list). A job's entries
 * concern the whole system and, like those of actors no longer on record, are the admin role's alone.
 */
export function journalScope(scope: Scope): SQL | undefined {
  if (scope.all) return undefined;
  const kind = qualified(sysLog.actorKind);
  return sql`((${kind} = 'user' and exists (select 1 from ${sysUser} where lower(${sysUser.username}) = lower(${actor}) and ${orgScope(scope, sysUser.orgId)}))
    or (${kind} = 'device' and (${deviceInScope(scope, 'meter', meter, meter.devAddr, meter.gridId)} or ${deviceInScope(scope, 'dcu', dcu, dcu.dcuNo, dcu.gridId)})))`;
}

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
  list(q: SystemLogQuery, language: number, scope: SQL | undefined) {
    return keysetPage(
      SYSLOG_LIST,
      q,
      {
        rows: (where, orderBy, limit, offset) => this.rows(where, orderBy, limit, offset, language),
        count: (where) => countUpTo(this.db, sysLog, where, COUNT_CAP),
      },
      { countCap: COUNT_CAP },
      scope,
    );
  }

  /** Every entry the filters select, in pages of `chunk`, for a streamed export. */
  all(q: Filters, limit: number, language: number, scope: SQL | undefined, chunk = 1000): AsyncGenerator<SystemLog[]> {
    return listChunks(
      SYSLOG_LIST,
      q,
      { rows: (where, orderBy, size, offset) => this.rows(where, orderBy, size, offset, language) },
      { chunk, max: limit },
      scope,
    );
  }
}
