import { PREPAID_RES, type PrepaidAccount, prepaidApi, type Recharge } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fail, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const METER = 'a'.repeat(32);
const match = {
  meterId: METER,
  devAddr: 'PRE00001',
  consumerId: 'b'.repeat(32),
  consumerCode: 'C0001',
  consumerName: 'Alice',
  gridName: 'North',
};
const account: PrepaidAccount = {
  ...match,
  ledgerBalance: 20,
  meterCredit: 0,
  meterCreditTime: null,
  relayState: 0,
  online: true,
  overdraftAllowed: false,
  overdraftLimit: 0,
  friendlyTime: { hours: [{ from: '22:00', to: '06:00' }], weekdays: [], holidays: [] },
};
const recharge: Recharge = {
  id: 'c'.repeat(32),
  meterId: METER,
  devAddr: 'PRE00001',
  consumerCode: 'C0001',
  consumerName: 'Alice',
  amount: 12.5,
  allowOverdraft: false,
  state: 'recharging',
  failure: null,
  tokens: [{ digits: '12345678901234567890', tid: 1, amount: 12.5 }],
  meterCredit: null,
  createdBy: 'admin',
  createTime: '2026-11-28T04:00:00Z',
  finishTime: null,
  deadline: '2026-11-29T04:00:00Z',
};

describe('the prepaid recharge page', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('refuses an amount over 500, asks the password before sending, keeps one client key across a retry and shows the receipt', async () => {
    let refuseOnce = true;
    const api = stubApi({
      [prepaidApi.find.path]: () => ok([match]),
      [prepaidApi.account.path]: () => ok(account),
      [prepaidApi.history.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
      [prepaidApi.exceptions.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
      [prepaidApi.recharge.path]: () => {
        if (!refuseOnce) return ok(recharge);
        refuseOnce = false;
        return fail(400, 'operatorPasswordWrong', {
          issues: [{ field: 'password', key: 'operatorPasswordWrong', message: '' }],
        });
      },
      [prepaidApi.detail.path]: () => ok({ ...recharge, state: 'succeeded', meterCredit: 12.5 }),
    });
    renderInShell(permittedTree([PREPAID_RES.page, PREPAID_RES.recharge]), PREPAID_RES.page);
    const user = userEvent.setup();
    await user.type(await screen.findByPlaceholderText('Meter serial, consumer number or name'), 'PRE{Enter}');
    await user.click(await screen.findByText('PRE00001'));
    const card = await screen.findByTestId('prepaid-account');
    expect(within(card).getByText('Hours 22:00–06:00')).toBeTruthy();

    await user.type(screen.getByTestId('recharge-amount'), '500.01');
    await user.click(screen.getByTestId('recharge-submit'));
    expect(await screen.findByText('Please enter between 0~500')).toBeTruthy();
    expect(api.callsTo(prepaidApi.recharge.path)).toHaveLength(0);

    await user.clear(screen.getByTestId('recharge-amount'));
    await user.type(screen.getByTestId('recharge-amount'), '12.5');
    await user.click(screen.getByTestId('recharge-submit'));
    await user.type(await screen.findByTestId('recharge-password'), 'wrong');
    await user.click(screen.getByTestId('recharge-confirm'));
    expect(await screen.findByText('The password is wrong')).toBeTruthy();
    await user.clear(screen.getByTestId('recharge-password'));
    await user.type(screen.getByTestId('recharge-password'), 'right');
    await user.click(screen.getByTestId('recharge-confirm'));

    const receipt = await screen.findByTestId('recharge-receipt');
    expect(within(receipt).getByText(/1234 5678 9012 3456 7890/)).toBeTruthy();
    await waitFor(() => expect(within(receipt).getByTestId('recharge-state').dataset.state).toBe('succeeded'));
    const [first, second] = api.callsTo(prepaidApi.recharge.path).map((c) => c.body);
    expect(first).toMatchObject({ meterId: METER, amount: 12.5, allowOverdraft: false, password: 'wrong' });
    expect(second).toMatchObject({ password: 'right', clientKey: first?.clientKey });
    expect(String(first?.clientKey)).toMatch(/^[0-9a-f]{32}$/);
  });
});
