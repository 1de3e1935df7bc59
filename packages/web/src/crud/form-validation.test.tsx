import { groupApi, orgApi, roleApi, settingsApi, userApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const emptyPage = { list: [], total: 0, curPage: 1, pageSize: 1000 };

function formItem(testId: string): HTMLElement {
  const item = screen.getByTestId(testId).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

function stubUserForm() {
  return stubApi({
    [orgApi.treesysorg.path]: () => ok([]),
    [roleApi.getsysrolelist.path]: () => ok(emptyPage),
    [groupApi.getsysgrouplist.path]: () => ok(emptyPage),
    [userApi.checkusername.path]: () => ok({ existed: false }),
  });
}

describe('form validation messages', () => {
  it.each([
    ['en', 'This part is mandatory'],
    ['zh', '此项为必填项'],
  ] as const)('a required select left empty says mandatory (%s), not the validator text', async (language, text) => {
    applyLanguage(language);
    const api = stubUserForm();
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/userMGT/add']), '/sysMGT/userMGT/add');

    await user.type(await screen.findByTestId('field-username'), 'ann');
    await user.click(screen.getByTestId('crud-save'));

    await waitFor(() => expect(within(formItem('field-orgId')).getByText(text)).toBeTruthy());
    expect(formItem('field-orgId').textContent).not.toMatch(/Invalid input|expected/);
    expect(api.callsTo(userApi.savesysuser.path)).toHaveLength(0);
  });

  it('states the limit a field broke as it is typed', async () => {
    stubApi({
      [settingsApi.getsmtpconf.path]: () => ok(null),
      [settingsApi.getsysusersubscribeconf.path]: () =>
        ok({
          subMeterEventFlag: false,
          subEmailFlag: false,
          subMsgFlag: false,
          subSpecialUserEventFlag: false,
          subExceptionFlag: false,
        }),
      [settingsApi.listdataitemconf.path]: () => ok([]),
      [settingsApi.gettariffconfiglist.path]: () => ok([]),
      [settingsApi.gettimeout.path]: () => ok({ timeout: 30 }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/systemSettings', '/sysMGT/systemSettings/save']), '/sysMGT/systemSettings');

    const port = await screen.findByTestId('field-port');
    await user.clear(port);
    await user.type(port, '70000');
    await user.type(screen.getByTestId('field-host'), 'h'.repeat(201));

    // Each field shows its message once its own validation has run: on a busy machine, one after the other.
    await waitFor(() => expect(within(formItem('field-port')).getByText('Between 0 and 65535')).toBeTruthy());
    await waitFor(() => expect(within(formItem('field-host')).getByText('At most 200 characters')).toBeTruthy());
  });
});
