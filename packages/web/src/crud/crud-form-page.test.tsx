import { resourceApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fail, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { fullTree, permittedTree } from '@/test/resource-tree';

const ID = 'a'.repeat(32);
const record = {
  id: ID,
  resourceName: '资源管理',
  resourceNameEn: 'Resource',
  resourceType: 1,
  resourceUri: '/sysMGT/resourceMGT',
  perms: '',
  icon: '',
  parentId: '0',
  parentName: '',
  parentNameEn: '',
  orderNum: 4,
  createTime: '2024-01-01T00:00:00.000Z',
  updateTime: '2024-01-02T00:00:00.000Z',
};
const editor = () => permittedTree(['/sysMGT/resourceMGT/add', '/sysMGT/resourceMGT/edit']);

/** The form item of a field: its label, input and error messages. */
function formItem(testId: string): HTMLElement {
  const item = screen.getByTestId(testId).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

describe('generic form on the resource entity', () => {
  it('refuses to send what the create schema refuses and shows the messages on the fields', async () => {
    const api = stubApi({
      [resourceApi.getsysresourcetree.path]: () => ok(fullTree()),
      [resourceApi.checkresourcename.path]: () => ok({ existed: false }),
    });
    const user = userEvent.setup();
    renderInShell(editor(), '/sysMGT/resourceMGT/add');

    await user.type(await screen.findByTestId('field-resourceUri'), 'no-leading-slash');
    await user.click(screen.getByTestId('crud-save'));

    // antd renders each field's message on its own tick: wait for all three, not just the first.
    await waitFor(() => {
      expect(within(formItem('field-resourceUri')).getByText('Format error')).toBeTruthy();
      expect(within(formItem('field-resourceName')).getByText('This part is mandatory')).toBeTruthy();
      expect(within(formItem('field-resourceNameEn')).getByText('This part is mandatory')).toBeTruthy();
    });
    expect(api.callsTo(resourceApi.savesysresource.path)).toHaveLength(0);
  });

  it('checks a name among its siblings as it is typed', async () => {
    const api = stubApi({
      [resourceApi.getsysresourcetree.path]: () => ok(fullTree()),
      [resourceApi.checkresourcename.path]: (body) => ok({ existed: body.resourceName === 'System' }),
    });
    const user = userEvent.setup();
    renderInShell(editor(), '/sysMGT/resourceMGT/add');

    await user.type(await screen.findByTestId('field-resourceNameEn'), 'System');

    await waitFor(() => expect(within(formItem('field-resourceNameEn')).getByText('existed')).toBeTruthy());
    expect(api.callsTo(resourceApi.checkresourcename.path).at(-1)?.body).toEqual({
      type: 1,
      resourceName: 'System',
      parentId: '0',
    });
  });

  it('loads the record to edit and maps the server conflict onto the named field, focused', async () => {
    const issues = [{ field: 'resourceNameEn', key: 'existed', message: 'existed' }];
    const api = stubApi({
      [resourceApi.getsysresourcedetail.path]: () => ok(record),
      [resourceApi.getsysresourcetree.path]: () => ok(fullTree()),
      [resourceApi.checkresourcename.path]: () => ok({ existed: false }),
      [resourceApi.updatesysresource.path]: () => fail(409, 'existed', { issues }),
    });
    const user = userEvent.setup();
    renderInShell(editor(), `/sysMGT/resourceMGT/edit?id=${ID}`);

    expect(await screen.findByDisplayValue('Resource')).toBeTruthy();
    await user.click(screen.getByTestId('crud-save'));

    await waitFor(() => expect(within(formItem('field-resourceNameEn')).getByText('existed')).toBeTruthy());
    // On a long form the save button lies far below the field the server named.
    expect(document.activeElement).toBe(screen.getByTestId('field-resourceNameEn'));
    expect(api.callsTo(resourceApi.updatesysresource.path)[0]?.body).toEqual({
      id: ID,
      parentId: '0',
      resourceType: 1,
      resourceName: '资源管理',
      resourceNameEn: 'Resource',
      resourceUri: '/sysMGT/resourceMGT',
      perms: '',
      icon: '',
      orderNum: 4,
    });
  });

  it('saves an edit and returns to the list', async () => {
    const api = stubApi({
      [resourceApi.getsysresourcedetail.path]: () => ok(record),
      [resourceApi.getsysresourcetree.path]: () => ok(fullTree()),
      [resourceApi.checkresourcename.path]: () => ok({ existed: false }),
      [resourceApi.updatesysresource.path]: () => ok(null),
      [resourceApi.getsysresourcelist.path]: () => ok({ list: [record], total: 1, curPage: 1, pageSize: 10 }),
    });
    const user = userEvent.setup();
    const { router } = renderInShell(editor(), `/sysMGT/resourceMGT/edit?id=${ID}`);

    const name = await screen.findByDisplayValue('Resource');
    await user.clear(name);
    await user.type(name, 'Resources');
    await user.click(screen.getByTestId('crud-save'));

    await waitFor(() => expect(router.state.location.pathname).toBe('/sysMGT/resourceMGT'));
    expect(api.callsTo(resourceApi.updatesysresource.path)[0]?.body).toMatchObject({ resourceNameEn: 'Resources' });
    expect(await screen.findByText('Submenu')).toBeTruthy();
  });

  it('offers add and edit on the list only with their hidden pages', async () => {
    // The other half (both offered with their pages) is in crud-list-page.test.tsx.
    stubApi({
      [resourceApi.getsysresourcelist.path]: () => ok({ list: [record], total: 1, curPage: 1, pageSize: 10 }),
    });
    renderInShell(permittedTree(['/sysMGT/resourceMGT']), '/sysMGT/resourceMGT');

    expect(await screen.findByText('资源管理')).toBeTruthy();
    expect(screen.getByTestId(`row-view-${ID}`)).toBeTruthy();
    expect(screen.queryByTestId('crud-add')).toBeNull();
    expect(screen.queryByTestId(`row-edit-${ID}`)).toBeNull();
  });
});
