import type { Page } from '@playwright/test';
import { adminApi, createUser, logIn, OPERATOR_ROLE_ID } from './helpers';
import { expect, test } from './journey';

async function openDialog(page: Page) {
  await page.getByTestId('user-menu').click();
  await page.getByTestId('menu-change-password').click();
  await expect(page.getByTestId('password-form')).toBeVisible();
}

async function submit(page: Page, values: { raw: string; next: string; confirm: string }) {
  await page.getByTestId('password-raw').fill(values.raw);
  await page.getByTestId('password-new').fill(values.next);
  await page.getByTestId('password-confirm').fill(values.confirm);
  await page.getByTestId('password-submit').click();
}

async function changePassword(page: Page, from: string, to: string) {
  await openDialog(page);
  await submit(page, { raw: from, next: to, confirm: to });
  await expect(page).toHaveURL(/\/login$/);
}

// Changing a password ends all of the user's sessions, so the journey has a user of its own.
test('change password shows each validation error, then logs out on success', async ({ page }) => {
  const admin = await adminApi();
  const user = await createUser(admin, [OPERATOR_ROLE_ID]);
  await admin.dispose();

  await logIn(page, user);
  await openDialog(page);
  const form = page.getByTestId('password-form');

  await page.getByTestId('password-submit').click();
  await expect(form.getByText('This part is mandatory').first()).toBeVisible();

  await submit(page, { raw: user.password, next: '12345', confirm: '12345' });
  await expect(form.getByText('The password must be 6-18 characters')).toBeVisible();

  await submit(page, { raw: user.password, next: 'x'.repeat(19), confirm: 'x'.repeat(19) });
  await expect(form.getByText('The password must be 6-18 characters')).toBeVisible();

  await submit(page, { raw: user.password, next: 'Better@123', confirm: 'Better@124' });
  await expect(form.getByText('Inconsistent new password')).toBeVisible();

  await submit(page, { raw: 'not-my-password', next: 'Better@123', confirm: 'Better@123' });
  await expect(page.getByText('The old password is wrong')).toBeVisible();
  await expect(page).not.toHaveURL(/\/login$/);

  await submit(page, { raw: user.password, next: 'Better@123', confirm: 'Better@123' });
  await expect(page).toHaveURL(/\/login$/);

  // The old password no longer opens a session; the new one does. Then put the old one back.
  await page.getByTestId('login-username').fill(user.username);
  await page.getByTestId('login-password').fill(user.password);
  await page.getByTestId('login-captcha').fill('abcd');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('login-error')).toContainText('Wrong username or password');
  await logIn(page, { username: user.username, password: 'Better@123' });
  await changePassword(page, 'Better@123', user.password);
});
