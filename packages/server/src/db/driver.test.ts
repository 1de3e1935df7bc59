import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_BASE } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRESH_START } from '../test/constants';
import { createTestApp, type TestApp } from '../test/harness';
import { DataDirLocked, LOCK_FILE } from './data-dir-lock';
import { openDatabase } from './driver';

describe('PGlite data directory', FRESH_START, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'meterdesk-data-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is private to the service user, also when it was left open', async () => {
    // What a copy, a restore or an older version may leave behind.
    chmodSync(dataDir, 0o777);
    mkdirSync(path.join(dataDir, 'pgdata'), { mode: 0o755 });
    chmodSync(path.join(dataDir, 'pgdata'), 0o755);
    writeFileSync(path.join(dataDir, 'secret.key'), 'x');
    chmodSync(path.join(dataDir, 'secret.key'), 0o666);

    const database = await openDatabase({ dataDir, holder: 'server' });
    await database.close();
    const mode = (p: string) => statSync(path.join(dataDir, p)).mode & 0o777;
    expect(mode('.')).toBe(0o700);
    expect(mode('pgdata')).toBe(0o700);
    expect(mode('pgdata/base')).toBe(0o700);
    expect(mode('secret.key')).toBe(0o600);
    expect(mode('pgdata/PG_VERSION') & 0o077).toBe(0);
  });

  it('is locked for its holder until closed', async () => {
    const database = await openDatabase({ dataDir, holder: 'server' });
    expect(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\nserver\n`);
    await expect(openDatabase({ dataDir, holder: 'admin command' })).rejects.toThrow(DataDirLocked);
    await database.close();
    expect(existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
  });
});

describe('background work on the database', () => {
  let t: TestApp;
  let captchaUrl: string;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.http.server.address();
    captchaUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${API_BASE}/sysuser/getgifcode`;
  }, 180_000);
  afterAll(() => t?.close());
  /** A request the server answers after a statement of its own (the captcha's insert). */
  const request = () =>
    fetch(captchaUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  /** More statements than background work could run before a request is answered, unless the request waits for them. */
  const MANY = 5000;

  it('leaves a request answered while one query follows another', async () => {
    // As the demo history's ingest or the head-end await one query after another.
    let answered = false;
    let ran = 0;
    const chain = (async () => {
      while (!answered && ran < MANY) {
        await t.db.execute(sql`select 1`);
        ran++;
      }
    })();
    const response = await request();
    answered = true;
    await chain;
    expect(response.status).toBe(200);
    expect(ran).toBeLessThan(MANY);
  });

  // PostgreSQL runs a pool of connections side by side; PGlite's one connection takes requests first.
  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
    "runs a request's statement on PGlite before the background statements waiting",
    async () => {
      // Every one waits when the request comes: a queue in order of arrival would answer it last.
      const BURST = 1000;
      let ran = 0;
      const queued = Array.from({ length: BURST }, () => t.db.execute(sql`select 1`).then(() => ran++));
      const response = await request();
      const ranBefore = ran;
      await Promise.all(queued);
      expect(response.status).toBe(200);
      expect(ranBefore).toBeLessThan(BURST);
    },
  );
});

describe.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL sessions', () => {
  it('run without JIT compilation', async () => {
    const database = await openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL });
    try {
      const { rows } = (await database.db.execute(sql`show jit`)) as unknown as { rows: { jit: string }[] };
      expect(rows[0]?.jit).toBe('off');
    } finally {
      await database.close();
    }
  });
});
