import type { Page } from '@playwright/test';
import { adminApi, call, LONG_JOURNEY_MS, openInApp, STORED_LOGIN, uniqueSuffix, untilOnline } from './helpers';
import { expect, test } from './journey';

/**
 * The simulator the journeys' server runs fails the first calendar write (02) of the meters whose serial
 * ends in 3 (e2e/serve.mjs passes the flag through SIMULATOR_ARGS).
 */
const failsFirstCalendar = (devAddr: string) => devAddr.endsWith('3');

test.use({ storageState: STORED_LOGIN.admin });

/** Online activated demo meters with a consumer (as a push needs): `failing` of them chosen by `fails`, the rest not. */
async function onlineMeters(count: number, failing: number, fails: (devAddr: string) => boolean): Promise<string[]> {
  const admin = await adminApi();
  const { list } = await call<{ list: { devAddr: string; consumerCode: string | null }[] }>(admin, '/meter/list', {
    status: 2,
    pageSize: 100,
    curPage: 1,
  });
  const usable = list.filter((m) => m.consumerCode).map((m) => m.devAddr);
  const meters = [
    ...usable.filter(fails).slice(0, failing),
    ...usable.filter((m) => !fails(m)).slice(0, count - failing),
  ];
  if (meters.length !== count) throw new Error('the demo archive lacks the meters this journey needs');
  for (const devAddr of meters) await untilOnline(admin, devAddr);
  await admin.dispose();
  return meters;
}

async function pickMeters(page: Page, meters: readonly string[]) {
  for (const devAddr of meters) {
    await page.getByTestId('field-devAddr').fill(devAddr);
    await page.getByTestId('crud-search').click();
    await page.getByTestId(`select-${devAddr}`).check();
  }
  await expect(page.getByTestId('batch-selected')).toContainText(String(meters.length));
}

test('builds a two-season tariff with a special day, pushes it to three meters and re-sends the one that failed', async ({
  page,
}) => {
  test.setTimeout(LONG_JOURNEY_MS);
  const meters = await onlineMeters(3, 1, failsFirstCalendar);
  const [failing] = meters;
  if (!failing) throw new Error('no meter to fail');
  const name = `Journey TOU ${uniqueSuffix()}`;

  await page.goto('/parameterSetting/tariffManagement');
  await page.getByTestId('crud-add').click();
  const form = page.getByTestId('tariff-form');
  await form.getByTestId('field-tariffName').fill(name);
  // A second day profile (a copy of the first, its midday at rate 3), a second week and a second season
  // following it, and New Year's Day on the second day profile.
  await form.getByTestId('add-day').click();
  await form.getByTestId('switch-2-1-rate-3').click();
  await expect(form.getByTestId('segment-2-1')).toHaveAttribute('data-rate', '3');
  await form.getByTestId('add-week').click();
  await form.getByTestId('add-season').click();
  await expect(form.getByTestId('season-band-1')).toBeVisible();
  await form.getByTestId('add-special-day').click();
  await expect(form.getByTestId('special-mark-0')).toBeVisible();
  await expect(form.getByTestId('calendar-issue-summary')).toHaveCount(0);
  // The preview says which rate applies at a moment, and why: New Year's noon is the special day's rate 3.
  const moment = form.getByTestId('preview-moment');
  await moment.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('2027-01-01 12:00');
  await page.keyboard.press('Enter');
  await expect(form.getByTestId('preview-rate')).toHaveAttribute('data-rate', '3');
  await form.getByTestId('crud-save').click();
  await expect(page).toHaveURL(/\/parameterSetting\/tariffManagement(\?|$)/);
  await expect(page.getByTestId('page-area').getByText(name)).toBeVisible();

  await openInApp(page, '/serviceRequest/tariffConfiguration');
  const screen = page.getByTestId('tariff-configuration');
  await screen.getByTestId('field-tariffId').click();
  await page.keyboard.type(name);
  await page.locator(`.ant-select-item-option[title="${name}"]`).click();
  await expect(screen.getByTestId('tariff-calendar')).toBeVisible();
  await pickMeters(page, meters);
  await screen.getByTestId('tariff-issue').click();
  await page.getByRole('dialog').getByTestId('confirm-ok').click();

  const result = (devAddr: string) => page.getByTestId(`result-${devAddr}`).getByTestId('result-code');
  for (const devAddr of meters.slice(1)) await expect(result(devAddr)).toHaveText('00 Success');
  await expect(result(failing)).toHaveText(/^02 /);
  await expect(page.getByTestId('tariff-failed-meters')).toHaveText(failing);

  await page.getByTestId('tariff-resend').click();
  await page.getByRole('dialog').getByTestId('confirm-ok').click();
  await expect(result(failing)).toHaveText('00 Success');
  await expect(page.getByTestId('tariff-failed')).toHaveCount(0);
});
