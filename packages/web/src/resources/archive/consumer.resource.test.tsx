import { type Consumer, consumerApi, gridApi } from '@meterdesk/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const id = (n: number) => n.toString(16).padStart(32, 'c');
const consumer = (n: number, over: Partial<Consumer> = {}): Consumer => ({
  id: id(n),
  consumerCode: `C000${n}`,
  consumerName: `Consumer ${n}`,
  consumerType: 'residential',
  special: false,
  paymentMode: 'prepay',
  protected: false,
  gridId: id(90),
  gridName: 'Transformer T1',
  identityNumber: '',
  gender: '',
  phone: '',
  email: '',
  address: '',
  longitude: null,
  latitude: null,
  label: '',
  remark: '',
  createTime: '2024-01-01T00:00:00.000Z',
  updateTime: '2024-01-01T00:00:00.000Z',
  ...over,
});
const page = (list: unknown[]) => ok({ list, total: list.length, curPage: 1, pageSize: 10 });

describe('consumer screens', () => {
  it('marks a protected consumer in the list and filters by the flag', async () => {
    const api = stubApi({
      [consumerApi.list.path]: () => page([consumer(1, { protected: true }), consumer(2)]),
      [gridApi.tree.path]: () => ok([]),
    });
    renderInShell(permittedTree(['/archiveSetting/consumer']), '/archiveSetting/consumer');

    await screen.findByText('C0002');
    expect(screen.getAllByTestId('warning-protected')).toHaveLength(1);
    const row = screen.getByText('C0001').closest('tr');
    expect(row && within(row).getByTestId('warning-protected').textContent).toBe('Life support / medical');

    const user = userEvent.setup();
    fireEvent.mouseDown(
      within(screen.getByTestId('field-protected').closest('.ant-select') as HTMLElement).getByRole('combobox'),
    );
    await user.click(await screen.findByTitle('Yes'));
    await user.click(screen.getByTestId('crud-search'));
    await waitFor(() => expect(api.callsTo(consumerApi.list.path).at(-1)?.body).toMatchObject({ protected: 'true' }));
  });

  it('lists the POCs and their meters under the fields of the detail page', async () => {
    const pocs = [
      { id: id(11), pocNo: 'POC-1', nature: 1, devAddr: 'M000123456' },
      { id: id(12), pocNo: 'POC-2', nature: 3, devAddr: '' },
    ] as const;
    stubApi({ [consumerApi.detail.path]: () => ok(consumer(1, { protected: true, pocs: [...pocs] })) });
    renderInShell(permittedTree(['/archiveSetting/consumer/detail']), `/archiveSetting/consumer/detail?id=${id(1)}`);

    const table = await screen.findByTestId('items-pocs');
    expect(within(table).getByText('Points of connection and meters')).toBeTruthy();
    const rows = within(table)
      .getAllByRole('row')
      .map((row) => row.textContent);
    expect(rows).toEqual(['POC numberPOC natureMeter SN', 'POC-1ConsumerM000123456', 'POC-2Primary table']);
    expect(within(screen.getByTestId('consumer-detail')).getByTestId('warning-protected')).toBeTruthy();
  });
});
