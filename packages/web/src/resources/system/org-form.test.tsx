import { orgApi } from '@meterdesk/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fail, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const id = (n: number) => n.toString(16).padStart(32, 'a');
const org = (n: number, orgName: string, pid: string, children: unknown[] = []) => ({
  id: id(n),
  orgName,
  orgCode: `ORG${n}`,
  pid,
  remark: '',
  extendInfo: { phoneUser: '', email: '', phone: '', address: '' },
  parentName: '',
  userCount: 0,
  createTime: '2024-01-01T00:00:00.000Z',
  updateTime: '2024-01-01T00:00:00.000Z',
  children,
});
const branch = org(2, 'Branch', id(1), [org(4, 'Depot', id(2))]);
const tree = [org(1, 'Head office', '0', [branch, org(3, 'Other branch', id(1))])];

function formItem(testId: string): HTMLElement {
  const item = screen.getByTestId(testId).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

/** The tree picker's option row of a title, once the picker is open. */
function treeNode(title: string): HTMLElement {
  const dropdown = document.querySelector('.ant-select-tree');
  if (!(dropdown instanceof HTMLElement)) throw new Error('the tree picker is not open');
  const node = within(dropdown).getByTitle(title).closest('.ant-select-tree-treenode');
  if (!(node instanceof HTMLElement)) throw new Error(`no tree node ${title}`);
  return node;
}

describe('organisation form', () => {
  it('does not offer the organisation itself or one below it as its parent', async () => {
    stubApi({
      [orgApi.treesysorg.path]: () => ok(tree),
      [orgApi.getsysorgdetail.path]: () => ok(branch),
      [orgApi.checkorgname.path]: () => ok({ existed: false }),
    });
    renderInShell(permittedTree(['/sysMGT/organizationMGT/edit']), `/sysMGT/organizationMGT/edit?id=${id(2)}`);

    await screen.findByDisplayValue('Branch');
    const user = userEvent.setup();
    const picker = within(formItem('field-pid')).getByRole('combobox');
    fireEvent.mouseDown(picker);
    // Searching opens the branches down to what matches.
    await user.type(picker, 'Depot');
    await waitFor(() => expect(screen.getByTitle('Depot')).toBeTruthy());
    expect(treeNode('Branch').className).toContain('ant-select-tree-treenode-disabled');
    expect(treeNode('Depot').className).toContain('ant-select-tree-treenode-disabled');

    await user.clear(picker);
    await user.type(picker, 'Other');
    await waitFor(() => expect(screen.getByTitle('Other branch')).toBeTruthy());
    expect(treeNode('Other branch').className).not.toContain('disabled');
    expect(treeNode('Head office').className).not.toContain('disabled');
  });

  it('says organisation, not resource, when the server refuses a parent below the organisation', async () => {
    stubApi({
      [orgApi.treesysorg.path]: () => ok(tree),
      [orgApi.getsysorgdetail.path]: () => ok(branch),
      [orgApi.checkorgname.path]: () => ok({ existed: false }),
      [orgApi.updatesysorg.path]: () =>
        fail(400, 'orgParentCycle', {
          issues: [{ field: 'pid', key: 'orgParentCycle', message: 'An organisation cannot sit under itself' }],
        }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/organizationMGT/edit']), `/sysMGT/organizationMGT/edit?id=${id(2)}`);

    await screen.findByDisplayValue('Branch');
    await user.click(screen.getByTestId('crud-save'));

    await waitFor(() =>
      expect(
        within(formItem('field-pid')).getByText('An organisation cannot sit under itself or its descendants'),
      ).toBeTruthy(),
    );
  });
});
