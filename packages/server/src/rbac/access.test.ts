import { API_BASE, PUBLIC, RES, SESSION } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness';

/** The only routes anyone may call; each has a reason. */
const PUBLIC_ROUTES = new Set([
  'POST /apis/sysuser/login', // how a session begins
  'POST /apis/sysuser/getgifcode', // the captcha the login needs
  'POST /apis/sysuser/auth', // answers 401 itself: how the web learns it is logged out
  'GET /apis/openapi.json', // the API description
  'GET /static-config/mqtt.json', // broker address for the browser (spec §7)
  'GET /*', // the SPA's files
]);

describe('route permission sweep', () => {
  let t: TestApp;
  let noResourceCookie: string;

  beforeAll(async () => {
    t = await createTestApp();
    const role = await t.createRole('dashboard-viewer', [RES.dashboard]);
    await t.createUser({ username: 'viewer', password: 'Secret1', roleIds: [role] });
    noResourceCookie = await t.login('viewer', 'Secret1');
  });
  afterAll(() => t.close());

  // Fastify adds a HEAD twin to every GET route, sharing its config and hooks.
  const routes = () => t.app.routes.filter((r) => r.method !== 'HEAD');

  it('registers the routes of the foundation', () => {
    const urls = routes().map((r) => `${r.method} ${r.url}`);
    expect(urls).toEqual(
      expect.arrayContaining(['POST /apis/sysuser/login', 'POST /apis/sysresource/getsysresourcelist']),
    );
    expect(urls.length).toBeGreaterThan(15);
  });

  it('every route declares its access, and only the named ones are public', () => {
    const undeclared = routes().filter((r) => r.access === undefined);
    expect(undeclared.map((r) => `${r.method} ${r.url}`)).toEqual([]);
    const publicOnes = routes()
      .filter((r) => r.access === PUBLIC)
      .map((r) => `${r.method} ${r.url}`);
    for (const route of publicOnes) expect(PUBLIC_ROUTES, route).toContain(route);
  });

  it('answers 401 without a session on every guarded route', async () => {
    const guarded = routes().filter((r) => r.access !== PUBLIC);
    expect(guarded.length).toBeGreaterThan(8);
    for (const route of guarded) {
      const res = await t.app.http.inject({
        method: route.method as 'POST',
        url: route.url,
        payload: route.method === 'GET' ? undefined : {},
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(401);
      if (route.url.startsWith(API_BASE)) expect(res.json().code).toBe(401);
    }
  });

  it('answers 403 on every resource-guarded route to a user lacking the resource', async () => {
    const guarded = routes().filter((r) => r.access !== PUBLIC && r.access !== SESSION);
    expect(guarded.length).toBeGreaterThan(5);
    for (const route of guarded) {
      const res = await t.app.http.inject({
        method: route.method as 'POST',
        url: route.url,
        payload: {},
        headers: { cookie: noResourceCookie },
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(res.json()).toMatchObject({ code: 403, msg: 'forbidden' });
    }
  });

  it('lets the same user through once a role grants the resource, on the next request', async () => {
    const denied = await t.call('/sysresource/getsysresourcelist', {}, noResourceCookie);
    expect(denied.status).toBe(403);
    const role = await t.createRole('resource-reader', [RES.resourceMGT]);
    const { sysUserRole, sysUser } = await import('../db/schema');
    const { eq } = await import('drizzle-orm');
    const [viewer] = await t.db.select().from(sysUser).where(eq(sysUser.username, 'viewer'));
    await t.db.insert(sysUserRole).values({ userId: viewer!.id, roleId: role });
    const allowed = await t.call('/sysresource/getsysresourcelist', {}, noResourceCookie);
    expect(allowed.status).toBe(200);
  });

  it('answers 404 wrongApi for an unknown API path', async () => {
    const res = await t.call('/nothing/here');
    expect(res.status).toBe(404);
    expect(res.body.msg).toBe('wrongApi');
  });
});
