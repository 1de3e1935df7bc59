/**
 * The floor under any API on this machine: a fastify server (the server's own version) in a child
 * process that answers every POST with a fixed body and does nothing else: no session, no
 * validation, no query. What a bench's clients get from it is HTTP's own cost, which an API pays on
 * the same cores as the database it calls.
 */
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { client } from './server.mjs';

const self = fileURLToPath(import.meta.url);

if (process.argv[2] === 'serve') {
  const require = createRequire(new URL('../../packages/server/package.json', import.meta.url));
  const Fastify = require('fastify');
  let body = process.argv[3] ?? '{}';
  // A bench of many calls gives each its body in turn (`answer`), answered once it is in place.
  process.on('message', (next) => {
    body = next;
    process.send?.('answering');
  });
  const app = Fastify();
  app.post('/apis/*', async (_req, reply) => reply.type('application/json').send(body));
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send?.(app.server.address().port);
}

/**
 * Starts the floor server answering `body` (text); `call()` posts to it like the API client does, and
 * `answer(body)` changes what it answers from then on.
 */
export async function startHttpFloor(body) {
  const child = fork(self, ['serve', body], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the floor server exited (${code})`)));
  });
  const api = client(port);
  return {
    call: (path, payload) => api.post(path, payload),
    answer: (next) =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send(next);
      }),
    stop: async () => {
      api.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
