import type { APIRequestContext, Page } from '@playwright/test';
import ExcelJS from 'exceljs';
import {
  adminApi,
  call,
  FEEDER_F1_ID,
  LONG_JOURNEY_MS,
  openFromMenu,
  openInApp,
  STORED_LOGIN,
  uniqueSuffix,
} from './helpers';
import { expect, test } from './journey';

test.use({ storageState: STORED_LOGIN.admin });

async function pickInTree(page: Page, field: string, title: string) {
  await page.getByTestId(`field-${field}`).click();
  await page.keyboard.type(title);
  await page.locator('.ant-select-tree-title', { hasText: new RegExp(`^${title}$`) }).click();
}

async function pickInSelect(page: Page, field: string, title: string) {
  await page.getByTestId(`field-${field}`).click();
  await page.keyboard.type(title);
  await page.locator(`.ant-select-item-option[title="${title}"]`).click();
  await page.keyboard.press('Escape');
}

async function saveAndReturn(page: Page, listPath: string) {
  await page.getByTestId('crud-save').click();
  await expect(page).toHaveURL(new RegExp(`${listPath}(\\?|$)`));
}

/** spec §3's meter import headers, as the template's keys. */
const METER_IMPORT_HEADERS = [
  'consumerCode',
  'consumerName',
  'identityNumber',
  'devAddr',
  'moduleNo',
  'simNo',
  'meterBoxNo',
  'gridName',
  'supplierName',
  'tariffId',
  'pocPoint',
  'pocNature',
  'dcuNo',
  'hesPassword',
  'interfaceType',
] as const;

/** Row `n`'s key of a meter import: zero-padded, so a search for one matches no other. */
const importKey = (prefix: string, n: number) => `${prefix}${String(n).padStart(4, '0')}`;

/**
 * A meter workbook whose every row places a meter with a new consumer, module and POC in the grid
 * node `gridName`; the row `bad` gives its meter its own number as the module's, which the spec refuses.
 */
async function meterWorkbook(
  names: { prefix: string; gridName: string; supplierName: string },
  rows: number,
  bad?: number,
): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Meters');
  sheet.addRow([...METER_IMPORT_HEADERS]);
  for (let n = 1; n <= rows; n++) {
    const key = importKey(names.prefix, n);
    const cells: Record<(typeof METER_IMPORT_HEADERS)[number], string> = {
      consumerCode: `${key}C`,
      consumerName: `Imported consumer ${key}`,
      identityNumber: `ID${key}`,
      devAddr: `${key}A`,
      moduleNo: n === bad ? `${key}A` : `${key}M`,
      simNo: String(13_800_000_000 + n),
      meterBoxNo: `BOX${n}`,
      gridName: names.gridName,
      supplierName: names.supplierName,
      tariffId: 'Residential TOU',
      pocPoint: `${key}P`,
      pocNature: 'Consumer',
      dcuNo: '',
      hesPassword: `hes-${n}`,
      interfaceType: 'Optical port',
    };
    sheet.addRow(METER_IMPORT_HEADERS.map((header) => cells[header]));
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * Records every value the import dialog's progress bar shows from now on, read when the test asks:
 * whether the bar moved forward only, from where it started to where it ended, whatever the timing.
 */
async function recordProgress(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { importProgress: string[] }).importProgress = seen;
    const read = () => {
      const bar = document.querySelector('[data-testid=import-progress] [role=progressbar]');
      const value = bar?.getAttribute('aria-valuenow');
      if (value != null && value !== seen.at(-1)) seen.push(value);
    };
    new MutationObserver(read).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['aria-valuenow'],
    });
  });
  return () => page.evaluate(() => (window as unknown as { importProgress: string[] }).importProgress);
}

async function idOf(api: APIRequestContext, entity: 'meter' | 'consumer', filter: object): Promise<string> {
  const page = await call<{ list: { id: string }[] }>(api, `/${entity}/list`, { curPage: 1, pageSize: 10, ...filter });
  expect(page.list).toHaveLength(1);
  return page.list[0]?.id ?? '';
}

test('an operator builds an archive, imports meters, finds the meter on the map and replaces it at its POC', async ({
  page,
}) => {
  test.setTimeout(LONG_JOURNEY_MS);
  const suffix = uniqueSuffix();
  const area = `E2E Area ${suffix}`;
  const consumerCode = `E2EC${suffix}`;
  const moduleNo = `E2EM${suffix}`;
  const devAddr = `E2E${suffix}A`;
  const newDevAddr = `E2E${suffix}B`;
  const pocNo = `E2EP${suffix}`;
  // Near the map's default centre, so the map opens with the meter in view.
  const place = { latitude: '24.612', longitude: '46.617' };

  // A transformer area under feeder F1, from the row's "add child".
  await page.goto('/');
  await openFromMenu(page, '/archiveSetting', '/archiveSetting/powerGrid');
  await page.getByTestId(`row-addChild-${FEEDER_F1_ID}`).click();
  await page.getByTestId('field-gridCode').fill(`E2EG${suffix}`);
  await page.getByTestId('field-gridName').fill(area);
  await pickInSelect(page, 'gridType', 'Transformer area');
  await saveAndReturn(page, '/archiveSetting/powerGrid');
  await expect(page.getByRole('cell', { name: area, exact: true })).toBeVisible();

  await openInApp(page, '/archiveSetting/consumer/add');
  await page.getByTestId('field-consumerCode').fill(consumerCode);
  await page.getByTestId('field-consumerName').fill(`E2E Consumer ${suffix}`);
  await pickInTree(page, 'gridId', area);
  await page.getByTestId('field-latitude').fill(place.latitude);
  await page.getByTestId('field-longitude').fill(place.longitude);
  await saveAndReturn(page, '/archiveSetting/consumer');

  await openInApp(page, '/archiveSetting/module/add');
  await page.getByTestId('field-moduleNo').fill(moduleNo);
  await pickInSelect(page, 'deviceType', 'Meter');
  await pickInTree(page, 'gridId', area);
  await saveAndReturn(page, '/archiveSetting/module');

  await openInApp(page, '/archiveSetting/meter/add');
  await page.getByTestId('field-devAddr').fill(devAddr);
  await pickInTree(page, 'gridId', area);
  await pickInSelect(page, 'moduleId', moduleNo);
  await page.getByTestId('field-latitude').fill(place.latitude);
  await page.getByTestId('field-longitude').fill(place.longitude);
  await saveAndReturn(page, '/archiveSetting/meter');
  await page.getByTestId('field-devAddr').fill(devAddr);
  await page.getByTestId('crud-search').click();
  await expect(page.getByTestId('meter-list').getByRole('row').filter({ hasText: moduleNo })).toHaveCount(1);

  // The meter import: a file with one bad row writes nothing and says where; the corrected one goes in
  // whole, each row with its consumer, module and POC, while the bar moves.
  const admin = await adminApi();
  const supplierName = `E2E Supplier ${suffix}`;
  await call(admin, '/supplier/save', { supplierCode: `E2ES${suffix}`, supplierName });
  const names = { prefix: `E2EI${suffix}`, gridName: area, supplierName };
  const rows = 1200;
  const bad = 900;
  await page.getByTestId('crud-import').click();
  const dialog = page.getByTestId('import-dialog');
  await dialog.locator('input[type=file]').setInputFiles({
    name: 'meters-bad.xlsx',
    mimeType: XLSX,
    buffer: await meterWorkbook(names, rows, bad),
  });
  await expect(dialog.getByTestId('import-failed')).toContainText('Nothing was imported; problems found: 1.');
  const problem = dialog.getByTestId('import-errors').getByRole('row').nth(1).getByRole('cell');
  // The header is line 1, so the 900th row is the sheet's line 901.
  await expect(problem.nth(0)).toHaveText(String(bad + 1));
  await expect(problem.nth(1)).toHaveText('D · devAddr');
  await expect(problem.nth(2)).toHaveText('meterSnSameAsModule');
  await expect(problem.nth(3)).toHaveText(`Meter SN and module SN must differ: ${importKey(names.prefix, bad)}A`);
  for (const entity of ['meter', 'consumer', 'module', 'poc'] as const) {
    const key = { meter: 'devAddr', consumer: 'consumerCode', module: 'moduleNo', poc: 'pocNo' }[entity];
    const written = await call<{ list: unknown[] }>(admin, `/${entity}/list`, {
      curPage: 1,
      pageSize: 10,
      [key]: names.prefix,
    });
    expect(written.list, `${entity} rows of the refused file`).toHaveLength(0);
  }

  await dialog.getByTestId('import-again').click();
  const progressSeen = await recordProgress(page);
  await dialog.locator('input[type=file]').setInputFiles({
    name: 'meters.xlsx',
    mimeType: XLSX,
    buffer: await meterWorkbook(names, rows),
  });
  const bar = dialog.getByTestId('import-progress').getByRole('progressbar');
  await expect(bar).toBeVisible();
  await expect(dialog.getByTestId('import-done')).toHaveText(`Rows imported: ${rows}`);
  await expect(bar).toHaveAttribute('aria-valuenow', '100');
  // The bar starts from nothing (not where the failed file ended) and only moves forward.
  const values = (await progressSeen()).map(Number);
  expect(values[0]).toBe(0);
  expect(values.at(-1)).toBe(100);
  expect(values).toEqual([...values].sort((a, b) => a - b));
  await dialog.getByRole('button', { name: 'Close' }).last().click();

  const imported = importKey(names.prefix, bad);
  await page.getByTestId('field-devAddr').fill(`${imported}A`);
  await page.getByTestId('crud-search').click();
  const importedRow = page
    .getByTestId('meter-list')
    .getByRole('row')
    .filter({ hasText: `${imported}A` });
  await expect(importedRow).toHaveCount(1);
  await expect(importedRow).toContainText(`Imported consumer ${imported}`);
  await expect(importedRow).toContainText(`${imported}P`);
  await expect(importedRow).toContainText(`${imported}M`);
  await expect(importedRow).toContainText(area);

  // The map, with no tile server reachable: the markers still come, on a plain background.
  await page.route(/tile\.openstreetmap\.org/, (route) => route.abort('internetdisconnected'));
  await openFromMenu(page, '/archiveSetting', '/archiveSetting/gis');
  await expect(page.getByTestId('gis-count')).toBeVisible();
  await expect(page.getByTestId('gis-tiles-hint')).toHaveText(
    'Map tiles cannot be reached: positions are drawn on a plain background',
  );
  await pickInTree(page, 'gridId', area);
  await pickInSelect(page, 'kinds', 'Meters');
  await expect(page.getByTestId('gis-count')).toHaveText('1 in view');
  await page.getByTestId(`gis-point-meter-${devAddr}`).click();
  const popup = page.getByTestId('gis-popup');
  await expect(popup.getByTestId('gis-popup-label')).toHaveText(devAddr);
  await expect(popup).toContainText('Warehouse');
  await popup.getByTestId('gis-popup-detail').click();
  await expect(page).toHaveURL(/\/archiveSetting\/meter\/detail\?id=[0-9a-f]{32}$/);
  await expect(page.getByTestId('tab-/archiveSetting/meter/detail')).toBeVisible();
  await expect(page.getByTestId('meter-detail')).toContainText(devAddr);
  await expect(page.getByTestId('meter-detail')).toContainText(moduleNo);

  // Its POC and the meter to put in, through the API; the replacement through the page.
  const tree = await call<{ id: string; gridName: string; children: unknown[] }[]>(admin, '/powergrid/tree');
  const gridId = findGrid(tree, area);
  const meterId = await idOf(admin, 'meter', { devAddr });
  const consumerId = await idOf(admin, 'consumer', { consumerCode });
  await call(admin, '/poc/save', { pocNo, nature: 1, gridId, consumerId, meterId });
  await call(admin, '/meter/save', { devAddr: newDevAddr, gridId });
  await admin.dispose();

  await openFromMenu(page, '/archiveSetting', '/archiveSetting/poc');
  await page.getByTestId('field-pocNo').fill(pocNo);
  await page.getByTestId('crud-search').click();
  const row = page.getByTestId('poc-list').getByRole('row').filter({ hasText: pocNo });
  await expect(row).toContainText(devAddr);
  await row.getByTestId(/^row-replace-/).click();
  await expect(page.getByTestId('poc-replace-current')).toContainText(devAddr);
  await page.getByTestId('field-newMeterId').click();
  await page.keyboard.type(newDevAddr);
  await page.locator(`.ant-select-item-option[title="${newDevAddr}"]`).click();
  await page.getByTestId('field-oldActiveTotal').fill('1520.5');
  await page.getByTestId('field-oldReactiveTotal').fill('80');
  await page.getByTestId('field-newActiveTotal').fill('0');
  await page.getByTestId('field-newReactiveTotal').fill('0');
  await page.getByTestId('poc-replace-submit').click();

  await expect(page).toHaveURL(/\/archiveSetting\/poc\/detail\?id=[0-9a-f]{32}$/);
  const history = page.getByTestId('related-replacements');
  const first = history.getByRole('row').filter({ hasText: 'PRE1' });
  await expect(first).toContainText(devAddr);
  await expect(first).toContainText(newDevAddr);
  await expect(page.getByTestId('poc-detail')).toContainText(newDevAddr);
});

function findGrid(nodes: { id: string; gridName: string; children: unknown[] }[], name: string): string {
  for (const node of nodes) {
    if (node.gridName === name) return node.id;
    const below = findGrid(node.children as typeof nodes, name);
    if (below) return below;
  }
  return '';
}
