import { type DcuKpi, type RunKpi, type TaskKpi, taskAnalysisApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import dayjs from 'dayjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toIsoMoment } from '@/fields/date-range';
import { applyLanguage } from '@/i18n/i18n';
import { file, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const PAGE = '/dataAnalytic/taskAnalysis';
const DETAIL = `${PAGE}/detail`;
const ID = 'b'.repeat(32);
const START = toIsoMoment(dayjs().subtract(10, 'day').startOf('day'));
const END = toIsoMoment(dayjs().subtract(4, 'day').endOf('day'));
/** The period as a URL carries it (a `+` of the offset escaped). */
const PERIOD = new URLSearchParams({ startTime: START, endTime: END }).toString();

const kpi = (extra: Partial<TaskKpi> = {}): TaskKpi => ({
  id: ID,
  planName: 'Daily profile',
  planStatus: 'waiting',
  runs: 2,
  devices: 4,
  expected: 776,
  received: 630,
  successRate: 81.2,
  failedDevices: 2,
  ...extra,
});
const run = (extra: Partial<RunKpi> = {}): RunKpi => ({
  runId: 'c'.repeat(32),
  kind: 'scheduled',
  status: 'finished',
  dueAt: '2030-01-05T00:15:00.000Z',
  devices: 4,
  expected: 388,
  received: 291,
  successRate: 75,
  repairs: 1,
  repairedShare: 2.4,
  failedDevices: 1,
  ...extra,
});
const dcu = (extra: Partial<DcuKpi> = {}): DcuKpi => ({
  dcuNo: 'D2',
  devices: 1,
  expected: 194,
  received: 97,
  successRate: 50,
  failedDevices: 1,
  ...extra,
});
const page = <T,>(list: T[]) => ok({ list, total: list.length, curPage: 1, pageSize: 10 });

const zone = process.env.TZ;
afterEach(() => {
  process.env.TZ = zone;
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  applyLanguage('en');
});

describe('task analysis list', () => {
  it('asks for the last 7 days by default, shows the KPI and exports what it shows', async () => {
    vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:export');
    vi.spyOn(URL, 'revokeObjectURL').mockReturnValue(undefined);
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const api = stubApi({
      [taskAnalysisApi.list.path]: () =>
        page([kpi(), kpi({ id: 'd'.repeat(32), planName: 'Idle task', runs: 0, successRate: null })]),
      [taskAnalysisApi.export.path]: () => file('xlsx', 'application/octet-stream', 'analysis.xlsx'),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([PAGE, DETAIL, `${PAGE}/export`]), PAGE);

    const row = (await screen.findByText('Daily profile')).closest('tr') as HTMLElement;
    expect(within(row).getByText('81.2')).toBeTruthy();
    // One way into a task: its Analysis page, no View drawer beside it.
    expect(within(row).getByTestId(`row-detail-${ID}`).textContent).toBe('Analysis');
    expect(within(row).queryByTestId(`row-view-${ID}`)).toBeNull();
    expect(screen.getByRole('columnheader', { name: 'Actions' })).toBeTruthy();
    const body = api.callsTo(taskAnalysisApi.list.path)[0]?.body as { startTime: string; endTime: string };
    expect(dayjs(body.startTime).isSame(dayjs().subtract(6, 'day').startOf('day'))).toBe(true);
    expect(dayjs(body.endTime).isSame(dayjs().endOf('day'), 'second')).toBe(true);

    await user.click(screen.getByTestId('crud-export'));
    await waitFor(() => expect(api.callsTo(taskAnalysisApi.export.path)).toHaveLength(1));
    expect(api.callsTo(taskAnalysisApi.export.path)[0]?.body).toEqual({
      startTime: body.startTime,
      endTime: body.endTime,
    });
  });

  it('sorts on the server by the column clicked', async () => {
    const api = stubApi({ [taskAnalysisApi.list.path]: () => page([kpi()]) });
    const user = userEvent.setup();
    renderInShell(permittedTree([PAGE]), `${PAGE}?${PERIOD}`);
    await screen.findByText('Daily profile');
    await user.click(screen.getByRole('columnheader', { name: /Success rate/ }));
    await waitFor(() =>
      expect(api.callsTo(taskAnalysisApi.list.path).at(-1)?.body).toMatchObject({
        sortField: 'successRate',
        sortOrder: 'ascend',
        startTime: START,
      }),
    );
    // Without the detail page the row offers no analysis (and no empty Actions column), and without
    // the export button no export.
    expect(screen.queryByTestId(`row-detail-${ID}`)).toBeNull();
    expect(screen.queryByTestId(`row-view-${ID}`)).toBeNull();
    expect(screen.queryByRole('columnheader', { name: 'Actions' })).toBeNull();
    expect(screen.queryByTestId('crud-export')).toBeNull();
  });

  it('says so when no task matches', async () => {
    stubApi({ [taskAnalysisApi.list.path]: () => page([]) });
    renderInShell(permittedTree([PAGE]), PAGE);
    expect(await screen.findByText('No records')).toBeTruthy();
  });

  it("opens a task's analysis for the period the list shows", async () => {
    const api = stubApi({
      [taskAnalysisApi.list.path]: () => page([kpi()]),
      [taskAnalysisApi.detail.path]: () =>
        ok({
          task: kpi(),
          byCode: [
            { code: '00', devices: 6 },
            { code: '90', devices: 2 },
          ],
        }),
      [taskAnalysisApi.runs.path]: () => page([run()]),
      [taskAnalysisApi.dcus.path]: () => page([dcu(), dcu({ dcuNo: null, successRate: 100, received: 194 })]),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([PAGE, DETAIL]), `${PAGE}?${PERIOD}`);
    await user.click(await screen.findByTestId(`row-detail-${ID}`));

    const detail = await screen.findByTestId('task-analysis-detail');
    expect(await within(detail).findByText('Task analysis: Daily profile')).toBeTruthy();
    expect(api.callsTo(taskAnalysisApi.detail.path)[0]?.body).toEqual({ planid: ID, startTime: START, endTime: END });

    const runs = screen.getByTestId('analysis-runs');
    await within(runs).findByText('2.4');
    expect(within(runs).getByText('Scheduled')).toBeTruthy();

    const codes = screen.getByTestId('analysis-codes');
    expect(within(codes).getByText('Offline')).toBeTruthy();
    expect(within(codes).getByText('25')).toBeTruthy();

    const dcus = screen.getByTestId('analysis-dcus');
    expect(await within(dcus).findByText('Without DCU')).toBeTruthy();
    await user.click(within(dcus).getByRole('columnheader', { name: /^DCU/ }));
    await waitFor(() =>
      expect(api.callsTo(taskAnalysisApi.dcus.path).at(-1)?.body).toMatchObject({
        sortField: 'dcuNo',
        sortOrder: 'ascend',
        curPage: 1,
      }),
    );

    const before = api.callsTo(taskAnalysisApi.runs.path).length;
    await user.click(screen.getByTestId('analysis-refresh'));
    await waitFor(() => expect(api.callsTo(taskAnalysisApi.runs.path).length).toBeGreaterThan(before));
  }, 15_000);

  it('names the result codes in Chinese too', async () => {
    applyLanguage('zh');
    stubApi({
      [taskAnalysisApi.detail.path]: () => ok({ task: kpi(), byCode: [{ code: '99', devices: 1 }] }),
      [taskAnalysisApi.runs.path]: () => page([]),
      [taskAnalysisApi.dcus.path]: () => page([]),
    });
    renderInShell(permittedTree([PAGE, DETAIL]), `${DETAIL}?id=${ID}&${PERIOD}`);
    const codes = await screen.findByTestId('analysis-codes');
    expect(await within(codes).findByText('通信超时')).toBeTruthy();
  });

  it("names the time zone of its runs' times, in both languages", async () => {
    // Away from UTC, so a heading saying UTC, or none, cannot pass for one naming the zone shown.
    process.env.TZ = 'Asia/Shanghai';
    stubApi({
      [taskAnalysisApi.detail.path]: () => ok({ task: kpi(), byCode: [] }),
      [taskAnalysisApi.runs.path]: () => page([run()]),
      [taskAnalysisApi.dcus.path]: () => page([]),
    });
    renderInShell(permittedTree([PAGE, DETAIL]), `${DETAIL}?id=${ID}&${PERIOD}`);
    const runs = await screen.findByTestId('analysis-runs');
    expect(await within(runs).findByText('2030-01-05 08:15:00')).toBeTruthy();
    expect(within(runs).getByRole('columnheader', { name: /^Time \(Asia\/Shanghai\)/ })).toBeTruthy();
    applyLanguage('zh');
    expect(await within(runs).findByRole('columnheader', { name: /^时间 \(Asia\/Shanghai\)/ })).toBeTruthy();
  });
});
