import { type GridNode, gridApi } from '@meterdesk/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { ok, stubApi } from '@/test/api-stub';
import { gridNode } from '@/test/grid-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const PAGE = '/archiveSetting/powerGrid';
const id = (n: number) => n.toString(16).padStart(32, 'b');
const node = (
  n: number,
  gridName: string,
  gridType: GridNode['gridType'],
  parentId: string,
  children: GridNode[] = [],
) =>
  gridNode(id(n), gridName, parentId, children, { gridCode: `G${n}`, gridType, capacity: gridType === 3 ? 400 : null });
const tree = [
  node(1, 'Central Region', 0, '0', [node(2, 'Feeder F1', 2, id(1), [node(3, 'Transformer T1', 3, id(2))])]),
];

function formItem(testId: string): HTMLElement {
  const item = screen.getByTestId(testId).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

describe('power grid page', () => {
  it('shows the tree with each type by its label; a transformer area takes no child; a refused delete says why', async () => {
    const api = stubApi({
      [gridApi.tree.path]: () => ok(tree),
      [gridApi.delete.path]: () => ok({ deleted: 0, failures: [{ id: id(2), name: 'G2', key: 'gridHasChildren' }] }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([PAGE, `${PAGE}/add`, `${PAGE}/delete`]), PAGE);

    expect(await screen.findByText('Transformer T1')).toBeTruthy();
    expect(screen.getByText('Region')).toBeTruthy();
    expect(screen.getByText('Feeder')).toBeTruthy();
    expect(screen.getByText('Transformer area')).toBeTruthy();
    expect(screen.getByTestId(`row-addChild-${id(2)}`)).toBeTruthy();
    expect(screen.queryByTestId(`row-addChild-${id(3)}`)).toBeNull();

    await user.click(screen.getByTestId(`row-delete-${id(2)}`));
    await user.click(await screen.findByTestId('confirm-ok'));
    expect(await screen.findByText('This node still has nodes below it')).toBeTruthy();
    expect(api.callsTo(gridApi.delete.path)[0]?.body).toEqual({ ids: [id(2)] });
  });

  it('names the types in Chinese in a Chinese interface', async () => {
    applyLanguage('zh');
    stubApi({ [gridApi.tree.path]: () => ok(tree) });
    renderInShell(permittedTree([PAGE]), PAGE);
    expect(await screen.findByText('台区')).toBeTruthy();
    expect(screen.getByText('区域')).toBeTruthy();
  });

  it('adds a child under the node it was opened from', async () => {
    const api = stubApi({
      [gridApi.tree.path]: () => ok(tree),
      [gridApi.check.path]: () => ok({ existed: false }),
      [gridApi.save.path]: () => ok({ id: id(9) }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([PAGE, `${PAGE}/add`]), `${PAGE}/add?parentId=${id(2)}`);

    await waitFor(() => expect(within(formItem('field-parentId')).getByText('Feeder F1')).toBeTruthy());
    await user.type(screen.getByTestId('field-gridCode'), 'T2');
    await user.type(screen.getByTestId('field-gridName'), 'Transformer T2');
    fireEvent.mouseDown(within(formItem('field-gridType')).getByRole('combobox'));
    await user.click(await screen.findByTitle('Transformer area'));
    await user.type(screen.getByTestId('field-capacity'), '630');
    expect(within(formItem('field-capacity')).getByText('Transformer areas only')).toBeTruthy();
    await user.click(screen.getByTestId('crud-save'));

    await waitFor(() => expect(api.callsTo(gridApi.save.path)).toHaveLength(1));
    expect(api.callsTo(gridApi.save.path)[0]?.body).toEqual({
      parentId: id(2),
      gridCode: 'T2',
      gridName: 'Transformer T2',
      gridType: 3,
      capacity: 630,
      primaryPocId: null,
      remark: '',
    });
  });
});
