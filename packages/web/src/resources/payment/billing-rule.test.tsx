import { billingRuleApi, gridApi, meterApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const PAGE = '/paymentMGT/billingRules';

const rule = {
  id: 'a'.repeat(32),
  ruleNo: 'R001',
  ruleName: 'Mall A',
  gridId: 'b'.repeat(32),
  gridName: 'North',
  handlingFee: 2.5,
  taxes: 13,
  roundingBase: 0.01,
  chargeMode: 'percentage',
  fixedAmount: null,
  percentage: 5,
  mainMeterId: 'c'.repeat(32),
  mainDevAddr: 'MAIN0001',
  tenantMeterIds: ['d'.repeat(32), 'e'.repeat(32)],
  tenantDevAddrs: 'TEN00001, TEN00002',
  tenantCount: 2,
  solarMeterIds: [],
  solarDevAddrs: null,
  solarCount: 0,
  remark: '',
  createTime: '2026-11-01T00:00:00.000Z',
  updateTime: '2026-11-01T00:00:00.000Z',
};

function formItem(testId: string): HTMLElement {
  const item = screen.getByTestId(testId).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

describe('billing rules', () => {
  afterEach(() => {
    applyLanguage('en');
    vi.unstubAllGlobals();
  });

  it('opens from the Payment area and lists the rules with their charge mode and meters', async () => {
    stubApi({ [billingRuleApi.list.path]: () => ok({ list: [rule], total: 1, curPage: 1, pageSize: 10 }) });
    renderInShell(permittedTree([PAGE]), '/paymentMGT');
    const cell = await screen.findByText('Mall A');
    const row = cell.closest('tr') as HTMLElement;
    expect(within(row).getByText('Percentage')).toBeTruthy();
    expect(within(row).getByText('MAIN0001')).toBeTruthy();
    expect(screen.getByTestId('crud-refresh')).toBeTruthy();
    expect(screen.queryByTestId('later-release')).toBeNull();
  });

  it.each([
    ['en', 'Rule name already exists', 'Rounding base cannot be 0', 'Between 0 and 100'],
    ['zh', '规则名称已存在', '舍入基数不能为 0', '应在 0 到 100 之间'],
  ] as const)(
    'refuses a taken name, a rounding base of 0 and a percentage over 100 before saving (%s)',
    async (language, taken, zero, range) => {
      applyLanguage(language);
      const api = stubApi({
        [billingRuleApi.check.path]: () => ok({ existed: true }),
        [gridApi.tree.path]: () => ok([]),
        [meterApi.options.path]: () => ok({ list: [], more: false }),
      });
      const user = userEvent.setup();
      renderInShell(permittedTree([PAGE, `${PAGE}/add`]), `${PAGE}/add`);

      await user.type(await screen.findByTestId('field-ruleName'), 'Mall A');
      await user.type(screen.getByTestId('field-roundingBase'), '0');
      await user.type(screen.getByTestId('field-percentage'), '101');
      await user.click(screen.getByTestId('crud-save'));

      await waitFor(() => expect(within(formItem('field-ruleName')).getByText(taken)).toBeTruthy());
      await waitFor(() => expect(within(formItem('field-roundingBase')).getByText(zero)).toBeTruthy());
      await waitFor(() => expect(within(formItem('field-percentage')).getByText(range)).toBeTruthy());
      expect(api.callsTo(billingRuleApi.save.path)).toHaveLength(0);
    },
  );
});
