import { parse } from 'bowser';
import type { FastifyRequest } from 'fastify';

export interface ClientInfo {
  ip: string;
  ua: string;
  os: string;
  browser: string;
}

const join = (name?: string, version?: string) => [name, version].filter(Boolean).join(' ').slice(0, 64);

export function clientInfo(req: FastifyRequest): ClientInfo {
  const ua = String(req.headers['user-agent'] ?? '').slice(0, 500);
  // bowser refuses an empty user agent; a client that sends none has neither column.
  const { os, browser } = ua ? parse(ua) : { os: {}, browser: {} };
  return {
    ip: req.ip,
    ua,
    // Windows gives its NT version (`NT 10.0`); the release a reader knows (`10`) is its version name.
    os: join(os.name, os.name === 'Windows' ? os.versionName : os.version),
    browser: join(browser.name, browser.version),
  };
}
