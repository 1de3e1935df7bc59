import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FRESH_START } from '../test/constants';
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
