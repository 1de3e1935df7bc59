import { expect, type Page } from '@playwright/test';

export const ADMIN = { username: 'admin', password: 'Admin@123' } as const;
export const OPERATOR = { username: 'operator', password: 'Oper@123' } as const;

/** The server runs with CAPTCHA=off, so any characters pass; they must still be typed. */
export async function logIn(page: Page, user: { username: string; password: string }): Promise<void> {
  await page.goto('/login');
  await page.getByTestId('login-username').fill(user.username);
  await page.getByTestId('login-password').fill(user.password);
  await expect(page.getByTestId('login-captcha-image')).toBeVisible();
  await page.getByTestId('login-captcha').fill('abcd');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('header-menu')).toBeVisible();
}

/** Opens a page through the horizontal menu: hover its area, click the page. */
export async function openFromMenu(page: Page, areaUri: string, pageUri: string): Promise<void> {
  await page.getByTestId(`menu-${areaUri}`).hover();
  await page.getByTestId(`menu-${pageUri}`).click();
  await expect(page).toHaveURL(new RegExp(`${pageUri}(\\?|$)`));
}

export async function logOut(page: Page): Promise<void> {
  await page.getByTestId('user-menu').click();
  await page.getByTestId('menu-logout').click();
  await expect(page).toHaveURL(/\/login$/);
}
