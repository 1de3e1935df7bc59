import type { Page, SystemLog } from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { deleteInBatches } from '../../db/batch-delete';
import { newId } from '../../db/ids';
import { sysLog } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/harness';
import { runJob } from '../../test/jobs';

const DAY = 86_400_000;
const range = {
  startTime: new Date(Date.now() - 20 * DAY).toISOString(),
  endTime: new Date(Date.now() + DAY).toISOString(),
};

describe('system log retention', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp({ logRetentionDays: 30 }, { jobs: true });
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  const aged = (content: string, days: number) => ({
    id: newId(),
    logType: 'operation' as const,
    username: 'admin',
    operatingType: 'other',
    content,
    time: sql`now() - make_interval(days => ${days})`,
  });

  it('takes its default from LOG_RETENTION_DAYS (180 unless set, 1 to 3650)', () => {
    expect(loadConfig({}).logRetentionDays).toBe(180);
    expect(loadConfig({ LOG_RETENTION_DAYS: '45' }).logRetentionDays).toBe(45);
    for (const bad of ['0', '3651', 'forever'])
      expect(() => loadConfig({ LOG_RETENTION_DAYS: bad })).toThrow('LOG_RETENTION_DAYS');
  });

  it('answers the LOG_RETENTION_DAYS default until a number is saved, and refuses an unusable one', async () => {
    expect((await t.call('/parameter/getlogretention', {}, admin)).body.data).toEqual({ days: 30 });
    for (const days of [0, 3651, 1.5, '10', null]) {
      const refused = await t.call('/parameter/updatelogretention', { days }, admin);
      expect(refused.status).toBe(400);
      expect(refused.body.data).toMatchObject({ issues: [expect.objectContaining({ field: 'days' })] });
    }
    expect((await t.call('/parameter/updatelogretention', { days: 10 }, admin)).status).toBe(200);
    expect((await t.call('/parameter/getlogretention', {}, admin)).body.data).toEqual({ days: 10 });
  });

  it('deletes entries older than the retention by the database clock and logs it as the job', async () => {
    await t.call('/parameter/updatelogretention', { days: 10 }, admin);
    await t.db
      .insert(sysLog)
      .values([aged('old-1', 11), aged('old-2', 12), aged('old-3', 40), aged('recent-1', 9), aged('recent-2', 1)]);

    const run = await runJob(t, 'log-retention');
    expect(run.output).toEqual({ days: 10, deleted: 3 });
    const contents = (await t.db.select({ content: sysLog.content }).from(sysLog)).map((r) => r.content);
    expect(contents).not.toContain('old-1');
    expect(contents).toEqual(expect.arrayContaining(['recent-1', 'recent-2']));

    const [entry] = await t.db.select().from(sysLog).where(eq(sysLog.username, 'log-retention'));
    expect(entry).toMatchObject({ actorKind: 'job', operatingType: 'delete', logType: 'operation' });
    expect(entry?.content).toContain('Deleted 3 system log entries older than 10 days');
  });

  it('lists, filters and exports who acted', async () => {
    const jobEntries = await t.call<Page<SystemLog>>('/systemlog/listsystemlog', { ...range, actorKind: 'job' }, admin);
    expect(jobEntries.body).toMatchObject({ code: 200 });
    expect(jobEntries.body.data.list.map((l) => [l.actorKind, l.username])).toEqual([['job', 'log-retention']]);
    const userEntries = await t.call<Page<SystemLog>>(
      '/systemlog/listsystemlog',
      { ...range, actorKind: 'user', pageSize: 100 },
      admin,
    );
    expect(userEntries.body).toMatchObject({ code: 200 });
    expect(userEntries.body.data.list.length).toBeGreaterThan(0);
    expect(userEntries.body.data.list.every((l) => l.actorKind === 'user')).toBe(true);
    const badFilter = await t.call('/systemlog/listsystemlog', { ...range, actorKind: 'robot' }, admin);
    expect(badFilter.body.data).toMatchObject({ issues: [expect.objectContaining({ field: 'actorKind' })] });

    const res = await t.app.http.inject({
      method: 'POST',
      url: '/apis/systemlog/exportsystemlog',
      payload: { ...range, actorKind: 'job' },
      headers: { cookie: admin },
    });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    const column = (sheet.getRow(1).values as unknown[]).indexOf('Actor');
    expect(sheet.getRow(2).getCell(column).value).toBe('Job');
  });

  it('deletes in batches until nothing matches', async () => {
    await t.db.insert(sysLog).values(Array.from({ length: 5 }, (_, i) => aged(`batch-${i}`, 100)));
    const deleted = await deleteInBatches(t.db, sysLog, sysLog.id, sql`${sysLog.content} like 'batch-%'`, 2);
    expect(deleted).toBe(5);
  });
});
