import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';

/** For a describe block: a process that lives until its tests end, and the pid of one that has gone. */
export function otherProcesses(): { living: () => number; gone: number } {
  let living: ChildProcess;
  const gone = spawnSync(process.execPath, ['-e', '']).pid;
  beforeAll(() => {
    living = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
  });
  afterAll(() => {
    living.kill();
  });
  return { living: () => living.pid!, gone };
}
