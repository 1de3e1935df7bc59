import { API_BASE } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness';

describe('Origin', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp({ trustProxy: true });
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  const call = (headers: Record<string, string>, cookie = admin) =>
    t.app.http.inject({
      method: 'POST',
      url: `${API_BASE}/sysuser/auth`,
      payload: {},
      headers: { ...headers, cookie },
    });

  it('lets a request without Origin, or from this host, through', async () => {
    expect((await call({})).statusCode).toBe(200);
    expect((await call({ host: 'meters.example:8080', origin: 'http://meters.example:8080' })).statusCode).toBe(200);
    expect((await call({ host: 'Meters.Example', origin: 'https://meters.example' })).statusCode).toBe(200);
  });

  it('refuses another site, a sandboxed page and garbage with 403, logged in or not', async () => {
    for (const origin of ['http://evil.example', 'http://meters.example:9999', 'null', '%%']) {
      const res = await call({ host: 'meters.example:8080', origin });
      expect(res.statusCode, origin).toBe(403);
      expect(res.json(), origin).toMatchObject({ code: 403, msg: 'crossOrigin' });
    }
    const login = await t.app.http.inject({
      method: 'POST',
      url: `${API_BASE}/sysuser/login`,
      payload: { username: 'admin', password: 'x', code: 'x', codeFill: 'x' },
      headers: { origin: 'http://evil.example' },
    });
    expect(login.statusCode).toBe(403);
  });

  it('compares with the forwarded host behind a trusted proxy', async () => {
    const headers = { host: 'internal:8080', 'x-forwarded-host': 'meters.example' };
    expect((await call({ ...headers, origin: 'https://meters.example' })).statusCode).toBe(200);
    expect((await call({ ...headers, origin: 'http://internal:8080' })).statusCode).toBe(403);
  });
});
