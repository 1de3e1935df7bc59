import { expect, test } from '@playwright/test';
import { adminApi, call, FEEDER_F1_ID, LONG_JOURNEY_MS, STORED_LOGIN, uniqueSuffix } from './helpers';

test.use({ storageState: STORED_LOGIN.admin });

const TEMPLATES = '/serviceRequest/scheduledTask/templateMGT';
const TASKS = '/serviceRequest/scheduledTask/taskMGT';

/** `YYYY-MM-DD HH:mm:ss` in the browser's (and this process's) time zone, as the date picker takes it. */
function typed(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:00`;
}

test('an administrator builds a collection template and creates a daily task from it', async ({ page }) => {
  test.setTimeout(LONG_JOURNEY_MS);
  const suffix = uniqueSuffix();
  const templateName = `E2E daily ${suffix}`;
  const taskName = `E2E task ${suffix}`;
  const serial = `E2ECT${suffix}`.toUpperCase();
  const admin = await adminApi();
  await call(admin, '/meter/save', { devAddr: serial, gridId: FEEDER_F1_ID });

  await page.goto(TEMPLATES);
  await page.getByTestId('crud-add').click();
  await expect(page).toHaveURL(new RegExp(`${TEMPLATES}/add(\\?|$)`));
  const templateForm = page.getByTestId('template-form');
  await templateForm.getByTestId('field-templateName').fill(templateName);
  await templateForm.getByTestId('field-items').click();
  for (const item of ['loadProfile', 'dailyFrozen']) {
    await page.keyboard.type(item);
    await page.locator(`.ant-select-item-option[title^="${item} ("]`).click();
  }
  await page.keyboard.press('Escape');
  await templateForm.getByTestId('crud-save').click();
  await expect(page).toHaveURL(new RegExp(`${TEMPLATES}(\\?|$)`));
  await page.getByTestId('field-templateName').fill(templateName);
  await page.getByTestId('crud-search').click();
  await expect(page.getByRole('row').filter({ hasText: templateName })).toContainText('loadProfile');

  await page.goto(TASKS);
  await page.getByTestId('crud-add').click();
  await expect(page).toHaveURL(new RegExp(`${TASKS}/add(\\?|$)`));
  const form = page.getByTestId('task-form');
  await form.getByTestId('field-planName').fill(taskName);
  await form.getByTestId('field-templateId').click();
  await page.locator(`.ant-select-item-option[title="${templateName}"]`).click();
  await expect(form.getByTestId('task-template-items')).toContainText('loadProfile, dailyFrozen');
  await form.getByTestId('field-devList').fill(serial);
  // A start already past is refused before anything is sent.
  const start = form.getByTestId('field-starttime');
  await start.click();
  await start.fill(typed(new Date(Date.now() - 3_600_000)));
  await start.press('Enter');
  await form.getByTestId('crud-save').click();
  await expect(form.getByText('The start time must be later than now')).toBeVisible();
  const tomorrow = new Date();
  tomorrow.setDate(tomorrow.getDate() + 1);
  tomorrow.setHours(0, 15, 0, 0);
  await start.click();
  await start.fill(typed(tomorrow));
  await start.press('Enter');
  await form.getByTestId('crud-save').click();
  await expect(page).toHaveURL(new RegExp(`${TASKS}(\\?|$)`));

  await page.getByTestId('field-planName').fill(taskName);
  await page.getByTestId('crud-search').click();
  const row = page.getByRole('row').filter({ hasText: taskName });
  await expect(row.getByRole('cell', { name: 'Waiting', exact: true })).toBeVisible();
  await expect(row.getByRole('cell', { name: templateName, exact: true })).toBeVisible();
  await expect(row.getByRole('cell', { name: '30', exact: true })).toBeVisible();

  // Modifying asks for the task to be disabled first, with a confirmation.
  await row.getByRole('button', { name: 'Edit' }).click();
  await page.getByTestId('task-disable').click();
  await page.getByRole('button', { name: 'OK' }).click();
  const editForm = page.getByTestId('task-form');
  await expect(editForm.getByTestId('field-planName')).toHaveValue(taskName);
  await editForm.getByTestId('field-pri').fill('6');
  await editForm.getByTestId('crud-save').click();
  await expect(page).toHaveURL(new RegExp(`${TASKS}(\\?|$)`));
  await page.getByTestId('field-planName').fill(taskName);
  await page.getByTestId('crud-search').click();
  await expect(row.getByRole('cell', { name: '6', exact: true })).toBeVisible();
  await admin.dispose();
});
