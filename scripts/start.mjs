// `npm start`: build the web app when it is missing or older than its sources, then run the
// server (migrations and seed happen at its start-up). Ctrl-C reaches the server, which shuts down cleanly.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { serverArgs } from './server-process.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'packages/web/dist/index.html');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const sources = ['packages/web/src', 'packages/web/index.html', 'packages/contracts/src'].map((p) =>
  path.join(root, p),
);
const sourceTime = Math.max(...sources.map((p) => (statSync(p).isDirectory() ? newestMtime(p) : statSync(p).mtimeMs)));
if (!existsSync(dist) || statSync(dist).mtimeMs < sourceTime) {
  console.log('Building the web app…');
  const build = spawnSync('npm', ['run', 'build', '--workspace', '@meterdesk/web'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const server = spawn(process.execPath, serverArgs(root), {
  cwd: root,
  stdio: 'inherit',
});
// The terminal sends Ctrl-C to the whole process group; the server handles it, we wait for it.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
