import { DCU_RES, type Dcu, dcuApi, meterApi, POC_RES, type Poc, pocApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const id = (n: number) => n.toString(16).padStart(32, '0');
const page = <T,>(list: T[]) => ({ list, total: list.length, curPage: 1, pageSize: 10 });

const poc: Poc = {
  id: id(1),
  pocNo: 'POC10000',
  nature: 1,
  ctRatio: 1,
  ptRatio: 1,
  capacity: null,
  syncStatus: 0,
  registration: 'registered',
  tariffId: null,
  tariffName: null,
  taskGroupId: null,
  consumerId: null,
  consumerCode: '',
  consumerName: '',
  meterId: id(7),
  devAddr: '610000000007',
  dcuId: null,
  dcuNo: '',
  gridId: id(9),
  gridName: 'Transformer T1',
  remark: '',
  createTime: '2026-01-01T00:00:00.000Z',
  updateTime: '2026-01-01T00:00:00.000Z',
};

const replacement = (seq: number, oldDevAddr: string, newDevAddr: string) => ({
  id: id(100 + seq),
  seq,
  name: `PRE${seq}`,
  oldDevAddr,
  newDevAddr,
  oldActiveTotal: 1000 * seq,
  oldReactiveTotal: 10,
  newActiveTotal: 0,
  newReactiveTotal: 0,
  changer: 'admin',
  changeTime: '2026-02-01T00:00:00.000Z',
});

describe('POC screens', () => {
  it('shows the replacements under the detail, PRE1 first', async () => {
    const api = stubApi({
      [pocApi.detail.path]: () => ok(poc),
      [pocApi.history.path]: () =>
        ok([replacement(1, '610000000001', '610000000005'), replacement(2, '610000000005', '610000000007')]),
    });
    renderInShell(permittedTree([POC_RES.detail]), `${POC_RES.detail}?id=${poc.id}`);

    const history = await screen.findByTestId('related-replacements');
    await waitFor(() => expect(within(history).getAllByRole('row')).toHaveLength(3));
    const rows = within(history).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[0]?.textContent)).toEqual(['PRE1', 'PRE2']);
    expect(rows[0]?.textContent).toContain('610000000001');
    expect(
      within(history)
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toContain('Old meter');
    expect(api.callsTo(pocApi.history.path)[0]?.body).toEqual({ id: poc.id });
  });

  it("labels the edited POC's meter from the server and searches meters as the user types", async () => {
    const api = stubApi({
      [pocApi.detail.path]: () => ok(poc),
      [meterApi.options.path]: (body) =>
        ok({
          list: [
            ...((body.ids as string[]).includes(poc.meterId as string) ? [{ id: id(7), label: '610000000007' }] : []),
            ...(body.keyword === '0042' ? [{ id: id(42), label: '610000000042' }] : []),
          ],
          more: false,
        }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([POC_RES.edit]), `${POC_RES.edit}?id=${poc.id}`);

    const meter = await screen.findByTestId('field-meterId');
    await waitFor(() => expect(within(meter).getByText('610000000007')).toBeTruthy());
    await user.click(within(meter).getByRole('combobox'));
    await user.keyboard('0042');
    expect(await screen.findByText('610000000042')).toBeTruthy();
    expect(api.callsTo(meterApi.options.path).map((call) => call.body)).toContainEqual({
      free: true,
      keyword: '0042',
      ids: [id(7)],
    });
  });

  it('offers replace only to holders of its page and only where a meter is to be replaced', async () => {
    const noMeter = { ...poc, id: id(2), pocNo: 'POC10001', meterId: null, devAddr: '' };
    stubApi({ [pocApi.list.path]: () => ok(page([poc, noMeter])) });
    renderInShell(permittedTree([POC_RES.page, POC_RES.replace]), POC_RES.page);
    expect(await screen.findByTestId(`row-replace-${poc.id}`)).toBeTruthy();
    expect(screen.queryByTestId(`row-replace-${noMeter.id}`)).toBeNull();
  });
});

describe('DCU screens', () => {
  const dcu: Dcu = {
    id: id(3),
    dcuNo: 'DCU20240001',
    dcuName: '',
    model: '',
    supplierId: null,
    supplierName: '',
    gridId: id(9),
    gridName: 'Transformer T1',
    address: '',
    longitude: null,
    latitude: null,
    llsLevel: 0,
    llsKeySet: true,
    hlsAuthKeySet: false,
    hlsEncKeySet: false,
    hlsAuthEncKeySet: false,
    blacklist: '',
    meterCount: 0,
    taskEnabled: false,
    taskGroup: null,
    minCycleMinutes: null,
    collectPeriodMinutes: null,
    reportPeriodMinutes: null,
    taskStart: '',
    taskEnd: '',
    maxSupplementDays: null,
    executionOffsetMinutes: null,
    remark: '',
    createTime: '2026-01-01T00:00:00.000Z',
    updateTime: '2026-01-01T00:00:00.000Z',
  };

  it('reveals the keys with the reveal button, asking the server each time', async () => {
    const api = stubApi({
      [dcuApi.list.path]: () => ok(page([dcu])),
      [dcuApi.reveal.path]: () => ok({ llsKey: 'Lls#2024', hlsAuthKey: '', hlsEncKey: '', hlsAuthEncKey: '' }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([DCU_RES.page, DCU_RES.reveal]), DCU_RES.page);

    await user.click(await screen.findByTestId(`row-reveal-${dcu.id}`));
    expect((await screen.findByTestId('dcu-key-llsKey')).textContent).toContain('Lls#2024');
    expect(within(screen.getByTestId('dcu-reveal-keys')).getAllByText('Not set')).toHaveLength(3);
    await user.click(screen.getByTestId('dcu-reveal-close'));
    await user.click(screen.getByTestId(`row-reveal-${dcu.id}`));
    await screen.findByTestId('dcu-key-llsKey');
    expect(api.callsTo(dcuApi.reveal.path)).toHaveLength(2);
  });

  it('shows no reveal button without its resource', async () => {
    stubApi({ [dcuApi.list.path]: () => ok(page([dcu])) });
    renderInShell(permittedTree([DCU_RES.page, DCU_RES.edit]), DCU_RES.page);
    expect(await screen.findByTestId(`row-edit-${dcu.id}`)).toBeTruthy();
    expect(screen.queryByTestId(`row-reveal-${dcu.id}`)).toBeNull();
  });
});
