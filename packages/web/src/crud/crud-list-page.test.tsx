import { resourceApi, syslogApi } from '@meterdesk/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { fail, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const ID = 'b'.repeat(32);
const child = {
  id: ID,
  resourceName: '用户管理',
  resourceNameEn: 'Users',
  resourceType: 1,
  resourceUri: '/sysMGT/userMGT',
  perms: '',
  icon: '',
  parentId: 'c'.repeat(32),
  parentName: '系统管理',
  parentNameEn: 'System',
  orderNum: 1,
  createTime: '2024-01-01T00:00:00.000Z',
  updateTime: '2024-01-02T00:00:00.000Z',
};
const page = (list: unknown[]) => ok({ list, total: list.length, curPage: 1, pageSize: 10 });

describe('generic list', () => {
  it('searches again with unchanged filters, and refreshes on request', async () => {
    const api = stubApi({ [resourceApi.getsysresourcelist.path]: () => page([child]) });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/resourceMGT']), '/sysMGT/resourceMGT');
    const calls = () => api.callsTo(resourceApi.getsysresourcelist.path).length;

    await screen.findByText('Users');
    expect(calls()).toBe(1);
    await user.click(screen.getByTestId('crud-search'));
    await waitFor(() => expect(calls()).toBe(2));
    await user.click(screen.getByTestId('crud-refresh'));
    await waitFor(() => expect(calls()).toBe(3));
    await user.type(screen.getByTestId('field-resourceNameEn'), 'Us');
    await user.click(screen.getByTestId('crud-search'));
    await waitFor(() => expect(calls()).toBe(4));
    expect(api.callsTo(resourceApi.getsysresourcelist.path)[3]?.body).toMatchObject({ resourceNameEn: 'Us' });
  });

  it('says what failed and what to do when the server fails a call, in both languages', async () => {
    stubApi({ [resourceApi.getsysresourcelist.path]: () => fail(500, 'interfaceError') });
    renderInShell(permittedTree(['/sysMGT/resourceMGT']), '/sysMGT/resourceMGT');
    expect(
      await screen.findByText(
        'The server could not complete the request. Please try again; if it keeps failing, tell your administrator when it happened',
      ),
    ).toBeTruthy();
    applyLanguage('zh');
    expect(await screen.findByText('服务器未能完成此请求。请重试；如仍失败，请告知管理员发生的时间')).toBeTruthy();
    applyLanguage('en');
  });

  it('shows the edit button on each row only with the edit page, and it opens that row', async () => {
    stubApi({ [resourceApi.getsysresourcelist.path]: () => page([child]) });
    const viewer = renderInShell(permittedTree(['/sysMGT/resourceMGT']), '/sysMGT/resourceMGT');
    await screen.findByText('Users');
    expect(screen.getByTestId(`row-view-${ID}`)).toBeTruthy();
    expect(screen.queryByTestId(`row-edit-${ID}`)).toBeNull();
    expect(screen.queryByTestId('crud-add')).toBeNull();
    viewer.unmount();

    const user = userEvent.setup();
    const { router } = renderInShell(
      permittedTree(['/sysMGT/resourceMGT', '/sysMGT/resourceMGT/edit', '/sysMGT/resourceMGT/add']),
      '/sysMGT/resourceMGT',
    );
    await user.click(await screen.findByTestId(`row-edit-${ID}`));

    await waitFor(() => expect(router.state.location.pathname).toBe('/sysMGT/resourceMGT/edit'));
    expect(router.state.location.search).toBe(`?id=${ID}`);
  });

  it.each([
    ['en', 'System'],
    ['zh', '系统管理'],
  ] as const)('names the parent in the interface language (%s)', async (language, parent) => {
    applyLanguage(language);
    stubApi({ [resourceApi.getsysresourcelist.path]: () => page([child]) });
    renderInShell(permittedTree(['/sysMGT/resourceMGT']), '/sysMGT/resourceMGT');

    expect(await screen.findByText(parent)).toBeTruthy();
  });

  it('keeps each system log row on one line, long texts cut with the whole text on hover', async () => {
    const content = `Updated user ann: ${'role, '.repeat(60)}end`;
    stubApi({
      [syslogApi.listsystemlog.path]: () =>
        page([
          {
            id: ID,
            time: '2024-01-02T03:04:05.000Z',
            logType: 'operation',
            actorKind: 'user',
            username: 'admin',
            operatingType: 'update',
            logLevel: 'info',
            content,
            result: 0,
            requestUrl: '/apis/sysuser/updatesysuser',
            ip: '127.0.0.1',
            ua: 'Mozilla/5.0',
            os: 'Linux',
            browser: 'Chromium 140',
          },
        ]),
    });
    renderInShell(permittedTree(['/sysMGT/sysJournal']), '/sysMGT/sysJournal');

    const cell = (await screen.findAllByTestId('cell-content'))[0] as HTMLElement;
    expect(cell.getAttribute('title')).toBe(content);
    const table = screen.getByTestId('syslog-list').querySelector('table') as HTMLTableElement;
    expect(table.style.tableLayout).toBe('fixed');
    const widths = [...table.querySelectorAll('colgroup col')].map((col) => (col as HTMLElement).style.width);
    expect(widths.every((width) => width !== '')).toBe(true);
    expect(cell.closest('td')?.className).toContain('ant-table-cell-ellipsis');
  });
});

describe('the list after a save', () => {
  it('keeps what is typed into the filter bar while its refreshed rows arrive', async () => {
    let release: () => void = () => undefined;
    let calls = 0;
    const api = stubApi({
      [resourceApi.getsysresourcelist.path]: async () => {
        calls += 1;
        // The refetch the save starts answers only when the test says so.
        if (calls > 1) await new Promise<void>((resolve) => (release = resolve));
        return page([child]);
      },
      [resourceApi.getsysresourcedetail.path]: () => ok(child),
      [resourceApi.getsysresourcetree.path]: () => ok([]),
      [resourceApi.checkresourcename.path]: () => ok({ existed: false }),
      [resourceApi.updatesysresource.path]: () => ok(null),
    });
    const user = userEvent.setup();
    const { router } = renderInShell(
      permittedTree(['/sysMGT/resourceMGT', '/sysMGT/resourceMGT/edit']),
      '/sysMGT/resourceMGT',
    );
    await user.click(await screen.findByTestId(`row-edit-${ID}`));
    await screen.findByDisplayValue('Users');
    await user.click(screen.getByTestId('crud-save'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/sysMGT/resourceMGT'));

    const filter = await screen.findByTestId('field-resourceNameEn');
    expect(filter.closest('[data-testid="resource-list"]')).toBeTruthy();
    await user.type(filter, 'Export');
    await waitFor(() => expect(api.callsTo(resourceApi.getsysresourcelist.path).length).toBe(2));
    release();
    await waitFor(() => expect(screen.getByTestId('crud-refresh').className).not.toContain('loading'));

    expect(screen.getByTestId('field-resourceNameEn')).toHaveProperty('value', 'Export');
  });
});
