import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_ORG_ID } from './db/seeded-ids';
import { createLogger } from './logger';
import { createTestApp, type TestApp } from './test/harness';

describe('logs', () => {
  let t: TestApp;
  const lines: string[] = [];
  const capture = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });

  beforeAll(async () => {
    t = await createTestApp({}, { logger: createLogger('info', capture) });
  });
  afterAll(() => t.close());

  it('log a failed insert with its SQL but without its parameters, whose values may be password hashes', async () => {
    // A rule the service does not check, so the insert itself fails as a database error would.
    await t.db.execute(sql`ALTER TABLE sys_user ADD CONSTRAINT no_mallory CHECK (username <> 'mallory')`);
    const admin = await t.loginAdmin();
    const res = await t.call(
      '/sysuser/savesysuser',
      {
        username: 'mallory',
        password: 'Secret-Param-77',
        fullName: 'Visible Param Value',
        status: 'enabled',
        orgId: ROOT_ORG_ID,
        roleIdList: [],
        groupCodeList: [],
      },
      admin,
    );
    expect(res.status).toBe(500);

    const logged = lines.join('');
    const entry = lines.map((l) => JSON.parse(l) as { msg?: string; err?: unknown }).find((l) => l.err);
    expect(JSON.stringify(entry)).toContain('Failed query: insert into');
    expect(JSON.stringify(entry)).toContain('no_mallory');
    expect(logged).not.toContain('$argon2id$');
    expect(logged).not.toContain('Visible Param Value');
    expect(logged).not.toContain('params:');
    expect(logged).not.toContain('Secret-Param-77');
  });

  it('warns once, not per request, when requests come through a proxy while TRUST_PROXY is off', async () => {
    const proxyWarnings = () => lines.filter((l) => l.includes('TRUST_PROXY')).length;
    await t.call('/sysuser/auth');
    expect(proxyWarnings()).toBe(0);
    for (let i = 0; i < 3; i++) await t.call('/sysuser/auth', {}, undefined, { 'x-forwarded-for': `203.0.113.${i}` });
    expect(proxyWarnings()).toBe(1);
    expect(JSON.parse(lines.find((l) => l.includes('TRUST_PROXY')) ?? '')).toMatchObject({ level: 40 });
  });

  it('never writes a password property, however deep (device credentials of a fleet entry)', () => {
    const seen: string[] = [];
    const log = createLogger(
      'info',
      new Writable({
        write(chunk, _encoding, done) {
          seen.push(String(chunk));
          done();
        },
      }),
    );
    const credentials = { username: 'dcu:DCU001', password: 'device-secret-1' };
    log.info({ password: 'top-secret-2', dcu: { dcuNo: 'DCU001', credentials } }, 'fleet entry');
    log.info(credentials, 'login');
    const text = seen.join('');
    expect(text).toContain('dcu:DCU001');
    expect(text).not.toContain('device-secret-1');
    expect(text).not.toContain('top-secret-2');
  });
});
