import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness';
import { afterCommit, ambientDb, inTransaction, openTransaction } from './ambient';
import type { Db } from './executor';
import { newId } from './ids';
import { powerGrid, sysGroup } from './schema';

describe('the request transaction the services’ handle joins', () => {
  let t: TestApp;
  let gridId: string;
  beforeAll(async () => {
    t = await createTestApp();
    gridId = (await t.db.select({ id: powerGrid.id }).from(powerGrid).limit(1))[0]!.id;
  });
  afterAll(() => t.close());

  const group = (code: string) => ({ id: newId(), groupName: code, groupCode: code, gridId });
  const found = async (code: string, via: Db = t.db) =>
    (await via.select().from(sysGroup).where(eq(sysGroup.groupCode, code))).length;

  it('runs what waits for the commit once the change is visible outside, and nothing of it on a rollback', async () => {
    const db = ambientDb(t.db);
    const seen: number[] = [];
    await inTransaction(t.db, async () => {
      // A service's own transaction is a savepoint in the request's.
      await db.transaction((tx) => tx.insert(sysGroup).values(group('AMB1')));
      await afterCommit(async () => {
        expect(openTransaction()).toBeNull();
        seen.push(await found('AMB1'));
      });
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual([1]);

    await expect(
      inTransaction(t.db, async () => {
        await db.insert(sysGroup).values(group('AMB2'));
        await afterCommit(() => seen.push(-1));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(seen).toEqual([1]);
    expect(await found('AMB2')).toBe(0);
  });

  it('is the database again outside the transaction, and for work started in it that outlives it', async () => {
    const db = ambientDb(t.db);
    let release = () => {};
    const ended = new Promise<void>((resolve) => {
      release = resolve;
    });
    let later: Promise<{ open: unknown; n: number }> | undefined;
    await inTransaction(t.db, async () => {
      await db.insert(sysGroup).values(group('AMB3'));
      later = ended.then(async () => ({ open: openTransaction(), n: await found('AMB3', db) }));
    });
    release();
    expect(await later).toEqual({ open: null, n: 1 });
    // Outside any request, a write commits on its own.
    await db.insert(sysGroup).values(group('AMB4'));
    expect(await found('AMB4')).toBe(1);
  });
});
