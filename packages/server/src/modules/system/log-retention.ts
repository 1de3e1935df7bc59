import { settingsApi } from '@meterdesk/contracts';
import { eq, lt, sql } from 'drizzle-orm';
import { writeLog } from '../../audit/audit.repository';
import { deleteInBatches } from '../../db/batch-delete';
import type { Db } from '../../db/driver';
import { sysLog, sysParameter } from '../../db/schema';
import { defineJob } from '../../jobs/job-system';

export const LOG_RETENTION_KEY = 'logRetentionDays';
export const LOG_RETENTION_JOB = 'log-retention';

/** The retention setting: a `sys_parameter` row once saved, the LOG_RETENTION_DAYS default before. */
export class LogRetentionSetting {
  constructor(
    private readonly db: Db,
    private readonly defaultDays: number,
  ) {}

  async days(): Promise<number> {
    const [row] = await this.db.select().from(sysParameter).where(eq(sysParameter.key, LOG_RETENTION_KEY));
    const parsed = settingsApi.LogRetentionSchema.safeParse(row?.value);
    return parsed.success ? parsed.data.days : this.defaultDays;
  }

  async save(days: number): Promise<void> {
    const value = { days };
    await this.db
      .insert(sysParameter)
      .values({ key: LOG_RETENTION_KEY, value })
      .onConflictDoUpdate({ target: sysParameter.key, set: { value, updateTime: new Date() } });
  }
}

/**
 * Nightly: deletes system log entries older than the retention, by the database clock, in batches;
 * the entry it leaves names the job as its actor.
 */
export const logRetentionJob = (db: Db, setting: LogRetentionSetting) =>
  defineJob({
    name: LOG_RETENTION_JOB,
    schedule: '17 2 * * *',
    policy: 'stately',
    expireInSeconds: 60 * 60,
    handler: async () => {
      const days = await setting.days();
      const deleted = await deleteInBatches(
        db,
        sysLog,
        sysLog.id,
        lt(sysLog.time, sql`now() - make_interval(days => ${days})`),
      );
      if (deleted > 0)
        await writeLog(db, {
          actor: 'job',
          username: LOG_RETENTION_JOB,
          logType: 'operation',
          operatingType: 'delete',
          content: `Deleted ${deleted} system log entries older than ${days} days`,
          result: 200,
          requestUrl: '',
        });
      return { days, deleted };
    },
  });
