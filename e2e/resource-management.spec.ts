import { expect, test } from '@playwright/test';
import { ADMIN, logIn, openFromMenu } from './helpers';

test.use({ viewport: { width: 1600, height: 900 } });

test('the admin filters, adds and edits a resource through the generic list and form', async ({ page }) => {
  await logIn(page, ADMIN);
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
  await page.getByTestId('field-resourceName').fill('导出资源');
  await page.getByTestId('field-resourceNameEn').fill('Add');
  await page.getByTestId('field-resourceUri').click();
  await expect(form.getByText('existed')).toBeVisible();
  await page.getByTestId('field-resourceNameEn').fill('Export resources');
  await page.getByTestId('field-resourceUri').fill('/sysMGT/resourceMGT/exportResources');
  await page.getByTestId('crud-save').click();
  await expect(page).toHaveURL(/\/sysMGT\/resourceMGT(\?|$)/);
  // Known issue (see the closing note): typing into the filter bar in the first moments after a save is lost.
  await expect(list.getByRole('cell', { name: '/archiveSetting', exact: true })).toBeVisible();

  await page.getByTestId('field-resourceNameEn').fill('Export resources');
  await expect(page.getByTestId('field-resourceNameEn')).toHaveValue('Export resources');
  await page.getByTestId('crud-search').click();
  const row = list.getByRole('row').filter({ hasText: '/sysMGT/resourceMGT/exportResources' });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Button');
  await row.getByTestId(/^row-edit-/).click();
  await expect(page).toHaveURL(/\/sysMGT\/resourceMGT\/edit\?id=[0-9a-f]{32}$/);
  await expect(page.getByTestId('field-resourceNameEn')).toHaveValue('Export resources');
  await page.getByTestId('field-orderNum').fill('7');
  await page.getByTestId('crud-save').click();
  await expect(page).toHaveURL(/\/sysMGT\/resourceMGT(\?|$)/);
  await expect(list.getByRole('row').filter({ hasText: '/sysMGT/resourceMGT/exportResources' })).toContainText('7');
});
