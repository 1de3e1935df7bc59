/**
 * What a benchmark leaves behind (its child processes, its databases) is undone when it ends, however
 * it ends: `cleanup()` at its end, or on a failure, SIGINT or SIGTERM before that. Otherwise a failed
 * run leaves servers running and databases filling the disk, and a child outlives its parent.
 */
const undo = [];
let done = null;

/** Registers `fn` to run at the end; the last registered runs first (a server stops before its database goes). */
export function atEnd(fn) {
  undo.push(fn);
}

/** Runs everything registered, once. */
export function cleanup() {
  done ??= (async () => {
    while (undo.length) {
      const fn = undo.pop();
      try {
        await fn();
      } catch (err) {
        console.error('cleanup:', err instanceof Error ? err.message : err);
      }
    }
  })();
  return done;
}

const failed = (err) => {
  console.error(err);
  void cleanup().finally(() => process.exit(1));
};
// A rejected top-level await reaches these too.
process.once('uncaughtException', failed);
process.once('unhandledRejection', failed);
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143)));

/** Kills `child` at the end unless it has exited, and waits for it. */
export function killAtEnd(child) {
  const exited = new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', resolve);
  });
  atEnd(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  return exited;
}
