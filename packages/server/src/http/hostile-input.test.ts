import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_BASE } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_ORG_ID } from '../db/seeded-ids';
import { createTestApp, type TestApp } from '../test/harness';

/** A body of `count` unknown keys, each with a 100-character value. */
const unknownKeys = (count: number) => {
  const value = 'v'.repeat(100);
  const body: Record<string, string> = {};
  for (let i = 0; i < count; i++) body[`key${i}`] = value;
  return JSON.stringify(body);
};

describe('hostile input', () => {
  let t: TestApp;
  let admin: string;
  const webDist = mkdtempSync(path.join(tmpdir(), 'meterdesk-web-'));

  beforeAll(async () => {
    writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><div id="root"></div>');
    t = await createTestApp({ webDist });
    admin = await t.loginAdmin();
  });
  afterAll(async () => {
    await t.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  const post = (url: string, payload: string, cookie?: string) =>
    t.app.http.inject({
      method: 'POST',
      url: API_BASE + url,
      payload,
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    });

  describe('body size', () => {
    it('refuses a 10 MB body to a public route at once, with a small answer, while another request goes on', async () => {
      const big = unknownKeys(100_000);
      expect(big.length).toBeGreaterThan(10_000_000);
      const started = Date.now();
      const [stall, probe] = await Promise.all([post('/sysuser/auth', big), post('/sysuser/auth', '{}', admin)]);
      expect(stall.statusCode).toBe(413);
      expect(stall.json()).toMatchObject({ code: 413, msg: 'bodyTooLarge' });
      expect(stall.body.length).toBeLessThan(200);
      expect(probe.statusCode).toBe(200);
      // Before the limit the same call took seconds; generous for a busy machine.
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('takes only a few KB on every public route', async () => {
      const padded = JSON.stringify({ username: 'admin', password: 'x'.repeat(5000), code: 'x', codeFill: 'x' });
      expect((await post('/sysuser/login', padded)).statusCode).toBe(413);
      expect((await post('/sysuser/getgifcode', unknownKeys(50))).statusCode).toBe(413);
    });

    it('refuses JSON over 1 MB elsewhere, and names at most five unknown keys of a big body', async () => {
      expect((await post('/sysorg/treesysorg', unknownKeys(11_000), admin)).statusCode).toBe(413);

      const many = await post('/sysorg/treesysorg', unknownKeys(9000), admin);
      expect(many.statusCode).toBe(400);
      const body = many.json() as { msg: string; data: { issues: { field: string }[]; omitted: number } };
      expect(body.data.issues).toHaveLength(5);
      expect(body.data.issues[0]).toMatchObject({ field: 'key0', key: 'unknownField' });
      expect(body.data.omitted).toBe(8995);
      expect(body.msg).toContain('8995 more');
      expect(many.body.length).toBeLessThan(1000);
    });

    it('cuts an unknown key to a field-sized name', async () => {
      const res = await post('/sysorg/treesysorg', JSON.stringify({ ['k'.repeat(5000)]: 1 }), admin);
      const { data } = res.json() as { data: { issues: { field: string }[] } };
      expect(data.issues[0]!.field.length).toBeLessThanOrEqual(100);
    });
  });

  describe('control characters and broken paths', () => {
    const login = (over: Record<string, unknown>) => ({
      username: 'admin',
      password: 'whatever',
      code: 'x',
      codeFill: 'x',
      ...over,
    });
    const user = (over: Record<string, unknown>) => ({
      username: 'nasty',
      password: 'Secret1',
      status: 'enabled',
      orgId: ROOT_ORG_ID,
      roleIdList: [],
      groupCodeList: [],
      ...over,
    });
    const cases: { name: string; url: string; body: unknown; session: boolean; field: string }[] = [
      {
        name: 'NUL in an anonymous login',
        url: '/sysuser/login',
        body: login({ username: 'ad\u0000min' }),
        session: false,
        field: 'username',
      },
      {
        name: 'NUL in a password',
        url: '/sysuser/login',
        body: login({ password: '\u0000' }),
        session: false,
        field: 'password',
      },
      {
        name: 'escape in a captcha answer',
        url: '/sysuser/login',
        body: login({ codeFill: 'a\u001bb' }),
        session: false,
        field: 'codeFill',
      },
      { name: 'NUL in a key', url: '/sysuser/getgifcode', body: { 'a\u0000': 1 }, session: false, field: 'a?' },
      {
        name: 'NUL in a user name',
        url: '/sysuser/savesysuser',
        body: user({ fullName: 'x\u0000' }),
        session: true,
        field: 'fullName',
      },
      {
        name: 'NUL in a list item',
        url: '/sysuser/savesysuser',
        body: user({ groupCodeList: ['ok', 'b\u0000'] }),
        session: true,
        field: 'groupCodeList.1',
      },
      {
        name: 'NUL in a nested field',
        url: '/sysorg/checkorgname',
        body: { orgName: { deep: ['\u0000'] } },
        session: true,
        field: 'orgName.deep.0',
      },
      {
        name: 'vertical tab in a search',
        url: '/sysuser/getsysuserlist',
        body: { username: '\u000b' },
        session: true,
        field: 'username',
      },
    ];

    it.each(cases)('$name answers 400 naming the field', async ({ url, body, session, field }) => {
      const res = await t.call(url, body, session ? admin : undefined);
      expect(res.status).toBe(400);
      expect(res.body.data).toMatchObject({ issues: [{ field, key: 'invalidCharacter' }] });
    });

    it('keeps tabs and line breaks, which a text area may hold', async () => {
      const res = await t.call('/sysorg/checkorgname', { orgName: 'line\tone\r\nline two' }, admin);
      expect(res.status).toBe(200);
    });

    it('refuses a body nested deeper than any form', async () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const res = await post('/sysorg/treesysorg', deep, admin);
      expect(res.statusCode).toBe(400);
    });

    it.each([
      '/%25',
      '/%00',
      '/%',
      '/%E0%A4%A',
      '/assets/%00.js',
      '/a%0Ab',
      `${API_BASE}/%00`,
      `${API_BASE}/sysuser/%25`,
      '/..%00/etc/passwd',
    ])('answers %s without a server error', async (url) => {
      for (const method of ['GET', 'POST'] as const) {
        const res = await t.app.http.inject({ method, url, payload: method === 'POST' ? {} : undefined });
        expect(res.statusCode, `${method} ${url}`).toBeLessThan(500);
      }
    });

    it.each([
      ['a segment longer than a file name', `/${'a'.repeat(9000)}`],
      ['a path longer than the system takes', `/${Array(30).fill('b'.repeat(200)).join('/')}`],
      ['a file taken for a folder', '/index.html/x'],
    ])('answers 404 to %s', async (_, url) => {
      const res = await t.app.http.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 404, msg: 'notFound' });
    });
  });
});

describe('public rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ publicRateLimitPerMinute: 3, loginRateLimitPerMinute: 5 });
  });
  afterAll(() => t.close());

  it('limits every public route per address, login by its own limit', async () => {
    for (let i = 0; i < 3; i++) expect((await t.call('/sysuser/getgifcode')).status).toBe(200);
    expect((await t.call('/sysuser/getgifcode')).body).toMatchObject({ code: 429, msg: 'tooManyRequests' });
    for (let i = 0; i < 3; i++) expect((await t.call('/sysuser/auth')).status).toBe(401);
    expect((await t.call('/sysuser/auth')).status).toBe(429);
    const mqtt = await t.app.http.inject({ method: 'GET', url: '/static-config/mqtt.json' });
    expect(mqtt.statusCode).toBe(200);

    const attempt = () =>
      t.call('/sysuser/login', { username: 'ghost', password: 'nope123', code: 'x', codeFill: 'x' });
    for (let i = 0; i < 5; i++) expect((await attempt()).status).toBe(400);
    expect((await attempt()).status).toBe(429);
  });
});
