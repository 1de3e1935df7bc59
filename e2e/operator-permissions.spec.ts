import { STORED_LOGIN } from './helpers';
import { expect, test } from './journey';

test.use({ storageState: STORED_LOGIN.operator });

test('an operator without a resource does not see its menu and is refused on its direct address', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('menu-/archiveSetting')).toBeVisible();
  await expect(page.getByTestId('menu-/sysMGT')).toHaveCount(0);
  await expect(page.getByTestId('notice-badge')).toHaveCount(0);

  await page.goto('/sysMGT/resourceMGT');
  await expect(page.getByTestId('page-forbidden')).toBeVisible();
  await page.goto('/archiveSetting/meter/add');
  await expect(page.getByTestId('page-forbidden')).toBeVisible();

  // The server refuses too: hiding the menu is not the access control.
  const status = await page.evaluate(async () => {
    const res = await fetch('/apis/sysresource/getsysresourcelist', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    return res.status;
  });
  expect(status).toBe(403);

  await page.goto('/archiveSetting');
  await expect(page).toHaveURL(/\/archiveSetting\/powerGrid$/);
});
