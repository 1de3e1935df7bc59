import {
  type CommandRecord,
  meterApi,
  type PlanProgress,
  TARIFF_PUSH_CMD,
  TARIFF_RES,
  tariffApi,
  tariffPushApi,
} from '@meterdesk/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { CONFIRM_CANCEL, CONFIRM_OK } from '@/crud/row-actions';
import { ok, stubApi } from '@/test/api-stub';
import { meterFixture } from '@/test/meter-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { tariffFixture } from '@/test/tariff-fixture';

/** The broker's feed, played by the test: each job's `progress/{jobId}` handlers. */
const feeds = vi.hoisted(() => new Map<string, { onMessage(payload: string): void; onLive(live: boolean): void }>());
vi.mock('@/app/live/broker-topics', () => ({
  followTopic: (topicOf: (config: { topics: Record<string, string> }) => string, handlers: never) => {
    feeds.set(topicOf({ topics: {} }), handlers);
    return () => undefined;
  },
}));

const id = (n: number) => n.toString(16).padStart(32, '0');
const meter = (n: number) => meterFixture({ id: id(n), devAddr: `TOU${String(n).padStart(4, '0')}` });
const page = <T,>(list: T[]) => ({ list, total: list.length, curPage: 1, pageSize: 50 });
const answered = (deviceKey: string, resultCode: CommandRecord['resultCode']): CommandRecord => ({
  id: id(900),
  reqId: 'req-1',
  planid: id(500),
  deviceKind: 'meter',
  deviceKey,
  operation: TARIFF_PUSH_CMD,
  state: 'done',
  resultCode,
  items: [],
  frame: null,
  attempts: [{ attempt: 1, sentAt: '2026-01-02T08:00:00.000Z', code: resultCode, at: '2026-01-02T08:00:01.000Z' }],
  requestedBy: 'admin',
  createTime: '2026-01-02T08:00:00.000Z',
  answerTime: '2026-01-02T08:00:01.000Z',
});

describe('tariff configuration', () => {
  it('pushes a tariff to the chosen meters, lists the failed ones and re-sends them after a confirmation', async () => {
    const user = userEvent.setup();
    const tariff = tariffFixture();
    const pushId = id(400);
    const api = stubApi({
      [meterApi.list.path]: () => ok(page([meter(1), meter(2)])),
      [tariffApi.options.path]: () => ok({ list: [{ id: tariff.id, label: tariff.tariffName }], more: false }),
      [tariffApi.detail.path]: () => ok(tariff),
      [tariffPushApi.createtariffplan.path]: () =>
        ok({ pushId, planid: id(500), planStatus: 'executing', jobId: 'job-1' }),
      [tariffPushApi.listtariffeventlog.path]: () => ok(page([])),
      [tariffPushApi.restarttariffeventlog.path]: () =>
        ok({ pushId, planid: id(501), planStatus: 'executing', jobId: 'job-2' }),
    });
    renderInShell(
      permittedTree([TARIFF_RES.configuration, TARIFF_RES.issue, TARIFF_RES.page]),
      TARIFF_RES.configuration,
    );
    await user.click(within(await screen.findByTestId('field-tariffId')).getByRole('combobox'));
    await user.click(await screen.findByTitle('Residential TOU'));
    // The chosen tariff's calendar, drawn as the editor draws it.
    expect((await screen.findByTestId('segment-1-1')).dataset.rate).toBe('1');
    await user.click(screen.getByTestId('select-TOU0001'));
    await user.click(screen.getByTestId('select-TOU0002'));
    await user.click(screen.getByTestId('tariff-issue'));
    await user.click(within(await screen.findByRole('dialog')).getByTestId(CONFIRM_OK));
    await waitFor(() => expect(api.callsTo(tariffPushApi.createtariffplan.path)).toHaveLength(1));
    expect(api.callsTo(tariffPushApi.createtariffplan.path)[0]?.body).toMatchObject({
      tariffId: tariff.id,
      devList: ['TOU0001', 'TOU0002'],
    });

    await waitFor(() => expect(feeds.has('progress/job-1')).toBe(true));
    const progress: PlanProgress = {
      done: 2,
      total: 2,
      planid: id(500),
      results: [answered('TOU0001', '00'), answered('TOU0002', '91')],
    };
    act(() => feeds.get('progress/job-1')?.onMessage(JSON.stringify(progress)));
    const failed = await screen.findByTestId('tariff-failed');
    expect(failed.textContent).toContain('1 meter did not take the tariff');
    expect(within(failed).getByTestId('tariff-failed-meters').textContent).toBe('TOU0002');

    // spec §5: a re-send asks first; cancelled, nothing is sent.
    await user.click(within(failed).getByTestId('tariff-resend'));
    // The push's confirmation may still be fading out: the question is the last dialog.
    const question = (await screen.findAllByRole('dialog')).at(-1) as HTMLElement;
    expect(question.textContent).toContain('Send the tariff again to the 1 meter that failed?');
    await user.click(within(question).getByTestId(CONFIRM_CANCEL));
    expect(api.callsTo(tariffPushApi.restarttariffeventlog.path)).toHaveLength(0);

    await user.click(screen.getByTestId('tariff-resend'));
    const again = (await screen.findAllByRole('dialog')).at(-1) as HTMLElement;
    await user.click(within(again).getByTestId(CONFIRM_OK));
    await waitFor(() => expect(api.callsTo(tariffPushApi.restarttariffeventlog.path)).toHaveLength(1));
    expect(api.callsTo(tariffPushApi.restarttariffeventlog.path)[0]?.body).toEqual({ pushId });
    // The re-send is followed like the push, its one meter waiting for its answer.
    await waitFor(() => expect(feeds.has('progress/job-2')).toBe(true));
    expect((await screen.findByTestId('result-TOU0002')).textContent).toContain('Queued');
    expect(screen.queryByTestId('result-TOU0001')).toBeNull();
  });
});
