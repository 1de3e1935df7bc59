import type { CollectionRun, RunDevice } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONFIRM_OK } from '@/crud/row-actions';
import { applyLanguage } from '@/i18n/i18n';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { TASK_ID, task } from '@/test/task-fixture';

const TASKS = '/serviceRequest/scheduledTask/taskMGT';
const DETAIL = `${TASKS}/view/detail`;
const PLAN_ID = TASK_ID;
const RUN_ID = 'c'.repeat(32);

const run = (extra: Partial<CollectionRun> = {}): CollectionRun => ({
  runId: RUN_ID,
  planid: PLAN_ID,
  kind: 'scheduled',
  status: 'finished',
  occurrence: 0,
  missed: 0,
  parentRunId: null,
  dueAt: '2030-01-02T00:15:00.000Z',
  periodFrom: '2030-01-01T00:15:00.000Z',
  periodTo: '2030-01-02T00:15:00.000Z',
  items: [{ cgcode: 'loadProfile', obis: '1.0.99.1.0.255' }],
  devices: 2,
  expected: 192,
  received: 150,
  successRate: 78.1,
  byCode: { '00': 1, '90': 1 },
  requests: 2,
  ranges: 2,
  requestedBy: 'admin',
  jobId: null,
  startedAt: '2030-01-02T00:15:01.000Z',
  finishedAt: '2030-01-02T00:16:00.000Z',
  ...extra,
});
const device = (devAddr: string, extra: Partial<RunDevice> = {}): RunDevice => ({
  meterId: devAddr.slice(1).padStart(32, 'e'),
  devAddr,
  dcuNo: 'DCU0001',
  gridId: 'd'.repeat(32),
  expected: 96,
  received: 96,
  resultCode: '00',
  requested: true,
  items: [{ cgcode: 'loadProfile', expected: 96, received: 96 }],
  ...extra,
});
const page = <T,>(list: T[]) => ({ list, total: list.length, curPage: 1, pageSize: 10 });

describe('taskMGT view/detail', () => {
  const zone = process.env.TZ;
  afterEach(() => {
    vi.unstubAllGlobals();
    process.env.TZ = zone;
  });

  it("lists a task's runs with their rates and codes, and a chosen run's meters, failed ones alone on request", async () => {
    const api = stubApi({
      '/task/detail': () => ok(task()),
      '/plan/runs': () => ok(page([run()])),
      '/plan/rundevices': (body) =>
        ok(
          page(
            body.failedOnly
              ? [device('M0000002', { resultCode: '90', received: 54, items: [] })]
              : [device('M0000001'), device('M0000002', { resultCode: '90', received: 54, items: [] })],
          ),
        ),
    });
    renderInShell(permittedTree([TASKS, DETAIL]), `${DETAIL}?id=${PLAN_ID}`);
    const user = userEvent.setup();
    expect(await screen.findByText('78.1 %')).toBeTruthy();
    expect(await screen.findByText('Runs of Daily profile')).toBeTruthy();
    expect(screen.getByText('00: 1')).toBeTruthy();
    expect(screen.getByText('90: 1')).toBeTruthy();
    // Run now needs its own button.
    expect(screen.queryByTestId('run-now')).toBeNull();
    expect(api.callsTo('/plan/runs')[0]?.body).toMatchObject({ planid: PLAN_ID, curPage: 1 });

    await user.click(screen.getByText('78.1 %'));
    expect(await screen.findByText('M0000001')).toBeTruthy();
    expect(screen.getByText(/^90 /)).toBeTruthy();
    // The items read are named, not coded.
    expect(
      within(screen.getByText('M0000001').closest('tr') as HTMLElement).getByText('Load profile 96/96'),
    ).toBeTruthy();
    await user.click(screen.getByRole('checkbox'));
    await waitFor(() => expect(screen.queryByText('M0000001')).toBeNull());
    expect(screen.getByText('M0000002')).toBeTruthy();
    expect(api.callsTo('/plan/rundevices').at(-1)?.body).toMatchObject({ runId: RUN_ID, failedOnly: true, curPage: 1 });
  });

  it('runs the task now with the run-now button, after asking as the task list does, and selects the new run', async () => {
    let started = false;
    const api = stubApi({
      '/task/detail': () => ok(task()),
      '/plan/runs': () =>
        ok(page(started ? [run({ kind: 'manual', status: 'running', successRate: null, byCode: {} })] : [])),
      '/plan/runnow': () => {
        started = true;
        return ok({ runId: RUN_ID, jobId: '00000000-0000-0000-0000-000000000001' });
      },
      '/plan/rundevices': () => ok(page([device('M0000003', { resultCode: null, received: 0 })])),
    });
    renderInShell(permittedTree([TASKS, DETAIL, `${TASKS}/runNow`]), `${DETAIL}?id=${PLAN_ID}`);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('run-now'));
    await user.click(await screen.findByTestId(CONFIRM_OK));
    await waitFor(() => expect(api.callsTo('/plan/runnow')).toHaveLength(1));
    expect(api.callsTo('/plan/runnow')[0]?.body).toEqual({ planid: PLAN_ID });
    const meterRow = await screen.findByText('M0000003');
    // A read still outstanding shows as such, not as a code.
    expect(within(meterRow.closest('tr') as HTMLElement).getByText('…')).toBeTruthy();
  });

  it('shows how far a run it started got from the list when the progress stream said nothing (the run was quicker)', async () => {
    let started = false;
    stubApi({
      '/task/detail': () => ok(task()),
      '/plan/runs': () =>
        ok(page(started ? [run({ kind: 'manual', devices: 1, expected: 97, received: 97, byCode: { '00': 1 } })] : [])),
      '/plan/runnow': () => {
        started = true;
        return ok({ runId: RUN_ID, jobId: '00000000-0000-0000-0000-000000000002' });
      },
      '/plan/rundevices': () => ok(page([device('M0000004')])),
    });
    renderInShell(permittedTree([TASKS, DETAIL, `${TASKS}/runNow`]), `${DETAIL}?id=${PLAN_ID}`);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('run-now'));
    await user.click(await screen.findByTestId(CONFIRM_OK));
    await waitFor(() =>
      expect(screen.getByTestId('run-progress').textContent).toBe('1 of 1 meters read, 97 of 97 readings'),
    );
  });

  it('names the time zone its run times are written in, in both languages', async () => {
    // Away from UTC, so a heading saying UTC, or none, cannot pass for one naming the zone shown.
    process.env.TZ = 'Asia/Shanghai';
    stubApi({
      '/plan/runs': () => ok(page([run()])),
      '/plan/rundevices': () => ok(page([device('M0000001')])),
    });
    renderInShell(permittedTree([TASKS, DETAIL]), `${DETAIL}?id=${PLAN_ID}`);
    const user = userEvent.setup();
    const time = await screen.findByText('2030-01-02 08:15:00');
    expect(screen.getByRole('columnheader', { name: 'Time (Asia/Shanghai)' })).toBeTruthy();
    expect(screen.getByRole('columnheader', { name: 'Period (Asia/Shanghai)' })).toBeTruthy();
    expect(screen.getByText('2030-01-01 08:15:00 – 2030-01-02 08:15:00')).toBeTruthy();
    await user.click(time);
    expect(await screen.findByText('Meters of the run at 2030-01-02 08:15:00 (Asia/Shanghai)')).toBeTruthy();

    applyLanguage('zh');
    expect(await screen.findByRole('columnheader', { name: '时间 (Asia/Shanghai)' })).toBeTruthy();
    expect(screen.getByRole('columnheader', { name: '数据时段 (Asia/Shanghai)' })).toBeTruthy();
    expect(screen.getByText('2030-01-02 08:15:00 (Asia/Shanghai) 执行的电表')).toBeTruthy();
  });
});
