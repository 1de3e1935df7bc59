import { createHash } from 'node:crypto';
import { expect, type Page, test } from '@playwright/test';
import { ADMIN, logIn, logOut } from './helpers';

test.use({ viewport: { width: 1600, height: 900 } });
test.describe.configure({ mode: 'serial' });

const AUDITOR = { username: 'e2e.auditor', first: 'Audit@123', password: 'Audit@456' } as const;
/** Seeded resources have stable ids: md5 of 'resource:' + uri (server db/seed.ts). */
const resourceId = (uri: string) => createHash('md5').update(`resource:${uri}`).digest('hex');

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

test('an administrator builds an organisation, a group, a limited role and a user who sees only those menus', async ({
  page,
}) => {
  await logIn(page, ADMIN);

  await page.goto('/sysMGT/organizationMGT/add');
  await page.getByTestId('field-orgName').fill('E2E Depot');
  await page.getByTestId('field-orgCode').fill('E2E01');
  await saveAndReturn(page, '/sysMGT/organizationMGT');
  await expect(page.getByRole('cell', { name: 'E2E Depot' })).toBeVisible();

  await page.goto('/sysMGT/userGroupMGT/add');
  await page.getByTestId('field-groupName').fill('E2E Crew');
  await page.getByTestId('field-groupCode').fill('E2ECREW');
  await pickInTree(page, 'gridId', 'Feeder', 'Feeder F1');
  await saveAndReturn(page, '/sysMGT/userGroupMGT');
  await expect(page.getByRole('cell', { name: 'E2E Crew' })).toBeVisible();

  await page.goto('/sysMGT/roleMGT/add');
  await page.getByTestId('field-roleName').fill('E2E Auditor');
  await checkResource(page, '/dashboard');
  await checkResource(page, '/sysMGT/sysJournal');
  await uncheckButton(page, '/sysMGT/sysJournal', '/sysMGT/sysJournal/export');
  await checkResource(page, '/sysMGT/notifyMGT');
  await saveAndReturn(page, '/sysMGT/roleMGT');
  await expect(page.getByRole('cell', { name: 'E2E Auditor' })).toBeVisible();

  await page.goto('/sysMGT/userMGT/add');
  await page.getByTestId('field-username').fill(AUDITOR.username);
  await page.getByTestId('field-password').fill(AUDITOR.first);
  await page.getByTestId('field-fullName').fill('E2E Auditor');
  await pickInTree(page, 'orgId', 'E2E', 'E2E Depot');
  await pickInSelect(page, 'roleIdList', 'E2E Auditor');
  await pickInSelect(page, 'groupCodeList', 'E2E Crew');
  await saveAndReturn(page, '/sysMGT/userMGT');
  await expect(page.getByRole('cell', { name: AUDITOR.username })).toBeVisible();
  await logOut(page);

  // The first login asks for a new password before anything else.
  await page.getByTestId('login-username').fill(AUDITOR.username);
  await page.getByTestId('login-password').fill(AUDITOR.first);
  await page.getByTestId('login-captcha').fill('abcd');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('password-form')).toBeVisible();
  await page.getByTestId('password-raw').fill(AUDITOR.first);
  await page.getByTestId('password-new').fill(AUDITOR.password);
  await page.getByTestId('password-confirm').fill(AUDITOR.password);
  await page.getByTestId('password-submit').click();
  await expect(page).toHaveURL(/\/login$/);

  await logIn(page, { username: AUDITOR.username, password: AUDITOR.password });
  await expect(page.getByTestId('menu-/dashboard')).toBeVisible();
  await expect(page.getByTestId('menu-/archiveSetting')).toHaveCount(0);
  await page.getByTestId('menu-/sysMGT').hover();
  await expect(page.getByTestId('menu-/sysMGT/sysJournal')).toBeVisible();
  await expect(page.getByTestId('menu-/sysMGT/notifyMGT')).toBeVisible();
  await expect(page.getByTestId('menu-/sysMGT/userMGT')).toHaveCount(0);
  await expect(page.getByTestId('notice-badge')).toBeVisible();

  await page.getByTestId('menu-/sysMGT/sysJournal').click();
  await expect(page.getByTestId('syslog-list')).toBeVisible();
  await expect(page.getByTestId('crud-export')).toHaveCount(0);
  await page.goto('/sysMGT/userMGT');
  await expect(page.getByTestId('page-forbidden')).toBeVisible();
});

test("a notice raises the recipient's badge without a reload, and reading it lowers it", async ({ page, browser }) => {
  const auditor = await browser.newPage({ viewport: { width: 1600, height: 900 } });
  await logIn(auditor, { username: AUDITOR.username, password: AUDITOR.password });
  const badge = auditor.getByTestId('notice-badge-count');
  await expect(badge).toHaveAttribute('data-count', '0');

  await logIn(page, ADMIN);
  await page.goto('/sysMGT/notifyMGT');
  await page.getByTestId('notice-send').click();
  await expect(page).toHaveURL(/\/sysMGT\/notifyMGT\/announcement/);
  await page.getByTestId('field-noticeTitle').fill('Feeder F1 maintenance');
  await page.getByTestId('field-noticeContent').fill('Saturday 02:00-04:00');
  await pickInSelect(page, 'recUsernameList', AUDITOR.username);
  await page.getByTestId('notice-send-submit').click();

  await expect(badge).toHaveAttribute('data-count', '1');
  await auditor.getByTestId('notice-badge').click();
  await expect(auditor).toHaveURL(/\/sysMGT\/notifyMGT/);
  const row = auditor.getByRole('row').filter({ hasText: 'Feeder F1 maintenance' });
  await row.getByTestId(/^row-view-/).click();
  await expect(auditor.getByText('Saturday 02:00-04:00')).toBeVisible();
  await expect(badge).toHaveAttribute('data-count', '0');
  await auditor.close();
});

test('every system management page renders in Chinese and English with no untranslated label', async ({ page }) => {
  const pages = [
    '/sysMGT/organizationMGT',
    '/sysMGT/organizationMGT/add',
    '/sysMGT/userMGT',
    '/sysMGT/userMGT/add',
    '/sysMGT/userGroupMGT',
    '/sysMGT/userGroupMGT/add',
    '/sysMGT/roleMGT',
    '/sysMGT/roleMGT/add',
    '/sysMGT/notifyMGT',
    '/sysMGT/notifyMGT/announcement',
    '/sysMGT/systemSettings',
    '/sysMGT/sysJournal',
  ];
  const rawKey =
    /\b(?:common|errors|resource|org|user|group|role|notice|syslog|settings|shell|password)\.[A-Za-z]+(?:\.[A-Za-z0-9]+)*\b/;
  await logIn(page, ADMIN);
  for (const language of ['zh', 'en'] as const) {
    await page.getByTestId('language-switch').click();
    await page.getByTestId(`language-${language}`).click();
    await expect(page.getByTestId('menu-/sysMGT')).toHaveText(language === 'zh' ? '系统管理' : 'System');
    for (const path of pages) {
      await page.goto(path);
      const area = page.getByTestId('page-area');
      await expect(area).toBeVisible();
      await expect(area.locator('.ant-spin-spinning')).toHaveCount(0);
      expect(await area.innerText(), `${language} ${path}`).not.toMatch(rawKey);
    }
  }
});
