import type { Page } from '@playwright/test';
import {
  adminApi,
  call,
  createRole,
  createUser,
  FEEDER_F1_ID,
  LONG_JOURNEY_MS,
  logIn,
  openInApp,
  pageAs,
  ROOT_ORG_ID,
  resourceId,
  STORED_LOGIN,
  uniqueSuffix,
} from './helpers';
import { expect, test } from './journey';

test.use({ storageState: STORED_LOGIN.admin });

async function pickInTree(page: Page, field: string, search: string, title: string) {
  await page.getByTestId(`field-${field}`).click();
  await page.keyboard.type(search);
  await page.locator('.ant-select-tree-title', { hasText: new RegExp(`^${title}$`) }).click();
}

async function pickInSelect(page: Page, field: string, option: string) {
  await page.getByTestId(`field-${field}`).click();
  await page.keyboard.type(option);
  await page.locator('.ant-select-item-option', { hasText: option }).first().click();
  await page.keyboard.press('Escape');
}

const treeNode = (page: Page, uri: string) =>
  page.locator('.ant-tree-treenode', { has: page.getByTestId(`tree-node-${resourceId(uri)}`) });

/** Checking a node takes its whole branch (its pages and buttons). */
async function checkResource(page: Page, uri: string) {
  await treeNode(page, uri).locator('.ant-tree-checkbox').click();
  await expect(treeNode(page, uri).locator('.ant-tree-checkbox')).toHaveClass(/ant-tree-checkbox-checked/);
}

async function uncheckButton(page: Page, parentUri: string, uri: string) {
  await treeNode(page, parentUri).locator('.ant-tree-switcher').click();
  await treeNode(page, uri).locator('.ant-tree-checkbox').click();
  await expect(treeNode(page, uri).locator('.ant-tree-checkbox')).not.toHaveClass(/ant-tree-checkbox-checked/);
}

async function saveAndReturn(page: Page, listPath: string) {
  await page.getByTestId('crud-save').click();
  await expect(page).toHaveURL(new RegExp(`${listPath}(\\?|$)`));
}

test('an administrator adds an organisation and a group through their forms', async ({ page }) => {
  const suffix = uniqueSuffix();
  const depot = `E2E Depot ${suffix}`;
  const crew = `E2E Crew ${suffix}`;

  await page.goto('/sysMGT/organizationMGT/add');
  await page.getByTestId('field-orgName').fill(depot);
  await page.getByTestId('field-orgCode').fill(`E2E${suffix}`);
  await saveAndReturn(page, '/sysMGT/organizationMGT');
  await expect(page.getByRole('cell', { name: depot })).toBeVisible();

  await openInApp(page, '/sysMGT/userGroupMGT/add');
  await page.getByTestId('field-groupName').fill(crew);
  await page.getByTestId('field-groupCode').fill(`CREW${suffix}`);
  await pickInTree(page, 'gridId', 'Feeder', 'Feeder F1');
  await saveAndReturn(page, '/sysMGT/userGroupMGT');
  await expect(page.getByRole('cell', { name: crew })).toBeVisible();
});

test('an administrator builds a limited role and a user who sees only those menus', async ({ page, browser }) => {
  test.setTimeout(LONG_JOURNEY_MS);
  const suffix = uniqueSuffix();
  const depot = `E2E Depot ${suffix}`;
  const crew = `E2E Crew ${suffix}`;
  const roleName = `E2E Auditor ${suffix}`;
  const auditor = { username: `e2e.auditor.${suffix}`, first: 'Audit@123', password: 'Audit@456' };
  const admin = await adminApi();
  await call(admin, '/sysorg/savesysorg', { orgName: depot, orgCode: `E2E${suffix}`, pid: ROOT_ORG_ID });
  await call(admin, '/sysgroup/savesysgroup', { groupName: crew, groupCode: `CREW${suffix}`, gridId: FEEDER_F1_ID });
  await admin.dispose();

  await page.goto('/sysMGT/roleMGT/add');
  await page.getByTestId('field-roleName').fill(roleName);
  await checkResource(page, '/dashboard');
  await checkResource(page, '/sysMGT/sysJournal');
  await uncheckButton(page, '/sysMGT/sysJournal', '/sysMGT/sysJournal/export');
  await checkResource(page, '/sysMGT/notifyMGT');
  await saveAndReturn(page, '/sysMGT/roleMGT');
  await expect(page.getByRole('cell', { name: roleName })).toBeVisible();

  await openInApp(page, '/sysMGT/userMGT/add');
  await page.getByTestId('field-username').fill(auditor.username);
  await page.getByTestId('field-password').fill(auditor.first);
  await page.getByTestId('field-fullName').fill(roleName);
  await pickInTree(page, 'orgId', depot, depot);
  await pickInSelect(page, 'roleIdList', roleName);
  await pickInSelect(page, 'groupCodeList', crew);
  await saveAndReturn(page, '/sysMGT/userMGT');
  await expect(page.getByRole('cell', { name: auditor.username })).toBeVisible();

  // The first login asks for a new password before anything else. In a browser of its own:
  // logging out here would end the stored admin session the other specs share.
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const own = await context.newPage();
  await own.goto('/login');
  await own.getByTestId('login-username').fill(auditor.username);
  await own.getByTestId('login-password').fill(auditor.first);
  await own.getByTestId('login-captcha').fill('abcd');
  await own.getByTestId('login-submit').click();
  await expect(own.getByTestId('password-form')).toBeVisible();
  await own.getByTestId('password-raw').fill(auditor.first);
  await own.getByTestId('password-new').fill(auditor.password);
  await own.getByTestId('password-confirm').fill(auditor.password);
  await own.getByTestId('password-submit').click();
  await expect(own).toHaveURL(/\/login$/);

  await logIn(own, { username: auditor.username, password: auditor.password });
  await expect(own.getByTestId('menu-/dashboard')).toBeVisible();
  await expect(own.getByTestId('menu-/archiveSetting')).toHaveCount(0);
  await own.getByTestId('menu-/sysMGT').hover();
  await expect(own.getByTestId('menu-/sysMGT/sysJournal')).toBeVisible();
  await expect(own.getByTestId('menu-/sysMGT/notifyMGT')).toBeVisible();
  await expect(own.getByTestId('menu-/sysMGT/userMGT')).toHaveCount(0);
  await expect(own.getByTestId('notice-badge')).toBeVisible();

  await own.getByTestId('menu-/sysMGT/sysJournal').click();
  await expect(own.getByTestId('syslog-list')).toBeVisible();
  await expect(own.getByTestId('crud-export')).toHaveCount(0);
  await own.goto('/sysMGT/userMGT');
  await expect(own.getByTestId('page-forbidden')).toBeVisible();
  await context.close();
});

test("a notice raises the recipient's badge without a reload, and reading it lowers it", async ({ page, browser }) => {
  const admin = await adminApi();
  const role = await createRole(admin, `E2E Reader ${uniqueSuffix()}`, ['/dashboard', '/sysMGT/notifyMGT']);
  const recipient = await createUser(admin, [role]);
  await admin.dispose();
  const title = `Feeder F1 maintenance ${uniqueSuffix()}`;

  const auditor = await pageAs(browser, recipient);
  await auditor.goto('/');
  const badge = auditor.getByTestId('notice-badge-count');
  await expect(badge).toHaveAttribute('data-count', '0');

  await page.goto('/sysMGT/notifyMGT');
  await page.getByTestId('notice-send').click();
  await expect(page).toHaveURL(/\/sysMGT\/notifyMGT\/announcement/);
  await page.getByTestId('field-noticeTitle').fill(title);
  await page.getByTestId('field-noticeContent').fill('Saturday 02:00-04:00');
  await pickInSelect(page, 'recUsernameList', recipient.username);
  await page.getByTestId('notice-send-submit').click();

  await expect(badge).toHaveAttribute('data-count', '1');
  await auditor.getByTestId('notice-badge').click();
  await expect(auditor).toHaveURL(/\/sysMGT\/notifyMGT/);
  const row = auditor.getByRole('row').filter({ hasText: title });
  await row.getByTestId(/^row-view-/).click();
  await expect(auditor.getByText('Saturday 02:00-04:00')).toBeVisible();
  await expect(badge).toHaveAttribute('data-count', '0');
  await auditor.context().close();
});

/** Each list with the page it opens, one journey each a language. */
const SYSTEM_PAGES = [
  ['/sysMGT/organizationMGT', '/sysMGT/organizationMGT/add'],
  ['/sysMGT/userMGT', '/sysMGT/userMGT/add'],
  ['/sysMGT/userGroupMGT', '/sysMGT/userGroupMGT/add'],
  ['/sysMGT/roleMGT', '/sysMGT/roleMGT/add'],
  ['/sysMGT/notifyMGT', '/sysMGT/notifyMGT/announcement'],
  ['/sysMGT/systemSettings', '/sysMGT/sysJournal'],
] as const;
const RAW_KEY =
  /\b(?:common|errors|resource|org|user|group|role|notice|syslog|settings|shell|password)\.[A-Za-z]+(?:\.[A-Za-z0-9]+)*\b/;

for (const [language, login, systemTitle] of [
  ['zh', STORED_LOGIN.adminZh, '系统管理'],
  ['en', STORED_LOGIN.admin, 'System'],
] as const) {
  test.describe(`system management pages (${language})`, () => {
    test.use({ storageState: login });
    for (const [first, second] of SYSTEM_PAGES) {
      test(`${first} and ${second} render in ${language === 'zh' ? 'Chinese' : 'English'} with no untranslated label`, async ({
        page,
      }) => {
        const area = page.getByTestId('page-area');
        await page.goto(first);
        for (const path of [first, second]) {
          if (path === second) await openInApp(page, path);
          await expect(page.getByTestId('menu-/sysMGT')).toHaveText(systemTitle);
          await expect(area).toBeVisible();
          await expect(area.locator('.ant-spin-spinning')).toHaveCount(0);
          expect(await area.innerText(), `${language} ${path}`).not.toMatch(RAW_KEY);
        }
      });
    }
  });
}
