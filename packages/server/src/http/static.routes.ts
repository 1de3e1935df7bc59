import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { API_BASE, PUBLIC, RESULT } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors/api-error';
import { ANY_CONTROL } from './body';

/**
 * What the file system answers when the request's path cannot name a file here (a name longer than it
 * takes, a file taken for a folder): no file and no client route either, so 404 rather than the app.
 */
const UNNAMEABLE = new Set(['ENAMETOOLONG', 'ENOTDIR']);

function isFile(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch (err) {
    if (UNNAMEABLE.has((err as NodeJS.ErrnoException).code ?? '')) throw notFound();
    throw err;
  }
}

/**
 * The built SPA: files when they exist, index.html for any other GET so that client routes
 * survive a reload. Hashed assets are cached for a year; index.html never.
 */
export async function registerSpa(app: FastifyInstance, webDist: string): Promise<void> {
  const hasBuild = existsSync(path.join(webDist, 'index.html'));
  if (hasBuild) await app.register(fastifyStatic, { root: webDist, serve: false });

  // Static files are cheap and a page load fetches many of them, so the public rate limit does not apply.
  app.get('/*', { config: { access: PUBLIC, rateLimit: false } }, (req, reply) => {
    // The router has already decoded the path; decoding again breaks on a literal '%'.
    const url = (req.params as { '*': string })['*'] ?? '';
    if (ANY_CONTROL.test(url)) {
      return reply.status(RESULT.badRequest).send({ code: RESULT.badRequest, msg: 'invalidParams', data: null });
    }
    if (`/${url}`.startsWith(`${API_BASE}/`)) {
      return reply.status(RESULT.notFound).send({ code: RESULT.notFound, msg: 'wrongApi', data: null });
    }
    if (!hasBuild) {
      return reply
        .status(503)
        .type('text/plain')
        .send('The web app is not built yet: run `npm run build` (npm start does it for you).');
    }
    const file = path.normalize(url);
    if (url && !file.startsWith('..') && isFile(path.join(webDist, file))) {
      const immutable = file.startsWith('assets/');
      return reply.sendFile(file, { immutable, maxAge: immutable ? '365d' : 0 });
    }
    return reply.header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
  });
}
