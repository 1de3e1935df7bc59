import type { Executor } from '../db/driver';
import { newId } from '../db/ids';
import { type LogType, sysLog } from '../db/schema';
import type { ClientInfo } from './client-info';

export interface LogEntry {
  logType: LogType;
  username: string;
  operatingType: string;
  logLevel?: 'info' | 'warn' | 'error';
  content: string;
  result: number;
  requestUrl: string;
  client: ClientInfo;
}

export async function writeLog(db: Executor, entry: LogEntry): Promise<void> {
  await db.insert(sysLog).values({
    id: newId(),
    logType: entry.logType,
    username: entry.username.slice(0, 50),
    operatingType: entry.operatingType,
    logLevel: entry.logLevel ?? (entry.result === 200 ? 'info' : 'warn'),
    content: entry.content,
    result: entry.result,
    requestUrl: entry.requestUrl.slice(0, 300),
    ...entry.client,
  });
}
