import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness';
import { newId } from './ids';
import { meterType, supplier, sysLog } from './schema';

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

  it('writes array columns, elements intact whatever characters they hold', async () => {
    const supplierId = newId();
    await t.db.insert(supplier).values({ id: supplierId, supplierCode: 'ARR1', supplierName: 'Arrays' });
    const odd = ['PLC', 'say "hi"', 'back\\slash', 'a,b', '{x}', 'tab\there', 'NULL', ''];
    const types = [odd, [], ['4G']].map((commTypes, i) => ({
      id: newId(),
      modelName: `array-${i}`,
      supplierId,
      wiring: '1P2W',
      side: 'secondary',
      commTypes,
    }));
    expect(await t.database.bulkInsert(meterType, types)).toBe(3);
    const stored = await t.db
      .select({ modelName: meterType.modelName, commTypes: meterType.commTypes })
      .from(meterType)
      .where(eq(meterType.supplierId, supplierId))
      .orderBy(meterType.modelName);
    expect(stored.map((r) => r.commTypes)).toEqual([odd, [], ['4G']]);
  });

  it('writes bulk rows and queries in one transaction: all of it, or on a failure none of it', async () => {
    const row = (username: string) => ({
      id: newId(),
      logType: 'operation' as const,
      actorKind: 'job' as const,
      username,
      operatingType: 'other',
      content: '',
      result: 200,
      time: new Date(),
    });
    const failed = t.database.writeAtomically(async ({ tx, bulk }) => {
      await bulk(sysLog, [row('atomic-a'), row('atomic-b')]);
      await tx.insert(sysLog).values(row('atomic-c'));
      throw new Error('row 3 is bad');
    });
    await expect(failed).rejects.toThrow('row 3 is bad');
    const like = (name: string) => t.db.select().from(sysLog).where(eq(sysLog.username, name));
    expect(await like('atomic-a')).toHaveLength(0);
    expect(await like('atomic-c')).toHaveLength(0);

    const written = await t.database.writeAtomically(async ({ tx, bulk }) => {
      const n = await bulk(sysLog, [row('atomic-a'), row('atomic-b')]);
      await tx.insert(sysLog).values(row('atomic-c'));
      return n;
    });
    expect(written).toBe(2);
    expect(await like('atomic-a')).toHaveLength(1);
    expect(await like('atomic-c')).toHaveLength(1);
  });
});
