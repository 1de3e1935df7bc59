import { adminApi, createRole, createUser, openFromMenu, pageAs, STORED_LOGIN, uniqueSuffix } from './helpers';
import { expect, test } from './journey';

test.use({ storageState: STORED_LOGIN.admin });

test('the admin filters, adds and edits a resource through the generic list and form', async ({ page }) => {
  const suffix = uniqueSuffix();
  const nameEn = `Export resources ${suffix}`;
  const uri = `/sysMGT/resourceMGT/export${suffix}`;
  await page.goto('/');
  await openFromMenu(page, '/sysMGT', '/sysMGT/resourceMGT');
  const list = page.getByTestId('resource-list');
  await expect(list.getByRole('row')).not.toHaveCount(1);

  await page.getByTestId('field-resourceNameEn').fill('Power Grid');
  await page.getByTestId('crud-search').click();
  await expect(list.getByRole('cell', { name: '/archiveSetting/powerGrid', exact: true })).toBeVisible();
  await expect(list.getByRole('cell', { name: '/sysMGT/resourceMGT', exact: true })).toHaveCount(0);
  await page.getByTestId('crud-reset').click();

  await page.getByTestId('crud-add').click();
  await expect(page).toHaveURL(/\/sysMGT\/resourceMGT\/add$/);
  await expect(page.getByTestId('tab-/sysMGT/resourceMGT/add')).toBeVisible();
  const form = page.getByTestId('resource-form');
  await page.getByTestId('crud-save').click();
  await expect(form.getByText('This part is mandatory').first()).toBeVisible();

  await page.getByTestId('field-parentId').click();
  await page.keyboard.type('Resource');
  await page.locator('.ant-select-tree-title', { hasText: /^Resource$/ }).click();
  await page.getByTestId('field-resourceType').click();
  await page.locator('.ant-select-item-option[title="Button"]').click();
  await page.getByTestId('field-resourceName').fill(`导出资源${suffix}`);
  await page.getByTestId('field-resourceNameEn').fill('Add');
  await page.getByTestId('field-resourceUri').click();
  await expect(form.getByText('existed')).toBeVisible();
  await page.getByTestId('field-resourceNameEn').fill(nameEn);
  await page.getByTestId('field-resourceUri').fill(uri);
  await page.getByTestId('crud-save').click();
  await expect(page).toHaveURL(/\/sysMGT\/resourceMGT(\?|$)/);
  // Typed at once after the save: the list must keep what is typed while its rows arrive.
  await page.getByTestId('field-resourceNameEn').fill(nameEn);
  await page.getByTestId('crud-search').click();
  const row = list.getByRole('row').filter({ hasText: uri });
  await expect(row).toHaveCount(1);
  // The search ran with what was typed: nothing else is listed and the input still holds it.
  await expect(list.getByRole('cell', { name: '/archiveSetting', exact: true })).toHaveCount(0);
  await expect(page.getByTestId('field-resourceNameEn')).toHaveValue(nameEn);
  await expect(row).toContainText('Button');
  await row.getByTestId(/^row-edit-/).click();
  await expect(page).toHaveURL(/\/sysMGT\/resourceMGT\/edit\?id=[0-9a-f]{32}$/);
  await expect(page.getByTestId('field-resourceNameEn')).toHaveValue(nameEn);
  await page.getByTestId('field-orderNum').fill('7');
  await page.getByTestId('crud-save').click();
  await expect(page).toHaveURL(/\/sysMGT\/resourceMGT(\?|$)/);
  await expect(
    list.getByRole('row').filter({ hasText: uri }).getByRole('cell', { name: '7', exact: true }),
  ).toBeVisible();
});

test('a user who may only see the resource list is offered neither add nor edit', async ({ browser }) => {
  const admin = await adminApi();
  const role = await createRole(admin, `E2E Viewer ${uniqueSuffix()}`, ['/sysMGT/resourceMGT'], { branch: false });
  const viewer = await createUser(admin, [role]);
  await admin.dispose();
  const page = await pageAs(browser, viewer);

  await page.goto('/sysMGT/resourceMGT');
  const list = page.getByTestId('resource-list');
  const row = list.getByRole('row').filter({ has: page.getByRole('cell', { name: '/archiveSetting', exact: true }) });
  // The row's actions are drawn (view), only edit is missing; the admin journey above clicks edit on the same list.
  await expect(row.getByTestId(/^row-view-/)).toBeVisible();
  await expect(row.getByTestId(/^row-edit-/)).toHaveCount(0);
  await expect(page.getByTestId('crud-add')).toHaveCount(0);
  await page.context().close();
});
