import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import {
  adminApi,
  call,
  confirmDialog,
  LONG_JOURNEY_MS,
  openInApp,
  STORED_LOGIN,
  uniqueSuffix,
  untilOnline,
} from './helpers';
import { expect, test } from './journey';

/**
 * The simulator the journeys' server runs fails the first calendar write (02) of the meters whose serial
 * ends in 3 and every image verification of those ending in 4 (e2e/serve.mjs, SIMULATOR_ARGS).
 */
const failsFirstCalendar = (devAddr: string) => devAddr.endsWith('3');
const failsImageVerify = (devAddr: string) => devAddr.endsWith('4');
/** Other journeys command the first activated meters: a firmware activation restarts a meter for a moment. */
const SKIP_FIRST = 20;

test.use({ storageState: STORED_LOGIN.admin });

/** Online activated demo meters with a consumer (as a push needs): `failing` of them chosen by `fails`, the rest not. */
async function onlineMeters(
  count: number,
  failing: number,
  fails: (devAddr: string) => boolean,
  skip = 0,
): Promise<string[]> {
  const admin = await adminApi();
  const { list } = await call<{ list: { devAddr: string; consumerCode: string | null }[] }>(admin, '/meter/list', {
    status: 2,
    pageSize: 200,
    curPage: 1,
  });
  const usable = list
    .slice(skip)
    .filter((m) => m.consumerCode)
    .map((m) => m.devAddr);
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
  await form.getByTestId('switch-2-1-rate').getByText('3', { exact: true }).click();
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
  // Enter sets the moment and nothing else: the form stays open until Save.
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
  await confirmDialog(page);

  const result = (devAddr: string) => page.getByTestId(`result-${devAddr}`).getByTestId('result-code');
  for (const devAddr of meters.slice(1)) await expect(result(devAddr)).toHaveText('00 Success');
  await expect(result(failing)).toHaveText(/^02 /);
  await expect(page.getByTestId('tariff-failed-meters')).toHaveText(failing);

  await page.getByTestId('tariff-resend').click();
  await confirmDialog(page);
  await expect(result(failing)).toHaveText('00 Success');
  await expect(page.getByTestId('tariff-failed')).toHaveCount(0);
});

test('uploads a firmware image, runs a campaign on five meters that stops at its threshold, resumes it and sees the new version under Associated', async ({
  page,
}) => {
  test.setTimeout(LONG_JOURNEY_MS);
  const meters = await onlineMeters(5, 1, failsImageVerify, SKIP_FIRST);
  const [failing, first] = meters;
  if (!failing || !first) throw new Error('no meters');
  const suffix = uniqueSuffix();
  const version = `MT-9.${suffix.length}.${Date.now() % 1000}`;
  // A binary image: random bytes, not text, no archive's or picture's signature.
  const image = randomBytes(20_000);
  image[0] = 0;

  await page.goto('/parameterSetting/meterUpgrade');
  await page.getByTestId('crud-add').click();
  const form = page.getByTestId('firmware-form');
  await form.getByTestId('field-name').fill(`Journey carrier ${suffix}`);
  await form.getByTestId('field-equipment').click();
  await page.getByTitle('Carrier chip').click();
  await form.getByTestId('field-targetVersion').fill(version);
  await form
    .locator('input[type=file]')
    .setInputFiles({ name: 'carrier.bin', mimeType: 'application/octet-stream', buffer: image });
  await expect(form.getByTestId('firmware-upload-info')).toContainText('20000');
  await form.getByTestId('crud-save').click();
  const list = page.getByTestId('firmware-list');
  await expect(list).toContainText(`Journey carrier ${suffix}`);
  await list
    .getByRole('row')
    .filter({ hasText: `Journey carrier ${suffix}` })
    .getByRole('button', { name: 'Upgrade' })
    .click();

  await page.getByTestId('firmware-upgrade').click();
  const modal = page.getByTestId('campaign-modal');
  for (const devAddr of meters) {
    await modal.getByTestId('field-devAddr').fill(devAddr);
    await modal.getByRole('button', { name: 'Search' }).click();
    await modal.getByTestId(`select-${devAddr}`).check();
  }
  await expect(modal.getByTestId('campaign-selected')).toContainText('5');
  // The canary is the first device (20 % of five), which fails its verification: one failure passes 10 %.
  await modal.getByTestId('campaign-canary').fill('20');
  await modal.getByTestId('campaign-threshold').fill('10');
  await page.getByTestId('campaign-start').click();
  await confirmDialog(page, 'Upgrade 5 devices');

  const view = page.getByTestId('campaign-view');
  const progress = (devAddr: string) => view.getByTestId(`upgrade-progress-${devAddr}`);
  await expect(progress(failing)).toHaveAttribute('data-progress', '66');
  await expect(page.getByTestId('campaign-paused')).toBeVisible();
  await expect(progress(failing)).toHaveAttribute('data-progress', '99');
  await expect(progress(first)).toHaveAttribute('data-progress', '');

  await page.getByTestId('campaign-resume').click();
  await confirmDialog(page, 'Resume the campaign');
  await expect(page.getByTestId('campaign-state')).toHaveAttribute('data-state', 'finished', { timeout: 150_000 });
  for (const devAddr of meters.slice(1)) await expect(progress(devAddr)).toHaveAttribute('data-progress', '00');
  await expect(progress(failing)).toHaveAttribute('data-progress', '99');

  const firmwareId = new URL(page.url()).searchParams.get('id');
  await openInApp(page, `/parameterSetting/meterUpgrade/associated?id=${firmwareId}`);
  await expect(page.getByTestId(`associated-version-${first}`)).toHaveText(version);
  await expect(page.getByTestId(`associated-version-${failing}`)).not.toHaveText(version);
});
