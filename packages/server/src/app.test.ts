import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_BASE } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './test/harness';

describe('http surface', () => {
  let t: TestApp;
  const webDist = mkdtempSync(path.join(tmpdir(), 'meterdesk-web-'));

  beforeAll(async () => {
    writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><div id="root"></div>');
    mkdirSync(path.join(webDist, 'assets'));
    writeFileSync(path.join(webDist, 'assets', 'app-1234.js'), 'console.log(1)');
    t = await createTestApp({ webDist });
  });
  afterAll(async () => {
    await t.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  it('describes every API route in the OpenAPI document', async () => {
    const res = await t.app.http.inject({ method: 'GET', url: `${API_BASE}/openapi.json` });
    const doc = res.json() as { paths: Record<string, { post?: { requestBody?: unknown } }> };
    const apiRoutes = t.app.routes.filter((r) => r.method === 'POST' && r.url.startsWith(API_BASE));
    expect(apiRoutes.length).toBeGreaterThan(10);
    for (const route of apiRoutes) expect(doc.paths[route.url]?.post, route.url).toBeDefined();
    expect(doc.paths['/apis/sysresource/savesysresource']?.post?.requestBody).toBeDefined();
  });

  it('serves the SPA: files with long caching, any other page as index.html', async () => {
    const asset = await t.app.http.inject({ method: 'GET', url: '/assets/app-1234.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    const page = await t.app.http.inject({ method: 'GET', url: '/sysMGT/resourceMGT/edit?id=1' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="root"');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    const traversal = await t.app.http.inject({ method: 'GET', url: '/..%2F..%2Fetc%2Fpasswd' });
    expect(traversal.body).not.toContain('root:');
  });

  it('sends Strict-Transport-Security only behind HTTPS (SECURE_COOKIES=on), never over plain HTTP', async () => {
    const plain = await t.app.http.inject({ method: 'GET', url: '/' });
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    const https = await createTestApp({ webDist, secureCookies: true });
    try {
      const page = await https.app.http.inject({ method: 'GET', url: '/' });
      expect(page.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
    } finally {
      await https.close();
    }
  });

  it('reads an empty body as {} and refuses a body that is not JSON', async () => {
    const empty = await t.app.http.inject({
      method: 'POST',
      url: `${API_BASE}/sysuser/getgifcode`,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(200);
    const broken = await t.app.http.inject({
      method: 'POST',
      url: `${API_BASE}/sysuser/getgifcode`,
      headers: { 'content-type': 'application/json' },
      payload: '{nope',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ code: 400 });
  });
});
