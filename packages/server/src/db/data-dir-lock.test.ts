import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { otherProcesses } from '../test/processes';
import { DataDirLocked, LOCK_FILE, lockDataDir } from './data-dir-lock';

describe('DATA_DIR lock', () => {
  const pids = otherProcesses();
  let dataDir: string;
  let file: string;
  const leave = (pid: number, holder: string) => writeFileSync(file, `${pid}\n${holder}\n`);

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'meterdesk-lock-'));
    file = path.join(dataDir, LOCK_FILE);
    return () => rmSync(dataDir, { recursive: true, force: true });
  });

  it('names this process while held and goes at release', () => {
    const release = lockDataDir(dataDir, 'server');
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid}\nserver\n`);
    expect(() => lockDataDir(dataDir, 'admin command')).toThrow(DataDirLocked);
    release();
    expect(existsSync(file)).toBe(false);
  });

  it('refuses while a living process holds it, and says which', () => {
    leave(pids.living(), 'server');
    let refusal: unknown;
    try {
      lockDataDir(dataDir, 'admin command');
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(DataDirLocked);
    expect(refusal).toMatchObject({ dataDir, holder: 'server', pid: pids.living() });
    expect(readFileSync(file, 'utf8')).toBe(`${pids.living()}\nserver\n`);
  });

  it('takes over a lock whose process has gone', () => {
    leave(pids.gone, 'server');
    const release = lockDataDir(dataDir, 'admin command');
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid}\nadmin command\n`);
    release();
  });

  it('takes over its own pid left by an earlier life (a restarted container reuses pids)', () => {
    leave(process.pid, 'server');
    const release = lockDataDir(dataDir, 'server');
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid}\nserver\n`);
    release();
  });

  it('takes over a damaged lock', () => {
    writeFileSync(file, '');
    lockDataDir(dataDir, 'server')();
    expect(existsSync(file)).toBe(false);
  });
});
