import {
  GRID_RES,
  gridApi,
  MAX_OPTIONS,
  METER_RES,
  type Meter,
  meterApi,
  meterTypeApi,
  moduleApi,
  pocApi,
  supplierApi,
} from '@meterdesk/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const id = (n: number) => n.toString(16).padStart(32, 'c');
const moduleNo = (n: number) => `MOD-${String(n).padStart(4, '0')}`;
const option = (n: number, label: string, more: Record<string, unknown> = {}) => ({ id: id(n), label, ...more });

const meter: Meter = {
  id: id(1),
  devAddr: '610000000001',
  gridId: id(2),
  gridName: 'Transformer T1',
  meterTypeId: null,
  meterTypeName: null,
  supplierId: null,
  supplierName: null,
  status: 1,
  commType: null,
  authType: 'none',
  securityType: 0,
  hesPasswordSet: false,
  dataChannel: '',
  interfaceType: null,
  virtual: false,
  meterBoxNo: '',
  // The 501st module: far past any first page of the picker.
  moduleId: id(501),
  moduleNo: moduleNo(501),
  dcuId: null,
  dcuNo: null,
  pocNo: null,
  consumerCode: null,
  consumerName: null,
  linkState: 'offline',
  lastCommTime: null,
  relayState: null,
  lastReading: null,
  lastReadTime: null,
  tariffId: null,
  tariffName: null,
  longitude: null,
  latitude: null,
  remark: '',
  createTime: '2026-01-01T00:00:00.000Z',
  updateTime: '2026-01-01T00:00:00.000Z',
};

const grid = [
  {
    id: id(2),
    gridCode: 'T1',
    gridName: 'Transformer T1',
    gridType: 3,
    parentId: '0',
    parentName: '',
    capacity: 400,
    primaryPocId: id(70),
    primaryPocNo: 'PRI-0070',
    remark: '',
    createTime: '2026-01-01T00:00:00.000Z',
    updateTime: '2026-01-01T00:00:00.000Z',
    children: [],
  },
];

function formItem(testId: string): HTMLElement {
  const item = screen.getByTestId(testId).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

/** The module picker's server: the first page of free modules, the named ones first, or the keyword's matches. */
function modules(body: Record<string, unknown>) {
  const named = (body.ids as string[]).includes(id(501)) ? [option(501, moduleNo(501))] : [];
  if (body.keyword === 'MOD-07') return ok({ list: [...named, option(700, moduleNo(700))], more: false });
  const firstPage = Array.from({ length: MAX_OPTIONS }, (_, n) => option(n + 10, moduleNo(n + 10)));
  return ok({ list: [...named, ...firstPage], more: true });
}

describe('archive pickers in the generic form', () => {
  it('labels the edited meter’s module from the server and searches modules as the user types', async () => {
    const api = stubApi({
      [meterApi.detail.path]: () => ok(meter),
      [gridApi.tree.path]: () => ok(grid),
      [moduleApi.options.path]: modules,
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([METER_RES.edit]), `${METER_RES.edit}?id=${meter.id}`);

    const picker = await screen.findByTestId('field-moduleId');
    await waitFor(() => expect(within(picker).getByText(moduleNo(501))).toBeTruthy());
    expect(api.callsTo(moduleApi.options.path)[0]?.body).toEqual({ free: true, keyword: '', ids: [id(501)] });

    await user.click(within(picker).getByRole('combobox'));
    expect(await screen.findByTestId('narrow-moduleId')).toBeTruthy();
    expect(screen.getByTestId('narrow-moduleId').textContent).toBe(
      `Only the first ${MAX_OPTIONS} matches are shown: type more to narrow the search`,
    );
    await user.keyboard('MOD-07');
    await user.click(await screen.findByText(moduleNo(700)));
    await waitFor(() => expect(within(picker).getByText(moduleNo(700))).toBeTruthy());
    expect(api.callsTo(moduleApi.options.path).map((call) => call.body)).toContainEqual({
      free: true,
      keyword: 'MOD-07',
      ids: [id(501)],
    });
    expect(screen.queryByTestId('narrow-moduleId')).toBeNull();
  });

  it('sets the supplier to the chosen meter type’s, and saves both', async () => {
    const api = stubApi({
      [meterApi.detail.path]: () => ok(meter),
      [gridApi.tree.path]: () => ok(grid),
      [moduleApi.options.path]: modules,
      [meterTypeApi.options.path]: () =>
        ok({ list: [option(40, 'DDS666 · Kestrel', { supplierId: id(41) })], more: false }),
      [supplierApi.options.path]: (body) =>
        ok({ list: (body.ids as string[]).includes(id(41)) ? [option(41, 'Kestrel (K1)')] : [], more: false }),
      [meterApi.update.path]: () => ok(null),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([METER_RES.page, METER_RES.edit]), `${METER_RES.edit}?id=${meter.id}`);

    const type = await screen.findByTestId('field-meterTypeId');
    fireEvent.mouseDown(within(type).getByRole('combobox'));
    await user.click(await screen.findByText('DDS666 · Kestrel'));
    await waitFor(() => expect(within(formItem('field-supplierId')).getByText('Kestrel (K1)')).toBeTruthy());

    await user.click(screen.getByTestId('crud-save'));
    await waitFor(() => expect(api.callsTo(meterApi.update.path)).toHaveLength(1));
    expect(api.callsTo(meterApi.update.path)[0]?.body).toMatchObject({ meterTypeId: id(40), supplierId: id(41) });
  });

  it('offers a transformer area the primary-table POCs placed in it, labelling its own', async () => {
    const api = stubApi({
      [gridApi.tree.path]: () => ok(grid),
      [gridApi.detail.path]: () => ok(grid[0]),
      [pocApi.options.path]: () => ok({ list: [option(70, 'PRI-0070')], more: false }),
    });
    renderInShell(permittedTree([GRID_RES.page, GRID_RES.edit]), `${GRID_RES.edit}?id=${id(2)}`);

    const picker = await screen.findByTestId('field-primaryPocId');
    await waitFor(() => expect(within(picker).getByText('PRI-0070')).toBeTruthy());
    expect(api.callsTo(pocApi.options.path)[0]?.body).toEqual({ nature: 3, gridId: id(2), keyword: '', ids: [id(70)] });
  });

  it('keeps the primary-table POC picker shut on a node not saved yet', async () => {
    const api = stubApi({ [gridApi.tree.path]: () => ok(grid) });
    renderInShell(permittedTree([GRID_RES.page, GRID_RES.add]), `${GRID_RES.add}?parentId=${id(2)}`);

    const picker = await screen.findByTestId('field-primaryPocId');
    expect(picker.className).toContain('ant-select-disabled');
    expect(api.callsTo(pocApi.options.path)).toEqual([]);
  });
});
