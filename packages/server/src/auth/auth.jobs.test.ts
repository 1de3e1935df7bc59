import { ne, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sysCaptcha, sysSession } from '../db/schema';
import { createTestApp, type TestApp } from '../test/harness';
import { runJob } from '../test/jobs';
import { hashToken } from './session';

describe('session, captcha and login-failure purges', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ sessionIdleMs: 30 * 60_000 }, { jobs: true });
  });
  afterAll(() => t.close());

  it('are scheduled jobs', async () => {
    const schedules = await t.db.execute(sql`select name from pgboss.schedule order by name`);
    expect((schedules as unknown as { rows: { name: string }[] }).rows.map((r) => r.name)).toEqual([
      'billing-report-purge',
      'captcha-purge',
      'collection-due',
      'firmware-image-purge',
      'log-retention',
      'login-failure-purge',
      'prepaid-reconciliation',
      'reading-partitions',
      'reading-retention',
      'reading-rollups',
      'session-purge',
    ]);
  });

  it('the session purge removes idle and expired sessions by the database clock, and keeps live ones', async () => {
    const live = await t.loginAdmin();
    await t.loginAdmin();
    await t.loginAdmin();
    const liveHash = hashToken(live.split('=')[1] ?? '');
    const [idle, expired] = await t.db
      .select({ tokenHash: sysSession.tokenHash })
      .from(sysSession)
      .where(ne(sysSession.tokenHash, liveHash));
    await t.db.execute(
      sql`update sys_session set last_seen_at = now() - interval '31 minutes' where token_hash = ${idle?.tokenHash}`,
    );
    await t.db.execute(
      sql`update sys_session set expires_at = now() - interval '1 second' where token_hash = ${expired?.tokenHash}`,
    );
    const before = (await t.db.select().from(sysSession)).length;

    expect((await runJob(t, 'session-purge')).output).toEqual({ deleted: 2 });
    expect(await t.db.select().from(sysSession)).toHaveLength(before - 2);
    expect((await t.call('/sysuser/auth', {}, live)).status).toBe(200);
  });

  it('the captcha purge removes unanswered captchas past their two minutes', async () => {
    await t.call('/sysuser/getgifcode');
    const { body } = await t.call<{ code: string }>('/sysuser/getgifcode');
    await t.db.execute(
      sql`update sys_captcha set expires_at = now() - interval '1 second' where id = ${body.data.code}`,
    );
    const before = (await t.db.select().from(sysCaptcha)).length;

    expect((await runJob(t, 'captcha-purge')).output).toEqual({ deleted: 1 });
    expect(await t.db.select().from(sysCaptcha)).toHaveLength(before - 1);
  });
});
