import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { clientInfo } from './client-info';

const from = (ua?: string) =>
  clientInfo({ ip: '192.0.2.1', headers: ua === undefined ? {} : { 'user-agent': ua } } as FastifyRequest);

describe('clientInfo', () => {
  it('names the operating system and the browser with their versions', () => {
    expect(
      from('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'),
    ).toEqual({
      ip: '192.0.2.1',
      ua: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      os: 'Linux',
      browser: 'Chrome 120.0.0.0',
    });
    expect(from('Mozilla/5.0 (Windows NT 6.1; Win64; x64; rv:115.0) Gecko/20100101 Firefox/115.0')).toMatchObject({
      os: 'Windows 7',
      browser: 'Firefox 115.0',
    });
    expect(
      from(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
      ),
    ).toMatchObject({ os: 'macOS 10.15.7', browser: 'Safari 17.1' });
  });

  it('leaves both empty for a client without a user agent or an unknown one', () => {
    expect(from()).toEqual({ ip: '192.0.2.1', ua: '', os: '', browser: '' });
    expect(from('curl/8.5.0')).toMatchObject({ os: '', browser: '' });
  });

  it('keeps at most 500 characters of the user agent', () => {
    expect(from(`Mozilla/5.0 ${'x'.repeat(1000)}`).ua).toHaveLength(500);
  });
});
