import type { GridNode } from '@meterdesk/contracts';
import { eq, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sysGroup, sysLog } from '../db/schema';
import { createTestApp, type TestApp } from '../test/harness';

/**
 * The write path broken between a change and its answer: the database refuses an operation log entry
 * that names a marked group, either as the entry is inserted or when its transaction commits (a
 * deferred trigger, as a crash there would leave it). Whatever the answer, the group and its entry are
 * both there or neither is.
 */
const REFUSE_MARKED_ENTRIES = [
  sql`create function refuse_marked_entry() returns trigger language plpgsql as $$
      begin
        if new.content like '%' || tg_argv[0] || '%' then raise exception 'operation log entry refused'; end if;
        return new;
      end $$`,
  sql`create trigger refuse_at_insert before insert on sys_log
      for each row execute function refuse_marked_entry('KILLINSERT')`,
  sql`create constraint trigger refuse_at_commit after insert on sys_log deferrable initially deferred
      for each row execute function refuse_marked_entry('KILLCOMMIT')`,
];

describe('the operation log and the change it records', () => {
  let t: TestApp;
  let admin: string;
  let gridId: string;

  beforeAll(async () => {
    t = await createTestApp();
    for (const statement of REFUSE_MARKED_ENTRIES) await t.db.execute(statement);
    admin = await t.loginAdmin();
    gridId = (await t.call<GridNode[]>('/powergrid/tree', {}, admin)).body.data[0]!.children[0]!.id;
  });
  afterAll(() => t.close());

  const save = (groupCode: string) =>
    t.call<{ id: string }>('/sysgroup/savesysgroup', { groupName: groupCode, groupCode, gridId, remark: '' }, admin);
  const groups = (code: string) => t.db.select().from(sysGroup).where(eq(sysGroup.groupCode, code));
  const entries = (code: string) =>
    t.db
      .select()
      .from(sysLog)
      .where(like(sysLog.content, `%${code}%`));

  it('has the entry of a change, and of a refusal, as soon as the answer arrives', async () => {
    expect((await save('OPLOG1')).status).toBe(200);
    expect(await groups('OPLOG1')).toHaveLength(1);
    expect(await entries('OPLOG1')).toEqual([
      expect.objectContaining({ logType: 'operation', operatingType: 'add', result: 200, username: 'admin' }),
    ]);

    // The same code again is refused: nothing changes, and the refusal is logged with its result.
    expect((await save('OPLOG1')).status).toBe(409);
    expect(await groups('OPLOG1')).toHaveLength(1);
    expect((await entries('OPLOG1')).map((e) => e.result).sort()).toEqual([200, 409]);
  });

  it.each([
    ['as the entry is inserted', 'KILLINSERT'],
    ['as the transaction commits', 'KILLCOMMIT'],
  ])('keeps neither the change nor its entry when the entry fails %s', async (_when, code) => {
    const res = await save(code);
    expect(res.status).toBe(500);
    expect(await groups(code)).toHaveLength(0);
    expect(await entries(code)).toHaveLength(0);
  });
});
