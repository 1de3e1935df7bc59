import { settingsApi } from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { writeLog } from '../audit/audit.repository';
import type { Db } from '../db/driver';
import { rowsOf } from '../db/rows';
import { sysParameter } from '../db/schema';
import { defineJob } from '../jobs/job-system';
import { PARTITIONED, type PartitionedTable } from './partitions';

export const READINGS_RETENTION_KEY = 'readingsRetentionMonths';
export const READINGS_RETENTION_JOB = 'reading-retention';

/**
 * How many months of readings are kept: a `sys_parameter` row once saved, READINGS_RETENTION_MONTHS
 * before. Read at most once a minute: the writer asks for every flush.
 */
export class ReadingRetentionSetting {
  private cached: { months: number; at: number } | null = null;

  constructor(
    private readonly db: Db,
    private readonly defaultMonths: number,
  ) {}

  async months(): Promise<number> {
    if (this.cached && Date.now() - this.cached.at < 60_000) return this.cached.months;
    const [row] = await this.db.select().from(sysParameter).where(eq(sysParameter.key, READINGS_RETENTION_KEY));
    const parsed = settingsApi.ReadingsRetentionSchema.safeParse(row?.value);
    const months = parsed.success ? parsed.data.months : this.defaultMonths;
    this.cached = { months, at: Date.now() };
    return months;
  }

  async save(months: number): Promise<void> {
    const value = settingsApi.ReadingsRetentionSchema.parse({ months });
    await this.db
      .insert(sysParameter)
      .values({ key: READINGS_RETENTION_KEY, value })
      .onConflictDoUpdate({ target: sysParameter.key, set: { value, updateTime: new Date() } });
    this.cached = null;
  }

  /** The oldest time kept: a reading before it is refused, a partition ending at or before it dropped. */
  async cutoff(now: Date): Promise<Date> {
    return retentionCutoff(now, await this.months());
  }
}

/** `months` calendar months before `now` (UTC), the day clamped to the shorter month. */
export function retentionCutoff(now: Date, months: number): Date {
  const target = new Date(now);
  const monthIndex = now.getUTCMonth() - months;
  target.setUTCDate(1);
  target.setUTCMonth(monthIndex);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(now.getUTCDate(), lastDay));
  return target;
}

/** The end (exclusive) of a partition named by `partitionName`; null for a name it did not give. */
export function partitionEnd(table: PartitionedTable, name: string): Date | null {
  const match = new RegExp(`^${table}_p(\\d{4})(\\d{2})?$`).exec(name);
  if (!match) return null;
  const year = Number(match[1]);
  if (PARTITIONED[table] === 'year') return match[2] ? null : new Date(Date.UTC(year + 1, 0, 1));
  return match[2] ? new Date(Date.UTC(year, Number(match[2]), 1)) : null;
}

/**
 * Drops every partition of the readings tables that ends at or before `cutoff`: detached, then
 * dropped, so an old month leaves in milliseconds instead of being deleted row by row. Answers the
 * names dropped.
 */
export async function dropExpiredPartitions(db: Db, cutoff: Date): Promise<string[]> {
  const dropped: string[] = [];
  for (const table of Object.keys(PARTITIONED) as PartitionedTable[]) {
    const children = await rowsOf<{ name: string }>(
      db,
      sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
          join pg_class p on p.oid = i.inhparent where p.relname = ${table} order by 1`,
    );
    for (const { name } of children) {
      const end = partitionEnd(table, name);
      if (!end || end > cutoff) continue;
      await db.transaction(async (tx) => {
        // The lock the partition maker takes: a partition is never dropped while being made again.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('reading partitions'))`);
        await tx.execute(sql.raw(`alter table ${table} detach partition ${name}`));
        await tx.execute(sql.raw(`drop table ${name}`));
      });
      dropped.push(name);
    }
  }
  return dropped;
}

/** Daily: whole partitions past the retention leave; what left is in the system log and the process log. */
export const readingRetentionJob = (db: Db, setting: ReadingRetentionSetting, log: FastifyBaseLogger) =>
  defineJob({
    name: READINGS_RETENTION_JOB,
    schedule: '37 0 * * *',
    policy: 'stately',
    expireInSeconds: 60 * 60,
    handler: async () => {
      const months = await setting.months();
      const cutoff = retentionCutoff(new Date(), months);
      const dropped = await dropExpiredPartitions(db, cutoff);
      if (dropped.length > 0) {
        log.info({ months, cutoff: cutoff.toISOString(), dropped }, 'readings: partitions past retention dropped');
        await writeLog(db, {
          actor: 'job',
          username: READINGS_RETENTION_JOB,
          logType: 'operation',
          operatingType: 'delete',
          content: `Dropped reading partitions older than ${months} months (before ${cutoff.toISOString().slice(0, 10)}): ${dropped.join(', ')}`,
          result: 200,
          requestUrl: '',
        });
      }
      return { months, cutoff: cutoff.toISOString(), dropped };
    },
  });
