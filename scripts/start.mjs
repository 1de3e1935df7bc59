// `npm start`: build the web app and the server when missing or older than their sources, then run the
// compiled server (migrations and seed happen at its start-up). Ctrl-C reaches the server, which shuts down cleanly.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { buildServerIfStale, isStale } from './build-server.mjs';
import { serverArgs } from './server-process.mjs';

const root = path.resolve(import.meta.dirname, '..');

if (
  isStale(
    root,
    ['packages/web/dist/index.html'],
    ['packages/web/src', 'packages/web/index.html', 'packages/contracts/src'],
  )
) {
  console.log('Building the web app…');
  const build = spawnSync('npm', ['run', 'build', '--workspace', '@meterdesk/web'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await buildServerIfStale(root);

const server = spawn(process.execPath, serverArgs(root), {
  cwd: root,
  stdio: 'inherit',
});
// The terminal sends Ctrl-C to the whole process group; the server handles it, we wait for it.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
