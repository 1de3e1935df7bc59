import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RES } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin, runAdminOn } from './admin-cli';
import { LOCK_FILE } from './db/data-dir-lock';
import { sysUser } from './db/schema';
import { FRESH_START } from './test/constants';
import { createTestApp, type TestApp } from './test/harness';
import { otherProcesses } from './test/processes';

describe('admin command line', () => {
  let t: TestApp;
  let role: string;
  const run = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await runAdmin(args, t.db, (line) => lines.push(line));
    return { code, text: lines.join('\n') };
  };
  const attempt = (username: string, password: string, remoteAddress: string) =>
    t.app.http.inject({
      method: 'POST',
      url: '/apis/sysuser/login',
      payload: { username, password, code: 'x', codeFill: 'x' },
      remoteAddress,
    });

  beforeAll(async () => {
    t = await createTestApp({ lockAddresses: 2 });
    role = await t.createRole('dash', [RES.dashboard]);
  });
  afterAll(() => t.close());

  it('unlocks a user locked from every address', async () => {
    await t.createUser({ username: 'stuck', password: 'Secret1', roleIds: [role] });
    for (const ip of ['10.9.0.1', '10.9.0.2']) for (let i = 0; i < 5; i++) await attempt('stuck', 'bad-pass', ip);
    expect((await attempt('stuck', 'Secret1', '10.9.0.3')).json()).toMatchObject({ msg: 'userLocked' });

    expect(await run('unlock', 'stuck')).toEqual({ code: 0, text: '"stuck" is unlocked and enabled.' });
    expect((await attempt('stuck', 'Secret1', '10.9.0.1')).statusCode).toBe(200);
    expect((await attempt('stuck', 'Secret1', '10.9.0.3')).statusCode).toBe(200);
  });

  it('resets a password, printed or given, ends the sessions and asks for a change', async () => {
    await t.createUser({ username: 'forgetful', password: 'Secret1', roleIds: [role] });
    const session = await t.login('forgetful', 'Secret1');
    const printed = await run('reset-password', 'forgetful');
    expect(printed.code).toBe(0);
    const password = /password (\S+) ;/.exec(printed.text)?.[1];
    expect(password).toHaveLength(14);
    expect((await t.call('/sysuser/auth', {}, session)).status).toBe(401);
    const login = await attempt('forgetful', password!, '10.9.1.1');
    expect(login.json()).toMatchObject({ code: 200, data: { mustChangePassword: true } });

    expect((await run('reset-password', 'forgetful', 'Chosen-99')).code).toBe(0);
    expect((await attempt('forgetful', 'Chosen-99', '10.9.1.1')).statusCode).toBe(200);
    const [stored] = await t.db.select().from(sysUser).where(eq(sysUser.username, 'forgetful'));
    expect(stored!.mustChangePassword).toBe(true);
  });

  it('says what is wrong instead of doing something else', async () => {
    expect((await run()).code).toBe(2);
    expect((await run('delete', 'admin')).code).toBe(2);
    expect(await run('unlock', 'nobody')).toEqual({ code: 1, text: 'No user "nobody".' });
    expect((await run('reset-password', 'admin', '123')).code).toBe(1);
  });
});

describe('admin command line on a PGlite DATA_DIR', FRESH_START, () => {
  const pids = otherProcesses();
  let dataDir: string;
  const lock = () => path.join(dataDir, LOCK_FILE);
  const run = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await runAdminOn({ dataDir, databaseUrl: undefined }, args, (line) => lines.push(line));
    return { code, text: lines.join('\n') };
  };

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'meterdesk-admin-'));
    return () => rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses while the server runs on it, before opening the database', async () => {
    writeFileSync(lock(), `${pids.living()}\nserver\n`);
    expect(await run('unlock', 'admin')).toEqual({
      code: 1,
      text: `The server is running on DATA_DIR ${dataDir} (pid ${pids.living()}); stop it first, or run the command against PostgreSQL (a server on DATABASE_URL may stay up).`,
    });
    expect(readdirSync(dataDir)).toEqual([LOCK_FILE]);
  });

  it('takes over the lock of a server that has gone, and leaves none behind', async () => {
    writeFileSync(lock(), `${pids.gone}\nserver\n`);
    // A fresh directory: migrated, not seeded, so the command reaches the database and finds nobody.
    expect(await run('unlock', 'admin')).toEqual({ code: 1, text: 'No user "admin".' });
    expect(existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(true);
    expect(existsSync(lock())).toBe(false);
  });
});
