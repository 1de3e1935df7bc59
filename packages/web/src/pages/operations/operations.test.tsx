import {
  type CommandRecord,
  dcuApi,
  type Meter,
  meterApi,
  meterTypeApi,
  OPERATIONS,
  obisApi,
  PLAN_RES,
  type PlanProgress,
  paramTemplateApi,
  planApi,
} from '@meterdesk/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { CONFIRM_CANCEL, CONFIRM_OK } from '@/crud/row-actions';
import { fail, file, ok, stubApi } from '@/test/api-stub';
import { meterFixture } from '@/test/meter-fixture';
import { feeds } from '@/test/progress-feed';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

vi.mock('@/app/live/broker-topics', () => import('@/test/progress-feed').then((m) => m.brokerTopicsMock));

const id = (n: number) => n.toString(16).padStart(32, '0');
const DETAIL = '/archiveSetting/meter/detail';
const meter = (n: number): Meter => meterFixture({ id: id(n), devAddr: `OPS${String(n).padStart(4, '0')}` });
const record = (deviceKey: string, operation: CommandRecord['operation'], resultCode: CommandRecord['resultCode']) =>
  ({
    id: id(900),
    reqId: 'req-1',
    planid: id(500),
    deviceKind: 'meter',
    deviceKey,
    operation,
    state: resultCode ? 'done' : 'sent',
    resultCode,
    items: [],
    frame: null,
    attempts: [{ attempt: 1, sentAt: '2026-01-02T08:00:00.000Z', code: resultCode, at: null }],
    requestedBy: 'admin',
    createTime: '2026-01-02T08:00:00.000Z',
    answerTime: resultCode ? '2026-01-02T08:00:02.000Z' : null,
  }) satisfies CommandRecord;
const page = <T,>(list: T[]) => ({ list, total: list.length, curPage: 1, pageSize: 50 });
const created = { planid: id(500), planStatus: 'executing', jobId: 'job-1' };

/** A meter's detail, its status history and command history, and whatever the test adds. */
function stubMeter(extra: Parameters<typeof stubApi>[0] = {}) {
  return stubApi({
    [meterApi.detail.path]: () => ok(meter(1)),
    [meterApi.history.path]: () => ok([]),
    [planApi.meterCommands.path]: () => ok(page([])),
    [planApi.results.path]: () => ok(page([])),
    ...extra,
  });
}
const openOperations = (uris: string[]) =>
  renderInShell(permittedTree([DETAIL, ...uris]), `${DETAIL}?id=${id(1)}&tab=operations`);

describe('meter operations tab', () => {
  it('shows only the operations whose button the user holds', async () => {
    stubMeter();
    openOperations([OPERATIONS.relayConnect.resource, OPERATIONS.clockSync.resource]);
    await screen.findByTestId('op-relayConnect');
    expect(screen.getByTestId('op-clockSync')).toBeTruthy();
    expect(screen.queryByTestId('op-relayDisconnect')).toBeNull();
    expect(screen.queryByTestId('op-read')).toBeNull();
  });

  it('asks before a disconnect, naming the meter, and sends nothing when cancelled', async () => {
    const user = userEvent.setup();
    const api = stubMeter({ [planApi.createplan.path]: () => ok(created) });
    openOperations([OPERATIONS.relayDisconnect.resource]);
    await user.click(await screen.findByTestId('op-relayDisconnect'));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Main relay disconnect on meter OPS0001?');
    await user.click(within(dialog).getByTestId(CONFIRM_CANCEL));
    expect(api.callsTo(planApi.createplan.path)).toHaveLength(0);

    await user.click(screen.getByTestId('op-relayDisconnect'));
    // The cancelled dialog may still be fading out: the new one is the last.
    const again = (await screen.findAllByRole('dialog')).at(-1) as HTMLElement;
    await user.click(within(again).getByTestId(CONFIRM_OK));
    await waitFor(() => expect(api.callsTo(planApi.createplan.path)).toHaveLength(1));
    expect(api.callsTo(planApi.createplan.path)[0]?.body).toMatchObject({
      devs: { itemType: 0, devList: ['OPS0001'] },
      orders: [{ cmd: 'relayDisconnect', params: {} }],
    });
  });

  it('shows a refusal in the user language with the devices it names', async () => {
    const user = userEvent.setup();
    stubMeter({ [planApi.createplan.path]: () => fail(400, 'MThasOffline', { devices: ['OPS0001'] }) });
    openOperations([OPERATIONS.relayConnect.resource]);
    await user.click(await screen.findByTestId('op-relayConnect'));
    const refusal = await screen.findByTestId('operation-refusal');
    expect(refusal.textContent).toContain('Some meters are offline and cannot be operated');
    expect(refusal.textContent).toContain('Devices: OPS0001');
  });

  it('shows the answer as it arrives on the progress topic, and again after the stream ends', async () => {
    const user = userEvent.setup();
    const answered: CommandRecord[] = [];
    const api = stubMeter({
      [planApi.createplan.path]: () => ok(created),
      [planApi.results.path]: () => ok(page(answered)),
      [planApi.retry.path]: () => ok({ planid: id(501), planStatus: 'executing', jobId: 'job-retry' }),
      [planApi.export.path]: () => file('xlsx', 'application/octet-stream', 'results.xlsx'),
    });
    openOperations([OPERATIONS.relayConnect.resource]);
    await user.click(await screen.findByTestId('op-relayConnect'));
    await waitFor(() => expect(feeds.has('progress/job-1')).toBe(true));
    const row = await screen.findByTestId('result-OPS0001');
    expect(row.textContent).toContain('Queued');
    expect(screen.getByTestId('op-relayConnect').className).toContain('loading');

    const asked = api.callsTo(planApi.results.path).length;
    const progress: PlanProgress = {
      done: 1,
      total: 1,
      planid: id(500),
      results: [record('OPS0001', 'relayConnect', '91')],
    };
    // The results call knows nothing yet: what the row shows came with the message.
    act(() => feeds.get('progress/job-1')?.onMessage(JSON.stringify(progress)));
    await waitFor(() => expect(screen.getByTestId('result-OPS0001').textContent).toContain('91 Busy'));
    expect(screen.getByTestId('results-progress').textContent).toBe('1 of 1 answered');
    // The end of the stream asks for the results once more, for anything a lost message carried.
    await waitFor(() => expect(api.callsTo(planApi.results.path).length).toBeGreaterThan(asked));
    answered.push(record('OPS0001', 'relayConnect', '91'));
    await waitFor(() => expect(screen.getByTestId('op-relayConnect').className).not.toContain('loading'));

    // The failed meter is sent the operation again after a confirmation, and followed like the first.
    await user.click(screen.getByTestId('results-retry'));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Send Main relay connect again to the devices that failed?');
    await user.click(within(dialog).getByTestId(CONFIRM_OK));
    await waitFor(() => expect(api.callsTo(planApi.retry.path)).toHaveLength(1));
    expect(api.callsTo(planApi.retry.path)[0]?.body).toEqual({ planid: id(500) });
    await waitFor(() => expect(feeds.has('progress/job-retry')).toBe(true));

    const createUrl = vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:results');
    vi.spyOn(URL, 'revokeObjectURL').mockReturnValue(undefined);
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    await user.click(screen.getByTestId('results-export'));
    await waitFor(() => expect(createUrl).toHaveBeenCalled());
    expect(api.callsTo(planApi.export.path)[0]?.body).toEqual({ planid: id(501) });
  });
});

describe('real-time read', () => {
  const item = (obis: string, description: string, readInstantly: boolean) => ({
    id: id(obis.length),
    obis,
    classId: 3,
    attribute: 2,
    description,
    unit: 30,
    scaler: 0,
    cgName: description,
    channelOption: false,
    thresholdOption: false,
    settingChannel: false,
    displayOption: true,
    readInstantly,
    readPeriodically: false,
    rateDataType: '',
    commonConfig: false,
    createTime: '2026-01-01T00:00:00.000Z',
    updateTime: '2026-01-01T00:00:00.000Z',
  });

  it("offers the catalogue's items read instantly, and shows the values read with their units", async () => {
    const user = userEvent.setup();
    const api = stubMeter({
      [obisApi.list.path]: () =>
        ok(page([item('1-0:1.8.0.255', 'Active import', true), item('1-0:99.1.0.255', 'Load profile', false)])),
      [planApi.createplan.path]: () => ok({ ...created, jobId: 'job-read' }),
    });
    openOperations([OPERATIONS.read.resource]);
    await user.click(await screen.findByTestId('op-read'));
    await user.click((await screen.findByTestId('field-obis')).querySelector('input') as HTMLElement);
    await user.click(await screen.findByTitle('1-0:1.8.0.255 Active import'));
    expect(screen.queryByTitle('1-0:99.1.0.255 Load profile')).toBeNull();
    await user.click(screen.getByTestId('params-submit'));
    await waitFor(() => expect(api.callsTo(planApi.createplan.path)).toHaveLength(1));
    expect(api.callsTo(planApi.createplan.path)[0]?.body).toMatchObject({
      planName: 'Real-time Metering Plan',
      pushType: 2,
      pri: 5,
      timeout: 30,
      orders: [{ cmd: 'read', params: { obis: ['1-0:1.8.0.255'] } }],
    });

    await waitFor(() => expect(feeds.has('progress/job-read')).toBe(true));
    const read = {
      ...record('OPS0001', 'read', '00'),
      items: [{ obis: '1-0:1.8.0.255', value: 1520.5, unit: 'kWh', description: 'Active import' }],
    };
    act(() =>
      feeds
        .get('progress/job-read')
        ?.onMessage(JSON.stringify({ done: 1, total: 1, planid: id(500), results: [read] })),
    );
    const row = await screen.findByTestId('result-OPS0001');
    await waitFor(() => expect(row.textContent).toContain('Active import: 1520.5 kWh'));
    expect(row.textContent).toContain('00 Success');
  });
});

describe('batch operation', () => {
  const BATCH_URIS = [PLAN_RES.batch, OPERATIONS.clockSync.resource];

  it('keeps the first 30 meters of a larger selection, across pages, and says so', async () => {
    const user = userEvent.setup();
    const meters = Array.from({ length: 35 }, (_, n) => meter(n + 1));
    stubApi({
      [meterApi.list.path]: ({ curPage, pageSize }) => {
        const [at, size] = [Number(curPage), Number(pageSize)];
        return ok({
          list: meters.slice((at - 1) * size, at * size),
          total: meters.length,
          curPage: at,
          pageSize: size,
        });
      },
    });
    renderInShell(permittedTree(BATCH_URIS), PLAN_RES.batch);
    const selectPage = async (shown: string) => {
      await screen.findByText(shown);
      const header = screen.getByTestId('batch-operation').querySelector('thead .ant-checkbox-input');
      if (!(header instanceof HTMLElement)) throw new Error('no select-all checkbox');
      await user.click(header);
    };
    for (const [pageNo, shown] of [
      [1, 'OPS0001'],
      [2, 'OPS0011'],
      [3, 'OPS0021'],
    ] as const) {
      if (pageNo > 1) await user.click(screen.getByTitle(String(pageNo)));
      await selectPage(shown);
    }
    expect(screen.getByTestId('batch-selected').textContent).toBe('30 of at most 30 meters selected');
    expect(screen.queryByText('At most 30 meters in one batch: the first 30 are kept')).toBeNull();
    await user.click(screen.getByTitle('4'));
    await selectPage('OPS0031');
    expect(await screen.findByText('At most 30 meters in one batch: the first 30 are kept')).toBeTruthy();
    expect(screen.getByTestId('batch-selected').textContent).toBe('30 of at most 30 meters selected');
    // The first 30 stay: none of the last page's rows is chosen.
    expect(screen.getByTestId('select-OPS0031').closest('label')?.className).not.toContain('checked');
  });

  it('confirms the count and the operation, sends the chosen meters and brings their results into view', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      [meterApi.list.path]: () => ok(page([meter(1), meter(2)])),
      [planApi.createplan.path]: () => ok(created),
      [planApi.results.path]: () => ok(page([])),
    });
    renderInShell(permittedTree(BATCH_URIS), PLAN_RES.batch);
    await screen.findByText('OPS0002');
    await user.click(screen.getByTestId('select-OPS0001'));
    await user.click(screen.getByTestId('select-OPS0002'));
    await user.click(screen.getByTestId('batch-operation-select').querySelector('input') as HTMLElement);
    await user.click(await screen.findByTitle('Clock sync'));
    await user.click(screen.getByTestId('batch-execute'));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Clock sync on 2 meters?');
    await user.click(within(dialog).getByTestId(CONFIRM_OK));
    await waitFor(() => expect(api.callsTo(planApi.createplan.path)).toHaveLength(1));
    expect(api.callsTo(planApi.createplan.path)[0]?.body).toMatchObject({
      devs: { itemType: 0, devList: ['OPS0001', 'OPS0002'] },
      orders: [{ cmd: 'clockSync', params: { source: 'system' } }],
    });
    expect(await screen.findByTestId('result-OPS0002')).toBeTruthy();
    expect(vi.mocked(Element.prototype.scrollIntoView).mock.contexts).toContain(
      screen.getByTestId('operation-results'),
    );
  });

  it("opens from a parameter template's Apply with the template chosen and the meters of its type listed", async () => {
    const user = userEvent.setup();
    const template = {
      id: id(70),
      templateName: 'Household PLC standard',
      meterTypeId: id(71),
      meterTypeName: 'NM-S100',
      items: [],
      itemCount: 0,
      remark: '',
      createdBy: 'admin',
      createTime: '2026-01-01T00:00:00.000Z',
      updateTime: '2026-01-01T00:00:00.000Z',
    };
    const api = stubApi({
      [meterApi.list.path]: () => ok(page([meter(1)])),
      [paramTemplateApi.list.path]: () => ok(page([template])),
      [meterTypeApi.options.path]: () =>
        ok({ list: [{ id: id(71), label: 'NM-S100', supplierId: id(72) }], more: false }),
      [planApi.createplan.path]: () => ok(created),
      [planApi.results.path]: () => ok(page([])),
    });
    const query = new URLSearchParams({ operation: 'applyParamTemplate', templateId: id(70), meterTypeId: id(71) });
    renderInShell(
      permittedTree([PLAN_RES.batch, OPERATIONS.applyParamTemplate.resource]),
      `${PLAN_RES.batch}?${query}`,
    );
    await screen.findByText('OPS0001');
    expect(api.callsTo(meterApi.list.path)[0]?.body).toMatchObject({ meterTypeId: id(71) });
    expect(await screen.findByText('Household PLC standard (NM-S100)')).toBeTruthy();
    await user.click(screen.getByTestId('select-OPS0001'));
    await user.click(screen.getByTestId('batch-execute'));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Apply parameter template on 1 meters?');
    await user.click(within(dialog).getByTestId(CONFIRM_OK));
    await waitFor(() => expect(api.callsTo(planApi.createplan.path)).toHaveLength(1));
    expect(api.callsTo(planApi.createplan.path)[0]?.body).toMatchObject({
      orders: [{ cmd: 'applyParamTemplate', params: { templateId: id(70) } }],
    });
  });
});

describe('disconnect approvals', () => {
  const plan = {
    planid: id(600),
    planName: 'relayDisconnect 2026-01-02 08:00:00',
    planTempName: '',
    pushType: 2,
    pri: 5,
    timeout: 30,
    planStatus: 'pendingApproval',
    devs: {},
    crontab: null,
    orders: [{ cmd: 'relayDisconnect', params: {} }],
    eventCode: '',
    reqId: '',
    concurrent: 4,
    createdBy: 'amira',
    approvedBy: null,
    createTime: '2026-01-02T08:00:00.000Z',
    total: 12,
    done: 0,
    byCode: {},
  };

  // One meter is held too when the disconnects of the approval window add up past the threshold.
  it.each([
    [['OPS0001', 'OPS0002'], 'The disconnect of 2 meters waits for the approval of a second user'],
    [['OPS0001'], 'The disconnect of meter OPS0001 waits for the approval of a second user'],
  ])('tells the requester a held disconnect of %j waits for a second user', async (selected, text) => {
    const user = userEvent.setup();
    const api = stubApi({
      [meterApi.list.path]: () => ok(page([meter(1), meter(2)])),
      [planApi.createplan.path]: () => ok({ planid: id(600), planStatus: 'pendingApproval', jobId: null }),
    });
    renderInShell(permittedTree([PLAN_RES.batch, OPERATIONS.relayDisconnect.resource]), PLAN_RES.batch);
    await screen.findByText('OPS0002');
    for (const devAddr of selected) await user.click(screen.getByTestId(`select-${devAddr}`));
    await user.click(screen.getByTestId('batch-operation-select').querySelector('input') as HTMLElement);
    await user.click(await screen.findByTitle('Main relay disconnect'));
    await user.click(screen.getByTestId('batch-execute'));
    await user.click(within(await screen.findByRole('dialog')).getByTestId(CONFIRM_OK));
    expect((await screen.findByTestId('results-pending-approval')).textContent).toBe(text);
    // Nothing is sent yet: there is no job to follow.
    expect(api.callsTo(planApi.results.path)).toHaveLength(0);
  });

  it('lists held disconnects to an approver, confirms, and shows why a self-approval is refused', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      [meterApi.list.path]: () => ok(page([])),
      [planApi.pending.path]: () => ok(page([plan])),
      [planApi.approve.path]: () => fail(403, 'selfApproval'),
    });
    renderInShell(permittedTree([PLAN_RES.batch, PLAN_RES.approve]), PLAN_RES.batch);
    const pending = await screen.findByTestId('pending-approvals');
    const row = await within(pending).findByText('amira');
    expect(row.closest('tr')?.textContent).toContain('Main relay disconnect');
    expect(row.closest('tr')?.textContent).toContain('12');
    await user.click(within(pending).getByTestId(`approve-${id(600)}`));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Approve the Main relay disconnect of 12 meters requested by amira?');
    await user.click(within(dialog).getByTestId(CONFIRM_OK));
    expect(await screen.findByText('A disconnect must be approved by another user')).toBeTruthy();
    expect(api.callsTo(planApi.approve.path)[0]?.body).toEqual({ planid: id(600) });
  });

  it('hides the pending approvals without the approve button', async () => {
    stubApi({ [meterApi.list.path]: () => ok(page([meter(1)])) });
    renderInShell(permittedTree([PLAN_RES.batch, OPERATIONS.relayDisconnect.resource]), PLAN_RES.batch);
    await screen.findByText('OPS0001');
    expect(screen.queryByTestId('pending-approvals')).toBeNull();
  });
});

describe('DCU operating', () => {
  it('refuses a frame that is not hexadecimal, and sends one that is', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      [dcuApi.options.path]: () => ok({ list: [{ id: id(7), label: 'DCU-7 North', dcuNo: 'DCU-7' }], more: false }),
      [planApi.createplan.path]: () => ok({ ...created, jobId: 'job-2' }),
      [planApi.results.path]: () => ok(page([])),
    });
    renderInShell(permittedTree([PLAN_RES.dcuOperating, `${PLAN_RES.dcuOperating}/execute`]), PLAN_RES.dcuOperating);
    await user.click((await screen.findByTestId('field-dcuIds')).querySelector('input') as HTMLElement);
    await user.click(await screen.findByTitle('DCU-7 North'));
    await user.click(screen.getByTestId('dcu-tab-frame'));
    await user.type(await screen.findByTestId('field-frame'), '68 ZZ 16');
    await user.click(screen.getByTestId('op-dcuFrame'));
    expect(await screen.findByText('The input must be a hexadecimal frame')).toBeTruthy();
    expect(api.callsTo(planApi.createplan.path)).toHaveLength(0);

    await user.clear(screen.getByTestId('field-frame'));
    await user.type(screen.getByTestId('field-frame'), '68 01 16');
    await user.click(screen.getByTestId('op-dcuFrame'));
    await waitFor(() => expect(api.callsTo(planApi.createplan.path)).toHaveLength(1));
    expect(api.callsTo(planApi.createplan.path)[0]?.body).toMatchObject({
      devs: { itemType: 1, devList: ['DCU-7'] },
      orders: [{ cmd: 'dcuFrame', params: { frame: '68 01 16' } }],
    });
  });
});
