import {
  adminApi,
  confirmDialog,
  demoMeter,
  expectPage,
  LONG_JOURNEY_MS,
  openInApp,
  STORED_LOGIN,
  uniqueSuffix,
  untilOnline,
} from './helpers';
import { expect, test } from './journey';

test.use({ storageState: STORED_LOGIN.admin });

const TEMPLATES = '/serviceRequest/scheduledTask/templateMGT';
const TASKS = '/serviceRequest/scheduledTask/taskMGT';
const REPORT = '/report/dataCollectionReport';
/**
 * Far down the activated demo meters: the operation journeys command the first ones (a batch the first
 * 30), and a meter a run reads at the same time would be refused to them as already executing.
 */
const METER_INDEX = 60;

/** `YYYY-MM-DD HH:mm:ss` in the browser's (and this process's) time zone, as the date picker takes it. */
function typed(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:00`;
}

const DAY_MS = 86_400_000;
const utcDay = (at: number) => new Date(at).toISOString().slice(0, 10);

test('an administrator builds a collection template, creates a daily task from it, runs it now and finds its readings', async ({
  page,
}) => {
  test.setTimeout(2 * LONG_JOURNEY_MS);
  const suffix = uniqueSuffix();
  const templateName = `E2E daily ${suffix}`;
  const taskName = `E2E task ${suffix}`;
  const admin = await adminApi();
  const meter = await demoMeter(admin, 2, METER_INDEX);
  await untilOnline(admin, meter.devAddr);
  await admin.dispose();

  await page.goto(TEMPLATES);
  await page.getByTestId('crud-add').click();
  await expectPage(page, `${TEMPLATES}/add`);
  const templateForm = page.getByTestId('template-form');
  await templateForm.getByTestId('field-templateName').fill(templateName);
  await templateForm.getByTestId('field-items').click();
  // Typed by their code, offered by their name.
  for (const [item, name] of [
    ['loadProfile', 'Load profile'],
    ['dailyFrozen', 'Daily frozen values'],
  ] as const) {
    await page.keyboard.type(item);
    await page.locator(`.ant-select-item-option[title^="${name} (${item},"]`).click();
  }
  await page.keyboard.press('Escape');
  await templateForm.getByTestId('crud-save').click();
  await expectPage(page, TEMPLATES);
  await page.getByTestId('field-templateName').fill(templateName);
  await page.getByTestId('crud-search').click();
  await expect(page.getByRole('row').filter({ hasText: templateName })).toContainText(
    'Load profile, Daily frozen values',
  );

  await openInApp(page, TASKS);
  await page.getByTestId('crud-add').click();
  await expectPage(page, `${TASKS}/add`);
  const form = page.getByTestId('task-form');
  await form.getByTestId('field-planName').fill(taskName);
  await form.getByTestId('field-templateId').click();
  await page.locator(`.ant-select-item-option[title="${templateName}"]`).click();
  await expect(form.getByTestId('task-template-items')).toContainText('Load profile, Daily frozen values');
  await form.getByTestId('field-devList').fill(meter.devAddr);
  // A start already past is refused before anything is sent.
  const start = form.getByTestId('field-starttime');
  await start.click();
  await start.fill(typed(new Date(Date.now() - 3_600_000)));
  await start.press('Enter');
  await form.getByTestId('crud-save').click();
  await expect(form.getByText('The start time must be later than now')).toBeVisible();
  // The coming UTC midnight: run now then reads yesterday, the UTC day the data tab and the report show.
  const nextMidnight = new Date(Math.ceil(Date.now() / DAY_MS) * DAY_MS);
  await start.click();
  await start.fill(typed(nextMidnight));
  await start.press('Enter');
  await form.getByTestId('crud-save').click();
  await expectPage(page, TASKS);

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
  await expectPage(page, TASKS);
  await page.getByTestId('field-planName').fill(taskName);
  await page.getByTestId('crud-search').click();
  await expect(row.getByRole('cell', { name: '6', exact: true })).toBeVisible();

  // Run now reads the day before the first occurrence: yesterday's 96 intervals and its frozen values.
  await row.getByTestId(/^row-runs-/).click();
  await expectPage(page, `${TASKS}/view/detail`);
  await page.getByTestId('run-now').click();
  await confirmDialog(page);
  await expect(page.getByTestId('run-progress')).toContainText('1 of 1 meters read', { timeout: 120_000 });
  const run = page.getByRole('row').filter({ hasText: 'Run now' });
  await expect(run.getByRole('cell', { name: 'Finished', exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(run.getByRole('cell', { name: '100 %', exact: true })).toBeVisible();
  await run.click();
  const device = page.getByRole('row').filter({ hasText: meter.devAddr });
  await expect(device).toContainText('00 Success');
  await expect(device).toContainText('Load profile 96/96');

  // The meter's data tab draws yesterday's load profile.
  await openInApp(page, `/archiveSetting/meter/detail?id=${meter.id}`);
  await page.getByTestId('meter-tab-data').click();
  await expect(page.getByTestId('profile-received')).toContainText('96 of 96');
  await expect(page.getByTestId('profile-chart')).toBeVisible();

  // The data collection report counts the day once the rollups have folded it (asked for as the run ends).
  const yesterday = utcDay(Date.now() - DAY_MS);
  await openInApp(page, REPORT);
  const day = page.getByTestId('report-daily').getByRole('row').filter({ hasText: yesterday });
  await expect
    .poll(
      async () => {
        await page.getByTestId('report-refresh').click();
        return Number((await day.getByRole('cell').nth(3).textContent({ timeout: 30_000 })) ?? 0);
      },
      { timeout: 150_000, intervals: [5_000] },
    )
    .toBeGreaterThanOrEqual(96);
  await expect(page.getByTestId('report-period-rate')).toContainText('%');
});
