import { RESOURCE_TREE } from '@meterdesk/contracts';
import {
  ADMIN_ROLE_ID,
  adminApi,
  createUser,
  expectChineseFont,
  logIn,
  logOut,
  OPERATOR_ROLE_ID,
  openFromMenu,
  STORED_LOGIN,
} from './helpers';
import { expect, test } from './journey';

test('an unknown visitor is sent to the login page, which refuses a wrong password', async ({ page }) => {
  const admin = await adminApi();
  const user = await createUser(admin, [OPERATOR_ROLE_ID]);
  await admin.dispose();

  await page.goto('/sysMGT/resourceMGT');
  await expect(page).toHaveURL(/\/login$/);
  await page.getByTestId('login-username').fill(user.username);
  await page.getByTestId('login-password').fill('not-the-password');
  await page.getByTestId('login-captcha').fill('abcd');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('login-error')).toContainText('Wrong username or password');
});

// The language is stored for the user, so this journey has an administrator of its own.
test('an administrator logs in, sees the dashboard, the menu in Chinese, and the version page', async ({ page }) => {
  const admin = await adminApi();
  const user = await createUser(admin, [ADMIN_ROLE_ID]);
  await admin.dispose();

  await logIn(page, user);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByTestId('tab-/dashboard')).toBeVisible();
  await expect(page.getByTestId('menu-/sysMGT')).toHaveText('System');
  // The header's own line height once pushed the labels below their (then empty) boxes.
  for (const language of ['en', 'zh']) {
    const labelOutside = await page.getByTestId(`language-${language}`).evaluate((button) => {
      const range = document.createRange();
      range.selectNodeContents(button);
      const label = range.getBoundingClientRect();
      const box = button.getBoundingClientRect();
      return label.top < box.top || label.bottom > box.bottom;
    });
    expect(labelOutside, `the ${language} label lies inside its button`).toBe(false);
  }

  await page.getByTestId('language-switch').click();
  await page.getByTestId('language-zh').click();
  await expect(page.getByTestId('menu-/sysMGT')).toHaveText('系统管理');
  await expect(page.getByTestId('menu-/archiveSetting')).toHaveText('档案管理');
  await expect(page.getByTestId('tab-/dashboard')).toHaveText('首页');

  // The language is stored for the user: it comes back at the next login.
  await logOut(page);
  await logIn(page, user);
  await expect(page.getByTestId('menu-/sysMGT')).toHaveText('系统管理');
  await page.getByTestId('language-switch').click();
  await page.getByTestId('language-en').click();
  await expect(page.getByTestId('menu-/sysMGT')).toHaveText('System');

  await page.getByTestId('user-menu').click();
  await page.getByTestId('menu-version').click();
  await expect(page).toHaveURL(/\/version$/);
  await expect(page.getByTestId('app-version')).toHaveText('V2.3.28');
  await expect(page.getByTestId('app-id')).toHaveText('P003');

  await page.goto('/login');
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/no/such/page');
  await expect(page.getByTestId('page-not-found')).toBeVisible();
});

test.describe('with the stored admin login', () => {
  test.use({ storageState: STORED_LOGIN.admin });

  test('pages open in tabs that close, close others, close all, and survive a reload', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/dashboard$/);
    await openFromMenu(page, '/sysMGT', '/sysMGT/resourceMGT');
    await openFromMenu(page, '/paymentMGT', '/paymentMGT/prepaid');
    await expect(page.getByTestId('prepaid-page')).toBeVisible();
    await openFromMenu(page, '/report', '/report/dataCollectionReport');
    for (const key of ['/dashboard', '/sysMGT/resourceMGT', '/paymentMGT/prepaid', '/report/dataCollectionReport']) {
      await expect(page.getByTestId(`tab-${key}`)).toBeVisible();
    }
    await expect(page.getByTestId('tab-close-/dashboard')).toHaveCount(0);

    await page.reload();
    await expect(page.getByTestId('tab-/paymentMGT/prepaid')).toBeVisible();
    await expect(page.getByTestId('tab-/report/dataCollectionReport')).toBeVisible();

    await page.getByTestId('tab-close-/report/dataCollectionReport').click();
    await expect(page.getByTestId('tab-/report/dataCollectionReport')).toHaveCount(0);

    await page.getByTestId('tab-/sysMGT/resourceMGT').click();
    await expect(page).toHaveURL(/\/sysMGT\/resourceMGT/);
    await page.getByTestId('tabs-close-others').click();
    await expect(page.getByTestId('tab-/paymentMGT/prepaid')).toHaveCount(0);
    await expect(page.getByTestId('tab-/sysMGT/resourceMGT')).toBeVisible();
    await expect(page.getByTestId('tab-/dashboard')).toBeVisible();

    await page.getByTestId('tabs-close-all').click();
    await expect(page.getByTestId('tab-/sysMGT/resourceMGT')).toHaveCount(0);
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});

/** The header menu's items: the dashboard and the areas, as the resource tree seeds them. */
const MENU_URIS = RESOURCE_TREE.map((node) => node.uri);

// The header menu folds what does not fit into "More" instead of wrapping onto a second row. antd keeps
// a folded item, and "More" while nothing is folded, in the bar marked aria-hidden.
for (const [language, login] of [
  ['en', STORED_LOGIN.admin],
  ['zh', STORED_LOGIN.adminZh],
] as const) {
  test(`the header menu fits one row at 1280 px and folds into More below (${language})`, async ({ browser }) => {
    const context = await browser.newContext({ storageState: login, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto('/dashboard');
    if (language === 'zh') await expectChineseFont(page);
    const menu = page.getByTestId('header-menu');
    const shown = menu.locator('li:not([aria-hidden="true"])');
    const more = menu.locator('li', { has: page.getByTestId('menu-more') });
    const tops = await Promise.all(
      MENU_URIS.map(async (uri) => {
        const item = shown.getByTestId(`menu-${uri}`);
        await expect(item).toBeVisible();
        return (await item.boundingBox())?.y;
      }),
    );
    expect(new Set(tops).size, `${language}: the areas' tops ${tops.join(', ')}`).toBe(1);
    await expect(more).toHaveAttribute('aria-hidden', 'true');

    await page.setViewportSize({ width: 900, height: 800 });
    await expect(more).not.toHaveAttribute('aria-hidden', 'true');
    await expect(shown.getByTestId('menu-/sysMGT')).toHaveCount(0);
    await context.close();
  });
}
