import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Who opens a PGlite data directory: named to whoever finds it locked. */
export type DataDirHolder = 'server' | 'admin command' | 'seed command';

/** In DATA_DIR beside `pgdata`, not in it: the database files stay PGlite's alone, and a copy of them carries no lock. */
export const LOCK_FILE = 'pgdata.lock';

/** Another living process has the data directory open; a second writer would corrupt it. */
export class DataDirLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: string,
    readonly pid: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is open in the ${holder} (pid ${pid}): a PGlite data directory is opened by one process at a time`,
    );
    this.name = 'DataDirLocked';
  }
}

/**
 * Lock files this process holds. After a crash and restart (a container) the new process may get the
 * old pid: its own pid in a lock it does not hold is a leftover, not a second opening.
 */
const held = new Set<string>();

/**
 * Takes DATA_DIR's lock for this process, or throws `DataDirLocked` while a living process holds it.
 * A lock whose process is gone (crash, kill -9) is taken over. Answers the function that releases it.
 */
export function lockDataDir(dataDir: string, holder: DataDirHolder): () => void {
  const file = path.join(dataDir, LOCK_FILE);
  // Written aside and linked into place, so nobody ever reads a lock without its pid.
  const draft = `${file}.${process.pid}`;
  writeFileSync(draft, `${process.pid}\n${holder}\n`, { mode: 0o600 });
  try {
    for (;;) {
      try {
        linkSync(draft, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = readOwner(file);
      if (owner && isLiving(owner.pid, file)) throw new DataDirLocked(dataDir, owner.holder, owner.pid);
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(draft, { force: true });
  }
  held.add(file);
  return () => {
    held.delete(file);
    rmSync(file, { force: true });
  };
}

/** null when the file went meanwhile, or holds no pid: a lock is linked into place whole, so that one is damaged. */
function readOwner(file: string): { pid: number; holder: string } | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const [pid, holder] = text.split('\n');
  const n = Number(pid);
  return Number.isSafeInteger(n) && n > 0 ? { pid: n, holder: holder || 'process' } : null;
}

function isLiving(pid: number, file: string): boolean {
  if (pid === process.pid) return held.has(file);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it lives, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
