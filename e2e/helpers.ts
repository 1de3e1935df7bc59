import { createHash } from 'node:crypto';
import path from 'node:path';
import { type APIRequestContext, type Browser, expect, type Page, request, test } from '@playwright/test';
import { E2E_ADMIN_PASSWORD, E2E_OPERATOR_PASSWORD } from '../playwright.config';

export interface Credentials {
  username: string;
  password: string;
}

export const ADMIN: Credentials = { username: 'admin', password: E2E_ADMIN_PASSWORD };
export const OPERATOR: Credentials = { username: 'operator', password: E2E_OPERATOR_PASSWORD };

const scratch = process.env.E2E_SCRATCH ?? '';
/** Logins stored once by auth.setup.ts. A spec using one must not end it (log out, change the password). */
export const STORED_LOGIN = {
  admin: path.join(scratch, 'auth', 'admin.json'),
  /** An administrator of its own whose stored language is Chinese, for the pages' translation checks. */
  adminZh: path.join(scratch, 'auth', 'admin-zh.json'),
  operator: path.join(scratch, 'auth', 'operator.json'),
} as const;

/** Seeded rows have stable ids: md5 of a key (server db/seeded-ids.ts). */
const stableId = (key: string) => createHash('md5').update(key).digest('hex');
export const resourceId = (uri: string) => stableId(`resource:${uri}`);
export const ADMIN_ROLE_ID = stableId('role:admin');
export const OPERATOR_ROLE_ID = stableId('role:operator');
export const ROOT_ORG_ID = stableId('org:root');
/** A node of the demo grid by its key (server seed/demo-archive.ts: `transformer-8`, `feeder-3`). */
export const demoGridId = (key: string) => stableId(`grid:${key}`);
export const FEEDER_F1_ID = demoGridId('feeder');

/** For the journeys that walk many pages: on a machine whose cores are busy elsewhere they take minutes. */
export const LONG_JOURNEY_MS = 300_000;

/** Short and unique in the run, across workers and retries: names a spec's own data. */
export function uniqueSuffix(): string {
  const info = test.info();
  return `${info.workerIndex}${info.retry}${Date.now().toString(36).slice(-5)}`;
}

const baseURL = () => test.info().project.use.baseURL;

/** Calls an operation and answers its `data`; any refusal fails the test with the server's answer. */
export async function call<T = unknown>(api: APIRequestContext, apiPath: string, body: object = {}): Promise<T> {
  const response = await api.post(`/apis${apiPath}`, { data: body });
  const json = await response.json();
  expect(json, `${apiPath} ${JSON.stringify(body)}`).toMatchObject({ code: 200 });
  return json.data as T;
}

/** A request context with a session of its own (CAPTCHA=off: any characters pass). */
export async function apiSession(user: Credentials): Promise<APIRequestContext> {
  const api = await request.newContext({ baseURL: baseURL() });
  await call(api, '/sysuser/login', { username: user.username, password: user.password, code: 'e2e', codeFill: 'e2e' });
  return api;
}

export async function adminApi(): Promise<APIRequestContext> {
  return request.newContext({ baseURL: baseURL(), storageState: STORED_LOGIN.admin });
}

interface ResourceNode {
  id: string;
  resourceUri: string;
  children: ResourceNode[];
}

/**
 * A role holding each given node with the areas above it, as the role form saves it; with its
 * whole branch (its pages and buttons) unless `branch` is false.
 */
export async function createRole(
  admin: APIRequestContext,
  roleName: string,
  uris: readonly string[],
  { branch = true } = {},
): Promise<string> {
  const tree = await call<ResourceNode[]>(admin, '/sysresource/getsysresourcetree');
  const ids = new Set<string>();
  const walk = (nodes: ResourceNode[], ancestors: string[], inBranch: boolean) => {
    for (const node of nodes) {
      const taken = inBranch || uris.includes(node.resourceUri);
      if (taken) for (const id of [...ancestors, node.id]) ids.add(id);
      walk(node.children, [...ancestors, node.id], taken && branch);
    }
  };
  walk(tree, [], false);
  const { id } = await call<{ id: string }>(admin, '/sysrole/savesysrole', { roleName, resourceIdList: [...ids] });
  return id;
}

/**
 * A user of its own for a spec that changes what a user keeps (language, password, session),
 * with the first-login password change already done.
 */
export async function createUser(admin: APIRequestContext, roleIds: readonly string[]): Promise<Credentials> {
  const username = `e2e.${uniqueSuffix()}`;
  const first = 'First@123';
  const user = { username, password: 'Final@123' };
  await call(admin, '/sysuser/savesysuser', {
    username,
    fullName: `E2E ${username}`,
    orgId: ROOT_ORG_ID,
    roleIdList: roleIds,
    password: first,
  });
  const own = await apiSession({ username, password: first });
  await call(own, '/sysuser/updatepassword', { rawPassword: first, newPassword: user.password });
  await own.dispose();
  return user;
}

/** A page in a browser context of its own, already logged in as the user (through the API). */
export async function pageAs(browser: Browser, user: Credentials): Promise<Page> {
  const api = await apiSession(user);
  const context = await browser.newContext({ storageState: await api.storageState() });
  await api.dispose();
  return context.newPage();
}

/** The server runs with CAPTCHA=off, so any characters pass; they must still be typed. */
export async function logIn(page: Page, user: Credentials): Promise<void> {
  await page.goto('/login');
  await page.getByTestId('login-username').fill(user.username);
  await page.getByTestId('login-password').fill(user.password);
  await expect(page.getByTestId('login-captcha-image')).toBeVisible();
  await page.getByTestId('login-captcha').fill('abcd');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('header-menu')).toBeVisible();
}

/**
 * Opens a page through the horizontal menu: hover its area, click the page. A click that lands while
 * the area's popup is still sliding in can miss the item (seen once in a run: the popup open, the page
 * unchanged), so the hover and click are tried again until the page opens.
 */
export async function openFromMenu(page: Page, areaUri: string, pageUri: string): Promise<void> {
  await expect(async () => {
    await page.getByTestId(`menu-${areaUri}`).hover();
    await page.getByTestId(`menu-${pageUri}`).click({ timeout: 10_000 });
    await expect(page).toHaveURL(new RegExp(`${pageUri}(\\?|$)`), { timeout: 10_000 });
  }).toPass({ timeout: 60_000 });
  // Away from the header, so the area's popup closes instead of covering the page's own controls.
  await page.mouse.move(0, 600);
  await expect(page.locator('.ant-menu-submenu-popup:not(.ant-menu-submenu-hidden)')).toHaveCount(0);
}

/**
 * Without a Chinese font Chromium draws Chinese as narrow boxes (a quarter of their width): a journey that
 * measures a Chinese page's layout would pass or fail on one no user sees (the header menu fitted at 900 px).
 */
export async function expectChineseFont(page: Page): Promise<void> {
  const width = await page.evaluate(() => {
    const context = document.createElement('canvas').getContext('2d');
    if (!context) return 0;
    context.font = '16px sans-serif';
    return context.measureText('档案管理').width;
  });
  expect(width, 'Chinese is drawn without a Chinese font: install fonts-noto-cjk').toBeGreaterThan(4 * 16 * 0.9);
}

/**
 * Waits until the shell shows the page at `pathname`. The address changes first; the router renders the
 * new page in a transition, and until that commits (seconds on a busy machine) the page before stays on
 * screen and takes clicks: a list's Add there opens the wrong form.
 */
export async function expectPage(page: Page, pathname: string): Promise<void> {
  await expect(page).toHaveURL((url) => url.pathname === pathname);
  await expect(page.getByTestId('page-area')).toHaveAttribute('data-path', pathname);
}

/**
 * Opens a page of the app already loaded, as its links do: the router follows the address without
 * loading the app again (a full load of every page costs a journey seconds on a busy machine).
 */
export async function openInApp(page: Page, pagePath: string): Promise<void> {
  await page.evaluate((to) => {
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, pagePath);
  await expect(page).toHaveURL((url) => `${url.pathname}${url.search}` === pagePath);
  await expectPage(page, new URL(pagePath, 'http://host').pathname);
}

export async function logOut(page: Page): Promise<void> {
  await page.getByTestId('user-menu').click();
  await page.getByTestId('menu-logout').click();
  await expect(page).toHaveURL(/\/login$/);
}

/**
 * The demo archive's meters are played by the simulator started with the server (a meter made during
 * the run is not in its fleet): a journey that talks to a device takes one of them.
 */
export async function demoMeter(
  admin: APIRequestContext,
  status: number,
  index = 0,
): Promise<{ id: string; devAddr: string }> {
  const { list } = await call<{ list: { id: string; devAddr: string }[] }>(admin, '/meter/list', {
    status,
    pageSize: index + 1,
    curPage: 1,
  });
  const meter = list[index];
  if (!meter) throw new Error(`no demo meter of status ${status} at ${index}`);
  return meter;
}

/** Until the simulator's devices are on the broker (it starts after the server), a plan is refused as offline. */
export async function untilOnline(admin: APIRequestContext, devAddr: string) {
  await expect
    .poll(
      async () => {
        const response = await admin.post('/apis/plan/createplan', {
          data: {
            planName: 'Real-time Metering Plan',
            pushType: 2,
            pri: 5,
            timeout: 30,
            devs: { itemType: 0, devList: [devAddr] },
            orders: [{ cmd: 'read', params: { obis: ['0-0:1.0.0.255'] } }],
          },
        });
        return (await response.json()).msg;
      },
      { timeout: 90_000, intervals: [2_000] },
    )
    .not.toBe('MThasOffline');
}

/**
 * Confirms the open confirmation (the one saying `title`, when given) with its OK. antd zooms a dialog in,
 * and on a busy machine Playwright may find the button still for two frames while it still moves: the
 * click then lands beside it and the dialog stays open with nothing sent (seen on a campaign's Resume).
 * So the click waits for the zoom to end, and the dialog closing shows the click was taken.
 */
export async function confirmDialog(page: Page, title?: string): Promise<void> {
  const confirmations = page.getByRole('dialog').filter({ has: page.getByTestId('confirm-ok') });
  const dialog = title ? confirmations.filter({ hasText: title }) : confirmations;
  await expect(dialog).toBeVisible();
  await expect(dialog).not.toHaveClass(/\bant-zoom-(appear|enter)/);
  await dialog.getByTestId('confirm-ok').click();
  await expect(dialog).toBeHidden();
}
