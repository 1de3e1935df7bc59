import type { Executor } from '../db/driver';
import { newId } from '../db/ids';
import { type ActorKind, type LogType, sysLog } from '../db/schema';
import type { ClientInfo } from './client-info';
import { searchableContent } from './log-content';

export interface LogEntry {
  logType: LogType;
  /** Who acted (default a user); `username` then holds the user's, the job's or the device's name. */
  actor?: ActorKind;
  username: string;
  operatingType: string;
  logLevel?: 'info' | 'warn' | 'error';
  content: string;
  result: number;
  requestUrl: string;
  /** The caller's address and browser; none for a job. */
  client?: ClientInfo;
}

export async function writeLog(db: Executor, entry: LogEntry): Promise<void> {
  await db.insert(sysLog).values({
    id: newId(),
    logType: entry.logType,
    actorKind: entry.actor ?? 'user',
    username: entry.username.slice(0, 50),
    operatingType: entry.operatingType,
    logLevel: entry.logLevel ?? (entry.result === 200 ? 'info' : 'warn'),
    content: entry.content,
    searchText: searchableContent(entry),
    result: entry.result,
    requestUrl: entry.requestUrl.slice(0, 300),
    ...entry.client,
  });
}
