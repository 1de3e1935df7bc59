import { adminApi, call, confirmDialog, LONG_JOURNEY_MS, openFromMenu, STORED_LOGIN, untilOnline } from './helpers';
import { expect, test } from './journey';

test.use({ storageState: STORED_LOGIN.admin });

test('applies a demo parameter template from its detail to a meter of its type, which answers success', async ({
  page,
}) => {
  test.setTimeout(LONG_JOURNEY_MS);
  const admin = await adminApi();
  const { list: templates } = await call<{ list: { id: string; meterTypeId: string }[] }>(
    admin,
    '/paramtemplate/list',
    { templateName: 'Household PLC standard', pageSize: 10, curPage: 1 },
  );
  const template = templates[0];
  if (!template) throw new Error('the demo archive has no household parameter template');
  // An activated meter of the template's type supplies a consumer, as an operation needs.
  const { list: meters } = await call<{ list: { devAddr: string; consumerCode: string | null }[] }>(
    admin,
    '/meter/list',
    { meterTypeId: template.meterTypeId, status: 2, pageSize: 50, curPage: 1 },
  );
  const meter = meters.find((m) => m.consumerCode);
  if (!meter) throw new Error('no activated demo meter of the template type');
  await untilOnline(admin, meter.devAddr);
  await admin.dispose();

  await page.goto('/');
  await openFromMenu(page, '/parameterSetting', '/parameterSetting/paramTemplateSetting');
  await page.getByTestId(`row-view-${template.id}`).click();
  await expect(page).toHaveURL(/\/paramTemplateSetting\/detail\?id=/);
  const items = page.getByTestId('items-items');
  const swell = items.getByRole('row').filter({ hasText: '1-0:12.35.0.255' });
  await expect(swell.getByRole('cell', { name: '253 V', exact: true })).toBeVisible();
  await expect(swell.getByRole('cell', { name: '-1', exact: true })).toBeVisible();

  await page.getByTestId('detail-apply').click();
  await expect(page).toHaveURL(/\/serviceRequest\/batchOperation\?/);
  const batch = page.getByTestId('batch-operation');
  await expect(batch.getByTestId('batch-operation-select')).toContainText('Apply parameter template');
  await batch.getByTestId('field-devAddr').fill(meter.devAddr);
  await batch.getByTestId('crud-search').click();
  await batch.getByTestId(`select-${meter.devAddr}`).check();
  await batch.getByTestId('batch-execute').click();
  await confirmDialog(page, 'Apply parameter template on 1 meters?');
  const results = page.getByTestId('operation-results');
  await expect(results.getByTestId(`result-${meter.devAddr}`).getByTestId('result-code')).toHaveText('00 Success');
});
