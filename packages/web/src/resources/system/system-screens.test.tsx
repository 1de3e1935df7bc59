import { orgApi, resourceApi, roleApi, settingsApi, syslogApi, userApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { fail, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { fullTree, permittedTree } from '@/test/resource-tree';

const id = (n: number) => n.toString(16).padStart(32, 'a');
const org = (n: number, orgName: string, children: unknown[] = []) => ({
  id: id(n),
  orgName,
  orgCode: `ORG${n}`,
  pid: '0',
  remark: '',
  extendInfo: { phoneUser: 'Ann Lee', email: 'ann@example.com', phone: '+966 1', address: 'Riyadh' },
  parentName: '',
  userCount: 0,
  createTime: '2024-01-01T00:00:00.000Z',
  updateTime: '2024-01-01T00:00:00.000Z',
  children,
});

function formItem(testId: string): HTMLElement {
  const item = screen.getByTestId(testId).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

describe('group fields (organisation contact)', () => {
  it('renders the members under the group title, validates each and sends them nested', async () => {
    const api = stubApi({
      [orgApi.treesysorg.path]: () => ok([org(1, 'Head office')]),
      [orgApi.checkorgname.path]: () => ok({ existed: false }),
      [orgApi.savesysorg.path]: () => ok({ id: id(9) }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/organizationMGT/add']), `/sysMGT/organizationMGT/add?pid=${id(1)}`);

    const group = await screen.findByTestId('group-extendInfo');
    expect(group.textContent).toBe('Contact');
    expect(within(formItem('field-phoneUser')).getByText('Contact person')).toBeTruthy();
    await user.type(screen.getByTestId('field-orgName'), 'Branch');
    await user.type(screen.getByTestId('field-orgCode'), 'BR1');
    await user.type(screen.getByTestId('field-phoneUser'), 'Bo');
    await user.type(screen.getByTestId('field-email'), 'not-an-address');
    await user.click(screen.getByTestId('crud-save'));

    await waitFor(() =>
      expect(within(formItem('field-email')).getByText('Please enter a valid e-mail address')).toBeTruthy(),
    );
    expect(api.callsTo(orgApi.savesysorg.path)).toHaveLength(0);

    await user.clear(screen.getByTestId('field-email'));
    await user.type(screen.getByTestId('field-email'), 'bo@example.com');
    await user.click(screen.getByTestId('crud-save'));

    await waitFor(() => expect(api.callsTo(orgApi.savesysorg.path)).toHaveLength(1));
    expect(api.callsTo(orgApi.savesysorg.path)[0]?.body).toEqual({
      pid: id(1),
      orgName: 'Branch',
      orgCode: 'BR1',
      extendInfo: { phoneUser: 'Bo', email: 'bo@example.com', phone: '', address: '' },
      remark: '',
    });
  });

  it('shows the members in the detail view', async () => {
    stubApi({ [orgApi.getsysorgdetail.path]: () => ok(org(1, 'Head office')) });
    renderInShell(permittedTree(['/sysMGT/organizationMGT/detail']), `/sysMGT/organizationMGT/detail?id=${id(1)}`);

    const contact = await screen.findByTestId('value-extendInfo');
    expect(contact.textContent).toContain('Contact person: Ann Lee');
    expect(contact.textContent).toContain('E-mail: ann@example.com');
  });
});

describe('row actions', () => {
  it('lists organisations as a tree and shows the translated refusal of a delete', async () => {
    const api = stubApi({
      [orgApi.treesysorg.path]: () => ok([org(1, 'Head office', [org(2, 'Branch')])]),
      [orgApi.deletesysorg.path]: () => fail(409, 'orgHasChildren'),
    });
    const user = userEvent.setup();
    renderInShell(
      permittedTree(['/sysMGT/organizationMGT', '/sysMGT/organizationMGT/delete', '/sysMGT/organizationMGT/add']),
      '/sysMGT/organizationMGT',
    );

    expect(await screen.findByText('Branch')).toBeTruthy();
    expect(screen.getByTestId(`row-addChild-${id(1)}`)).toBeTruthy();
    await user.click(screen.getByTestId(`row-delete-${id(1)}`));
    await user.click(await screen.findByTestId('confirm-ok'));

    expect(await screen.findByText('This organisation still has child organisations')).toBeTruthy();
    expect(api.callsTo(orgApi.deletesysorg.path)[0]?.body).toEqual({ id: id(1) });
  });

  const person = (n: number, status: string) => ({
    id: id(n),
    username: `user${n}`,
    fullName: '',
    orgId: id(1),
    roleIdList: [],
    groupCodeList: [],
    status,
    expiryDate: '',
    gender: 0,
    birthday: '',
    phone: '',
    email: '',
    address: '',
    remark: '',
    orgName: 'Head office',
    roleNames: '',
    groupNames: '',
    lockedUntil: '',
    mustChangePassword: false,
    createTime: '2024-01-01T00:00:00.000Z',
    updateTime: '2024-01-01T00:00:00.000Z',
  });

  it('offers unlock only on locked users, and delete and reset only with their buttons', async () => {
    const users = [person(1, 'enabled'), person(2, 'locking')];
    const api = stubApi({
      [userApi.getsysuserlist.path]: () => ok({ list: users, total: 2, curPage: 1, pageSize: 10 }),
      [userApi.unlocksysuser.path]: () => ok(null),
      [userApi.deletesysuser.path]: () => ok(null),
      [userApi.resetsysuserpassword.path]: () => ok(null),
    });
    const user = userEvent.setup();
    renderInShell(
      permittedTree([
        '/sysMGT/userMGT',
        '/sysMGT/userMGT/unlock',
        '/sysMGT/userMGT/delete',
        '/sysMGT/userMGT/resetPassword',
      ]),
      '/sysMGT/userMGT',
    );

    await screen.findByText('user2');
    expect(screen.queryByTestId(`row-unlock-${id(1)}`)).toBeNull();
    await user.click(screen.getByTestId(`row-unlock-${id(2)}`));
    await user.click(await screen.findByTestId('confirm-ok'));
    await waitFor(() => expect(api.callsTo(userApi.unlocksysuser.path)[0]?.body).toEqual({ id: id(2) }));

    await user.click(screen.getByTestId(`row-delete-${id(1)}`));
    await user.click((await screen.findAllByTestId('confirm-ok')).at(-1) as HTMLElement);
    await waitFor(() =>
      expect(api.callsTo(userApi.deletesysuser.path)[0]?.body).toEqual({ id: id(1), username: 'user1' }),
    );

    await user.click(screen.getByTestId(`row-resetPassword-${id(1)}`));
    await user.type(await screen.findByTestId('field-newPassword'), 'Fresh@12');
    await user.type(screen.getByTestId('field-confirmPassword'), 'Fresh@13');
    await user.click(screen.getByTestId('reset-password-submit'));
    expect(await screen.findByText('Inconsistent new password')).toBeTruthy();
    await user.clear(screen.getByTestId('field-confirmPassword'));
    await user.type(screen.getByTestId('field-confirmPassword'), 'Fresh@12');
    await user.click(screen.getByTestId('reset-password-submit'));
    await waitFor(() =>
      expect(api.callsTo(userApi.resetsysuserpassword.path)[0]?.body).toEqual({ id: id(1), newPassword: 'Fresh@12' }),
    );
  });

  it('warns in the form, without refusing, while the user is in no user group (they would see no grid records)', async () => {
    const api = stubApi({
      [userApi.getsysuserdetail.path]: () => ok({ ...person(1, 'enabled'), groupCodeList: ['G1'] }),
      [userApi.updatesysuser.path]: () => ok(null),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/userMGT', '/sysMGT/userMGT/edit']), `/sysMGT/userMGT/edit?id=${id(1)}`);
    await screen.findByTestId('field-groupCodeList');
    const groups = formItem('field-groupCodeList');
    expect(within(groups).getByText('G1')).toBeTruthy();
    expect(within(groups).queryByRole('alert')).toBeNull();

    await user.click(groups.querySelector('.ant-select-selection-item-remove') as HTMLElement);
    expect(await within(groups).findByText(/^In no user group, this user sees no power grid/)).toBeTruthy();
    applyLanguage('zh');
    expect(await within(groups).findByText(/^未选择用户组：该用户将看不到任何电网/)).toBeTruthy();
    applyLanguage('en');
    await user.click(screen.getByTestId('crud-save'));
    await waitFor(() => expect(api.callsTo(userApi.updatesysuser.path)[0]?.body).toMatchObject({ groupCodeList: [] }));
  }, 30_000);

  it('shows no delete, unlock or reset without their buttons', async () => {
    stubApi({
      [userApi.getsysuserlist.path]: () => ok({ list: [person(2, 'locking')], total: 1, curPage: 1, pageSize: 10 }),
    });
    renderInShell(permittedTree(['/sysMGT/userMGT']), '/sysMGT/userMGT');

    await screen.findByText('user2');
    expect(screen.getByTestId(`row-view-${id(2)}`)).toBeTruthy();
    for (const action of ['unlock', 'delete', 'resetPassword', 'edit']) {
      expect(screen.queryByTestId(`row-${action}-${id(2)}`), action).toBeNull();
    }
  });
});

describe('role resources', () => {
  it('sends a checked page with its whole branch and its ancestors', async () => {
    const tree = fullTree();
    const sysMGT = tree.find((node) => node.resourceUri === '/sysMGT')!;
    const resourceMGT = sysMGT.children.find((node) => node.resourceUri === '/sysMGT/resourceMGT')!;
    const api = stubApi({
      [resourceApi.getsysresourcetree.path]: () => ok(tree),
      [roleApi.checkrolename.path]: () => ok({ existed: false }),
      [roleApi.savesysrole.path]: () => ok({ id: id(5) }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/roleMGT/add']), '/sysMGT/roleMGT/add');

    await user.type(await screen.findByTestId('field-roleName'), 'Auditor');
    const node = (await screen.findByTestId(`tree-node-${resourceMGT.id}`)).closest('.ant-tree-treenode');
    await user.click(node?.querySelector('.ant-tree-checkbox') as HTMLElement);
    await user.click(screen.getByTestId('crud-save'));

    await waitFor(() => expect(api.callsTo(roleApi.savesysrole.path)).toHaveLength(1));
    expect(api.callsTo(roleApi.savesysrole.path)[0]?.body).toEqual({
      roleName: 'Auditor',
      remark: '',
      resourceIdList: [sysMGT.id, resourceMGT.id, ...resourceMGT.children.map((child) => child.id)],
    });
  });
});

describe('system log', () => {
  it('asks for the last 7 days by default and exports the same filters without paging', async () => {
    const api = stubApi({
      [syslogApi.listsystemlog.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
      [syslogApi.exportsystemlog.path]: () => fail(400, 'timeRangeTooLong'),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/sysJournal', '/sysMGT/sysJournal/export']), '/sysMGT/sysJournal');

    await waitFor(() => expect(api.callsTo(syslogApi.listsystemlog.path)).toHaveLength(1));
    const body = api.callsTo(syslogApi.listsystemlog.path)[0]?.body as Record<string, string>;
    const days = (Date.parse(body.endTime ?? '') - Date.parse(body.startTime ?? '')) / 86_400_000;
    expect(Math.round(days)).toBe(7);
    expect(body).toMatchObject({ curPage: 1, pageSize: 10 });

    await user.click(screen.getByTestId('crud-export'));

    expect(await screen.findByText('The time range is too long')).toBeTruthy();
    expect(api.callsTo(syslogApi.exportsystemlog.path)[0]?.body).toEqual({
      startTime: body.startTime,
      endTime: body.endTime,
    });
  });

  it('offers no export without the export button', async () => {
    stubApi({ [syslogApi.listsystemlog.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }) });
    renderInShell(permittedTree(['/sysMGT/sysJournal']), '/sysMGT/sysJournal');

    await screen.findByTestId('syslog-list');
    expect(screen.queryByTestId('crud-export')).toBeNull();
  });
});

/** What the settings page asks for when it opens, answered as a fresh installation would. */
const settingsAnswers = (subscriptions: Record<string, boolean> = {}) => ({
  [settingsApi.getsmtpconf.path]: () => ok(null),
  [settingsApi.getsysusersubscribeconf.path]: () =>
    ok({
      subMeterEventFlag: false,
      subEmailFlag: false,
      subMsgFlag: false,
      subSpecialUserEventFlag: false,
      subExceptionFlag: false,
      ...subscriptions,
    }),
  [settingsApi.listdataitemconf.path]: () => ok([]),
  [settingsApi.gettariffconfiglist.path]: () => ok([]),
  [settingsApi.gettimeout.path]: () => ok({ timeout: 30 }),
  [settingsApi.getlogretention.path]: () => ok({ days: 180 }),
  [settingsApi.getreadingsretention.path]: () => ok({ months: 36 }),
});

describe('system settings', () => {
  it('lets anyone save their own subscriptions but the rest only with the save button', async () => {
    const flags = {
      subMeterEventFlag: true,
      subEmailFlag: false,
      subMsgFlag: false,
      subSpecialUserEventFlag: false,
      subExceptionFlag: false,
    };
    const api = stubApi({
      ...settingsAnswers(flags),
      [settingsApi.updatesysUsersubscribeconf.path]: () => ok(null),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/systemSettings']), '/sysMGT/systemSettings');

    await user.click(await screen.findByTestId('field-subEmailFlag'));
    await user.click(screen.getByTestId('settings-save-subscribe'));

    await waitFor(() =>
      expect(api.callsTo(settingsApi.updatesysUsersubscribeconf.path)[0]?.body).toEqual({
        ...flags,
        subEmailFlag: true,
      }),
    );
    for (const save of ['smtp', 'tariff', 'timeout', 'log-retention', 'readings-retention', 'dataItems']) {
      expect(screen.queryByTestId(`settings-save-${save}`), save).toBeNull();
    }
  });
});

describe('data items', () => {
  const item = (n: number, obis: string, itemNameEn: string, unit: string) => ({
    id: id(n),
    itemName: itemNameEn,
    itemNameEn,
    obis,
    classId: 3,
    // What an older server still sends beside the item; the screen shows the catalogue's unit.
    unit,
    enabled: true,
    orderNum: n,
  });

  it("shows each item's unit as the OBIS catalogue has it, the unit its readings are in", async () => {
    stubApi({
      ...settingsAnswers(),
      [settingsApi.listdataitemconf.path]: () =>
        ok([
          item(1, '0.0.1.0.0.255', 'Clock', ''),
          item(2, '1.0.1.8.0.255', 'Active energy import (+A) total', 'kWh'),
          item(3, '1.0.1.7.0.255', 'Active power', 'kW'),
          item(4, '1.0.32.7.0.255', 'Voltage L1', 'V'),
        ]),
    });
    renderInShell(permittedTree(['/sysMGT/systemSettings']), '/sysMGT/systemSettings');
    const card = await screen.findByTestId('settings-dataItems');
    const unitOf = async (name: string) =>
      ((await within(card).findByText(name)).closest('tr') as HTMLElement).querySelectorAll('td')[2]?.textContent;
    expect(await unitOf('Active energy import (+A) total')).toBe('Wh');
    expect(await unitOf('Active power')).toBe('W');
    expect(await unitOf('Voltage L1')).toBe('V');
    expect(await unitOf('Clock')).toBe('');
  });
});

describe('SMTP test e-mail', () => {
  const stubSettings = () =>
    stubApi({
      ...settingsAnswers(),
      [settingsApi.checkifcansendemail.path]: () =>
        fail(400, 'sendFailure', {
          reason: 'smtpAuthFailed',
          message: 'The mail server refused the username or password',
        }),
    });
  const sendTest = async () => {
    renderInShell(permittedTree(['/sysMGT/systemSettings']), '/sysMGT/systemSettings');
    await userEvent.setup().click(await screen.findByTestId('settings-test-email'));
  };

  it('says why the server could not send it', async () => {
    const api = stubSettings();
    await sendTest();
    expect(
      await screen.findByText('The test e-mail was not sent: The mail server refused the username or password'),
    ).toBeTruthy();
    expect(api.callsTo(settingsApi.checkifcansendemail.path)).toHaveLength(1);
  });

  it('says it in Chinese when the interface speaks Chinese', async () => {
    applyLanguage('zh');
    stubSettings();
    await sendTest();
    expect(await screen.findByText('测试邮件未发送：邮件服务器拒绝了用户名或密码')).toBeTruthy();
  });
});

describe('system log retention', () => {
  it('shows the kept days and saves a new number with the save button', async () => {
    const api = stubApi({
      ...settingsAnswers(),
      [settingsApi.updatelogretention.path]: () => ok(null),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/systemSettings', '/sysMGT/systemSettings/save']), '/sysMGT/systemSettings');

    const days = await within(await screen.findByTestId('settings-logRetention')).findByRole('spinbutton');
    await waitFor(() => expect((days as HTMLInputElement).value).toBe('180'));
    await user.clear(days);
    await user.type(days, '90');
    await user.click(screen.getByTestId('settings-save-log-retention'));
    await waitFor(() => expect(api.callsTo(settingsApi.updatelogretention.path)[0]?.body).toEqual({ days: 90 }));
  });
});

describe('readings retention', () => {
  it('shows the kept months and saves a new number with the save button', async () => {
    const api = stubApi({
      ...settingsAnswers(),
      [settingsApi.updatereadingsretention.path]: () => ok(null),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/systemSettings', '/sysMGT/systemSettings/save']), '/sysMGT/systemSettings');

    const months = await within(await screen.findByTestId('settings-readingsRetention')).findByRole('spinbutton');
    await waitFor(() => expect((months as HTMLInputElement).value).toBe('36'));
    await user.clear(months);
    await user.type(months, '24');
    await user.click(screen.getByTestId('settings-save-readings-retention'));
    await waitFor(() => expect(api.callsTo(settingsApi.updatereadingsretention.path)[0]?.body).toEqual({ months: 24 }));
  });
});
