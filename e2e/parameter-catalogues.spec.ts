import { LONG_JOURNEY_MS, openFromMenu, STORED_LOGIN, uniqueSuffix } from './helpers';
import { expect, test } from './journey';

test.use({ storageState: STORED_LOGIN.admin });

test('an administrator adds an OBIS item and an event definition rolling up into a standard event', async ({
  page,
}) => {
  test.setTimeout(LONG_JOURNEY_MS);
  const suffix = uniqueSuffix();
  // A code of the run's own: manufacturer-specific group C (128-199), E and F from the clock.
  const now = Date.now();
  const code = `1-0:${128 + (now % 72)}.7.${Math.floor(now / 72) % 256}.255`;
  const cgName = `e2e_${suffix}`;

  await page.goto('/');
  await openFromMenu(page, '/parameterSetting', '/parameterSetting/obisManagement');
  // The seeded catalogue is there.
  await expect(page.getByRole('cell', { name: '0-0:1.0.0.255', exact: true })).toBeVisible();
  await page.getByTestId('crud-add').click();
  await expect(page).toHaveURL(/\/parameterSetting\/obisManagement\/addObis(\?|$)/);
  await page.getByTestId('field-classId').fill('3');
  await page.getByTestId('field-attribute').fill('2');
  await page.getByTestId('field-description').fill(`E2E register ${suffix}`);
  await page.getByTestId('field-unit').click();
  await page.locator('.ant-select-item-option[title="V (35)"]').click();
  await page.getByTestId('field-scaler').fill('-1');
  await page.getByTestId('field-cgName').fill(cgName);
  await page.getByTestId('field-readInstantly').click();
  // Typed last: a CI run found the code typed first gone while the fields after it kept theirs (the form
  // seems to reset once on opening; not found why), and it said mandatory instead of the format.
  await page.getByTestId('field-obis').fill('1-0:1.8.0');
  await page.getByTestId('crud-save').click();
  await expect(page.getByText('Please enter an OBIS code as A-B:C.D.E.F, each part 0-255')).toBeVisible();
  await page.getByTestId('field-obis').fill(code);
  await page.getByTestId('crud-save').click();
  await expect(page).toHaveURL(/\/parameterSetting\/obisManagement(\?|$)/);

  await page.getByTestId('field-cgName').fill(cgName);
  await page.getByTestId('crud-search').click();
  const row = page.getByRole('row').filter({ hasText: cgName });
  await expect(row.getByRole('cell', { name: code, exact: true })).toBeVisible();
  await expect(row.getByRole('cell', { name: 'V (35)', exact: true })).toBeVisible();
  await expect(row.locator('.ant-tag', { hasText: 'Yes' })).toHaveCount(1);

  await openFromMenu(page, '/parameterSetting', '/parameterSetting/eventDefinition');
  await expect(page.getByRole('cell', { name: 'Power down', exact: true })).toBeVisible();
  await page.getByTestId('crud-add').click();
  const form = page.getByTestId('eventDefinition-form');
  const name = `E2E event ${suffix}`;
  await form.getByTestId('field-code').fill(String(1000 + (now % 60000)));
  await form.getByTestId('field-name').fill(name);
  await form.getByTestId('field-level').click();
  await page.locator('.ant-select-item-option[title="Medium"]').click();
  await form.getByTestId('field-parentId').click();
  await page.keyboard.type('Power down');
  await page.locator('.ant-select-item-option[title="1 · Power down"]').click();
  await form.getByTestId('field-cumulativeNumber').fill('3');
  await form.getByTestId('crud-save').click();
  await expect(form).toHaveCount(0);
  await page.getByTestId('field-name').fill(name);
  await page.getByTestId('crud-search').click();
  const event = page.getByRole('row').filter({ hasText: name });
  await expect(event.getByRole('cell', { name: 'Power down', exact: true })).toBeVisible();
  await expect(event.getByRole('cell', { name: 'Medium', exact: true })).toBeVisible();
});
