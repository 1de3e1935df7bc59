/**
 * The real server for a benchmark: `packages/server/src/main.ts` in a child process on the bench's
 * database, logged in as the administrator, with the SQL capture of `capture-sql.mjs` loaded.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { atEnd } from './cleanup.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const ADMIN_PASSWORD = 'Bench-12345';
/** Linux counts process CPU time in ticks of 1/100 s. */
const CLOCK_TICKS = 100;

export async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A keep-alive POST client for one server: each call answers `{status, body, ms}`. */
export function client(port) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let cookie = '';
  const post = (path, body) =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const started = performance.now();
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: `/apis${path}`,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), cookie },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => {
            const ms = performance.now() - started;
            const setCookie = res.headers['set-cookie'];
            if (setCookie) cookie = setCookie.map((c) => c.split(';')[0]).join('; ');
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode, body: text ? JSON.parse(text) : null, ms });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { post, close: () => agent.destroy() };
}

/**
 * Starts the server on `databaseUrl` (migrating it, as a start does), waits until it answers and
 * logs in. `call(path, body)` fails on anything but code 200, `refused(path, body)` on anything but a
 * refusal (4xx); `capture(fn)` answers the statements
 * the server sent while `fn` ran.
 */
export async function startServer(databaseUrl, { logLevel = 'info', execArgv = [] } = {}) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'meterdesk-bench-'));
  const child = fork(join(root, 'packages/server/src/main.ts'), [], {
    cwd: root,
    execArgv: [
      '--import',
      'tsx',
      '--import',
      join(root, 'bench/lib/capture-sql.mjs'),
      ...execArgv,
      // e.g. "--cpu-prof --cpu-prof-dir=DIR": where the server's time goes
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      SECRET_KEY: randomBytes(32).toString('base64'),
      ADMIN_PASSWORD,
      CAPTCHA: 'off',
      DEMO: 'off',
      MQTT_URL: '',
      MQTT_TCP_PORT: 'off',
      LOG_LEVEL: logLevel,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const api = client(port);
  const stop = async () => {
    api.close();
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  atEnd(stop);
  try {
    const deadline = Date.now() + 180_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      const up = await api.post('/sysuser/auth', {}).catch(() => null);
      if (up) break;
      if (Date.now() > deadline) throw new Error('the server did not answer within 3 minutes');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const captcha = await api.post('/sysuser/getgifcode', {});
    const login = await api.post('/sysuser/login', {
      username: 'admin',
      password: ADMIN_PASSWORD,
      code: captcha.body.data.code,
      codeFill: 'bench',
    });
    if (login.body?.code !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  } catch (err) {
    await stop();
    throw err;
  }

  const call = async (path, body) => {
    const answer = await api.post(path, body);
    if (answer.body?.code !== 200) throw new Error(`${path}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    return answer;
  };

  /**
   * A call the server refuses after its access check (a body that fails validation): what a call costs
   * the server before any SQL of its own (HTTP, the session statement, validation, the answer).
   */
  const refused = async (path, body) => {
    const answer = await api.post(path, body);
    if (answer.body?.code === 200 || answer.status >= 500) throw new Error(`${path}: not refused: ${answer.status}`);
    return answer;
  };

  const capture = async (fn) => {
    const released = new Promise((resolve) => child.once('message', (m) => resolve(m.statements)));
    child.send('capture');
    // The word goes over IPC; a round trip makes sure the child heard it before the call.
    await api.post('/sysuser/auth', {});
    await fn();
    child.send('release');
    return released;
  };

  /** CPU milliseconds the server process has used so far (user + system), from /proc. */
  const cpuMs = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  };

  return { call, refused, capture, stop, cpuMs, port };
}
