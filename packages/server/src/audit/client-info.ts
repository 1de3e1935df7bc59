import type { FastifyRequest } from 'fastify';
import { UAParser } from 'ua-parser-js';

export interface ClientInfo {
  ip: string;
  ua: string;
  os: string;
  browser: string;
}

const join = (name?: string, version?: string) => [name, version].filter(Boolean).join(' ').slice(0, 64);

export function clientInfo(req: FastifyRequest): ClientInfo {
  const ua = String(req.headers['user-agent'] ?? '').slice(0, 500);
  const parsed = UAParser(ua);
  return {
    ip: req.ip,
    ua,
    os: join(parsed.os.name, parsed.os.version),
    browser: join(parsed.browser.name, parsed.browser.version),
  };
}
