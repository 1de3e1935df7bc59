import type { APIRequestContext } from '@playwright/test';
import {
  adminApi,
  call,
  confirmDialog,
  demoMeter,
  LONG_JOURNEY_MS,
  openFromMenu,
  STORED_LOGIN,
  untilOnline,
} from './helpers';
import { expect, test } from './journey';

test.use({ storageState: STORED_LOGIN.admin });

/**
 * An operation needs the consumer the meter supplies, and a disconnect one that is not protected: the
 * relay journey takes an activated meter (status 2) of such a consumer; the batch takes activated ones.
 */
async function disconnectableMeter(admin: APIRequestContext): Promise<{ id: string; devAddr: string }> {
  const [meters, protectedConsumers] = await Promise.all([
    call<{ list: { id: string; devAddr: string; consumerCode: string | null }[] }>(admin, '/meter/list', {
      status: 2,
      pageSize: 100,
      curPage: 1,
    }),
    call<{ list: { consumerCode: string }[] }>(admin, '/consumer/list', { protected: true, pageSize: 100, curPage: 1 }),
  ]);
  const guarded = new Set(protectedConsumers.list.map((c) => c.consumerCode));
  const meter = meters.list.find((m) => m.consumerCode && !guarded.has(m.consumerCode));
  if (!meter) throw new Error('no activated demo meter of an unprotected consumer');
  return meter;
}

test('disconnects and reconnects a meter from its detail page; the history lists both', async ({ page }) => {
  test.setTimeout(LONG_JOURNEY_MS);
  const admin = await adminApi();
  const meter = await disconnectableMeter(admin);
  await untilOnline(admin, meter.devAddr);
  await admin.dispose();

  await page.goto(`/archiveSetting/meter/detail?id=${meter.id}`);
  await page.getByTestId('meter-tab-operations').click();
  await page.getByTestId('op-relayDisconnect').click();
  await confirmDialog(page, `Main relay disconnect on meter ${meter.devAddr}?`);
  const results = page.getByTestId('operation-results');
  await expect(results).toContainText('Main relay disconnect');
  await expect(results.getByTestId(`result-${meter.devAddr}`).getByTestId('result-code')).toHaveText('00 Success');
  await expect(page.getByTestId('op-relayDisconnect')).not.toHaveClass(/loading/);

  // Reconnecting needs no confirmation.
  await page.getByTestId('op-relayConnect').click();
  await expect(results).toContainText('Main relay connect');
  await expect(results.getByTestId(`result-${meter.devAddr}`).getByTestId('result-code')).toHaveText('00 Success');

  const history = page.getByTestId('meter-commands');
  await history.getByTestId('meter-commands-refresh').click();
  await expect(history.getByTestId('command-relayDisconnect').getByTestId('result-code')).toHaveText('00 Success');
  await expect(history.getByTestId('command-relayConnect').getByTestId('result-code')).toHaveText('00 Success');
  await expect(history.getByTestId('command-relayConnect')).toContainText('admin');
});

test('syncs the clocks of 30 meters in one batch and watches every answer arrive', async ({ page }) => {
  test.setTimeout(LONG_JOURNEY_MS);
  const admin = await adminApi();
  await untilOnline(admin, (await demoMeter(admin, 2)).devAddr);
  await admin.dispose();

  await page.goto('/');
  await openFromMenu(page, '/serviceRequest', '/serviceRequest/batchOperation');
  const batch = page.getByTestId('batch-operation');
  await batch.getByTestId('field-status').click();
  await page.locator('.ant-select-item-option[title="Activated"]').click();
  await batch.getByTestId('crud-search').click();
  // A CI run kept 10 rows after 30 per page was picked, right after the search (cause not found; perhaps
  // the search's answer landing after the pick): picked again until the page holds 30.
  await expect(async () => {
    await batch.locator('.ant-pagination-options .ant-select').click();
    await page.locator('.ant-select-item-option', { hasText: '30 / page' }).click();
    await expect(batch.locator('tbody tr.ant-table-row')).toHaveCount(30, { timeout: 5_000 });
  }).toPass({ timeout: 60_000 });
  await batch.locator('thead .ant-checkbox-input').check();
  await expect(batch.getByTestId('batch-selected')).toHaveText('30 of at most 30 meters selected');

  await batch.getByTestId('batch-operation-select').click();
  await page.locator('.ant-select-item-option[title="Clock sync"]').click();
  // Every count the bar shows, to see the answers arrive one after another rather than all at the end.
  await page.evaluate(() => {
    const seen = new Set<string>();
    Object.assign(window, { doneSeen: seen });
    new MutationObserver(() => {
      const done = document.querySelector('[data-testid="results-progress"]')?.getAttribute('data-done');
      if (done) seen.add(done);
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await batch.getByTestId('batch-execute').click();
  await confirmDialog(page, 'Clock sync on 30 meters?');

  const progress = page.getByTestId('results-progress');
  await expect(progress).toHaveAttribute('data-total', '30');
  await expect(progress).toHaveText('30 of 30 answered', { timeout: 120_000 });
  const seen = await page.evaluate(() => [...(window as unknown as { doneSeen: Set<string> }).doneSeen].map(Number));
  expect(
    seen.filter((done) => done > 0 && done < 30),
    `counts shown: ${seen.join(', ')}`,
  ).not.toHaveLength(0);
  const codes = page.getByTestId('operation-results').getByTestId('result-code');
  await expect(codes).toHaveCount(30);
  await expect(codes.filter({ hasText: '00 Success' })).toHaveCount(30);
});
