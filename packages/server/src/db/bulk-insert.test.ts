import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness';
import { newId } from './ids';
import { sysLog } from './schema';

describe('bulk insert (COPY on PostgreSQL, chunked INSERTs on PGlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('writes every row, values intact whatever characters they hold', async () => {
    const at = new Date('2026-03-04T05:06:07.891Z');
    const rows = Array.from({ length: 1234 }, (_, i) => ({
      id: newId(),
      logType: 'operation' as const,
      actorKind: 'device' as const,
      username: `meter-${i}`,
      operatingType: 'other',
      content: i === 7 ? 'tab\there\nnew line \\ back\\slash 电表 \\N' : `row ${i}`,
      result: i,
      time: at,
    }));
    expect(await t.database.bulkInsert(sysLog, rows)).toBe(1234);
    const stored = await t.db.select().from(sysLog).where(eq(sysLog.actorKind, 'device'));
    expect(stored).toHaveLength(1234);
    const odd = stored.find((r) => r.username === 'meter-7')!;
    expect(odd.content).toBe('tab\there\nnew line \\ back\\slash 电表 \\N');
    expect(odd.time.toISOString()).toBe(at.toISOString());
    expect(stored.find((r) => r.username === 'meter-1233')!.result).toBe(1233);
    expect(await t.database.bulkInsert(sysLog, [])).toBe(0);
  });
});
