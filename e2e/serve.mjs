// The server the journeys run against, on a data directory of its own that goes when the server
// stops: Playwright ends the web server with SIGTERM (gracefulShutdown in playwright.config.ts),
// and only this wrapper outlives the server to remove what it wrote, the stored logins included.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const scratch = process.env.E2E_SCRATCH;
if (!scratch) throw new Error('E2E_SCRATCH is not set: start the journeys with `npx playwright test`');
const dataDir = path.join(scratch, 'data');
rmSync(scratch, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });

const server = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
  stdio: 'inherit',
  env: { ...process.env, DATA_DIR: dataDir },
});
// Playwright signals the whole process group; the server stops on its own signal, this one only waits.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => {
  rmSync(scratch, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
