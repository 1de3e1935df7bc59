import { execFileSync } from 'node:child_process';
import ExcelJS from 'exceljs';
import {
  adminApi,
  call,
  confirmDialog,
  demoGridId,
  LONG_JOURNEY_MS,
  openInApp,
  STORED_LOGIN,
  uniqueSuffix,
  untilOnline,
} from './helpers';
import { expect, test } from './journey';

/*
 * Issue 17's journey: what the fleet did, at a glance and live. A transformer area of the demo fleet is
 * blacked out in the simulator while the network monitor, the meter list and the outage map are open;
 * each goes dark without a reload. Its meters' last gasps are the dashboard's alarms and a storm on the
 * meter events page, acknowledged in bulk. Transformer T8 is far down the demo archive from the meters
 * the operation journeys command, and it is powered again however the journey ends.
 */
const AREA_KEY = 'transformer-8';
const AREA_DCU = '31000108';
const POWER_DOWN = 1;

test.use({ storageState: STORED_LOGIN.admin });

test('the dashboard, a blackout seen live, a storm acknowledged, a meter found on the map, monthly consumption exported', async ({
  page,
  context,
  browser,
}) => {
  test.setTimeout(2 * LONG_JOURNEY_MS);
  const admin = await adminApi();
  const areaId = demoGridId(AREA_KEY);
  const { list: areaMeters } = await call<{ list: { id: string; devAddr: string; dcuNo: string | null }[] }>(
    admin,
    '/meter/list',
    { gridId: areaId, status: 2, pageSize: 50, curPage: 1 },
  );
  const meter = areaMeters.find((m) => m.dcuNo === AREA_DCU);
  if (!meter) throw new Error(`no active meter behind DCU ${AREA_DCU} in ${AREA_KEY}`);
  await untilOnline(admin, meter.devAddr);
  try {
    // Three pages open before the blackout; none is loaded again.
    const monitor = await context.newPage();
    await monitor.goto('/dataAnalytic/networkMonitor');
    await expect(monitor.getByTestId('network-live')).toHaveAttribute('data-live', 'true');
    const offline = monitor.getByTestId('analytics-figure-metersOffline').locator('.ant-statistic-content');
    await expect(offline).toBeVisible();
    const offlineCount = async () => Number((await offline.innerText()).replace(/\D/g, ''));
    const offlineBefore = await offlineCount();

    const meters = await context.newPage();
    await meters.goto(`/archiveSetting/meter?gridId=${areaId}&devAddr=${meter.devAddr}`);
    const onlineTag = meters.getByTestId(`online-${meter.devAddr}`);
    await expect(onlineTag).toHaveAttribute('data-state', 'online');

    await page.goto(`/archiveSetting/gis?outages=1&gridId=${areaId}`);
    await expect(page.getByTestId('outage-live')).toHaveAttribute('data-live', 'true');
    await expect(page.getByTestId(`outage-node-${areaId}`)).toHaveCount(0);
    await expect(page.getByTestId('outage-simulate-target')).toContainText('Transformer T8');
    await page.getByTestId('outage-blackout').click();
    await confirmDialog(page);

    await expect(page.getByTestId(`outage-node-${areaId}`)).toBeVisible();
    await expect(page.getByTestId(`outage-node-${areaId}`)).toHaveAttribute('data-dark', 'true');
    await expect(onlineTag).toHaveAttribute('data-state', 'offline');
    await expect.poll(offlineCount).toBeGreaterThan(offlineBefore);
    await monitor.close();
    await meters.close();

    // The map finds one of the area's meters by its number.
    await page.getByTestId('gis-search').fill(meter.devAddr);
    await page.getByTestId(`gis-search-option-meter-${meter.devAddr}`).click();
    await expect(page.getByTestId('gis-popup-label')).toHaveText(meter.devAddr);

    // The last gasps are the dashboard's alarms; one leads to its meter's event timeline.
    await openInApp(page, '/dashboard');
    const alarms = page.getByTestId('dashboard-card-alarms');
    await expect(alarms.getByText('Power down').first()).toBeVisible();
    await alarms.locator('[data-testid^="dashboard-alarm-link-"]').first().click();
    await expect(page).toHaveURL(/\/dataAnalytic\/meterEvents\/meterEventsDetail\?meterId=/);
    await expect(page.getByTestId('analytics-chart-meterEventsDetail')).toBeVisible();
    await expect(page.getByTestId('analytics-page-meterEventsDetail').getByRole('row')).toContainText(['Power down']);

    // The area's storm: its meters' power-downs behind their DCU, acknowledged at once with a remark.
    await openInApp(page, '/dataAnalytic/meterEvents');
    const storm = `${AREA_DCU}-${POWER_DOWN}`;
    // Storms are read from the event rollups, folded a few seconds after the power change: refreshed until then.
    await expect(async () => {
      await page.getByTestId('crud-refresh').click();
      await expect(page.getByTestId(`storm-row-${storm}`)).toBeVisible({ timeout: 5_000 });
    }).toPass({ timeout: 150_000 });
    await page.getByTestId(`storm-ack-${storm}`).click();
    const dialog = page.getByTestId('ack-dialog');
    await expect(dialog).toBeVisible();
    await page.getByTestId('field-remark').fill(`Transformer T8 blackout ${uniqueSuffix()}`);
    await page.getByTestId('ack-confirm').click();
    await expect(page.getByTestId(`storm-done-${storm}`)).toBeVisible();
  } finally {
    await call(admin, '/simulator/power', { gridId: areaId, powered: true });
    await admin.dispose();
  }

  // Monthly consumption, exported in Chinese by a user whose language it is.
  const zh = await browser.newContext({ storageState: STORED_LOGIN.adminZh });
  const zhPage = await zh.newPage();
  await zhPage.goto('/dataAnalytic/monthlyConsumption');
  await expect(zhPage.getByTestId('analytics-page-monthlyConsumption')).toBeVisible();
  const exported = async (format: 'xlsx' | 'pdf') => {
    await zhPage.getByTestId('crud-export').click();
    await zhPage.getByTestId(`export-format-${format}`).click();
    const [download] = await Promise.all([zhPage.waitForEvent('download'), zhPage.getByTestId('export-ok').click()]);
    return download.path();
  };
  const workbook = await new ExcelJS.Workbook().xlsx.readFile(await exported('xlsx'));
  const sheet = workbook.worksheets[0];
  expect(sheet?.name).toContain('月用电量');
  expect(sheet?.getRow(1).values).toContain('电表编号');
  const pdf = execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', await exported('pdf'), '-']).toString('utf8');
  expect(pdf).toContain('月用电量');
  await zh.close();
});
