import { nextDailyStart, type Task } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONFIRM_OK } from '@/crud/row-actions';
import { formatDateTime } from '@/fields/date-text';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { TASK_ID as ID, task, template } from '@/test/task-fixture';

const TASKS = '/serviceRequest/scheduledTask/taskMGT';

const page = (list: Task[]) => ({ list, total: list.length, curPage: 1, pageSize: 10 });
const templates = ok(page([template() as never]));

describe('taskMGT', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('offers each row the state changes its state allows, and links it to its runs', async () => {
    stubApi({
      '/task/list': () =>
        ok(page([task(), task({ id: 'd'.repeat(32), planName: 'Paused one', planStatus: 'paused', nextRunAt: null })])),
    });
    renderInShell(permittedTree([TASKS, `${TASKS}/enable`, `${TASKS}/pause`, `${TASKS}/view/detail`]), TASKS);
    await screen.findByText('Paused one');
    expect(screen.getByTestId(`row-disable-${ID}`)).toBeTruthy();
    expect(screen.getByTestId(`row-pause-${ID}`)).toBeTruthy();
    expect(screen.queryByTestId(`row-enable-${ID}`)).toBeNull();
    expect(screen.queryByTestId(`row-resume-${ID}`)).toBeNull();
    expect(screen.getByTestId(`row-resume-${'d'.repeat(32)}`)).toBeTruthy();
    expect(screen.getByTestId(`row-runs-${ID}`)).toBeTruthy();
  });

  it('runs a task now from its list row and from its View page, after asking', async () => {
    const api = stubApi({
      '/task/list': () => ok(page([task()])),
      '/task/detail': () => ok(task()),
      '/plan/runnow': () => ok({ runId: 'c'.repeat(32), jobId: '00000000-0000-0000-0000-000000000001' }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([TASKS, `${TASKS}/view`, `${TASKS}/runNow`]), TASKS);
    await user.click(await screen.findByTestId(`row-runNow-${ID}`));
    const question = 'Run task Daily profile now? It reads the period its latest occurrence covers.';
    expect((await screen.findAllByText(question)).length).toBeGreaterThan(0);
    await user.click(screen.getByTestId(CONFIRM_OK));
    await waitFor(() => expect(api.callsTo('/plan/runnow')).toHaveLength(1));
    expect(api.callsTo('/plan/runnow')[0]?.body).toEqual({ planid: ID });

    await user.click(screen.getByTestId(`row-view-${ID}`));
    await user.click(await screen.findByTestId('detail-runNow'));
    await user.click((await screen.findAllByTestId(CONFIRM_OK)).at(-1) as HTMLElement);
    await waitFor(() => expect(api.callsTo('/plan/runnow')).toHaveLength(2));
    expect(api.callsTo('/plan/runnow')[1]?.body).toEqual({ planid: ID });
  }, 40_000);

  it('asks to disable an enabled task before editing it, warning when a run is executing, then shows the form', async () => {
    let enabled = true;
    const api = stubApi({
      '/task/detail': () =>
        ok(task({ enabled, planStatus: 'executing', nextRunAt: enabled ? task().nextRunAt : null })),
      '/task/disable': () => {
        enabled = false;
        return ok({ planStatus: 'executing', enabled: false, nextRunAt: null });
      },
      '/plantemplate/list': () => templates,
    });
    renderInShell(permittedTree([TASKS, `${TASKS}/edit`, `${TASKS}/enable`]), `${TASKS}/edit?id=${ID}`);
    const user = userEvent.setup();
    expect(screen.queryByTestId('task-form')).toBeNull();
    await user.click(await screen.findByTestId('task-disable'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getAllByText(/executing a run/).length).toBeGreaterThan(0);
    await user.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(api.callsTo('/task/disable')).toHaveLength(1));
    expect(api.callsTo('/task/disable')[0]?.body).toEqual({ planid: ID });
    const form = await screen.findByTestId('task-form');
    expect((within(form).getByTestId('field-planName') as HTMLInputElement).value).toBe('Daily profile');
  }, 15_000);

  it("starts a new task's form at the coming day's 00:05 UTC, shown in the browser's time", async () => {
    stubApi({ '/plantemplate/list': () => templates });
    renderInShell(permittedTree([TASKS, `${TASKS}/add`]), `${TASKS}/add`);
    const form = await screen.findByTestId('task-form');
    const start = within(form).getByTestId('field-starttime') as HTMLInputElement;
    expect(start.value).toBe(formatDateTime(nextDailyStart(new Date()).toISOString()));
  }, 15_000);

  it('refuses a start time already past before anything is sent', async () => {
    const api = stubApi({
      '/task/detail': () => ok(task({ enabled: false })),
      '/plantemplate/list': () => templates,
      '/task/check': () => ok({ existed: false }),
    });
    renderInShell(permittedTree([TASKS, `${TASKS}/edit`]), `${TASKS}/edit?id=${ID}`);
    const user = userEvent.setup();
    const form = await screen.findByTestId('task-form');
    const start = within(form).getByTestId('field-starttime');
    await user.clear(start);
    await user.type(start, '2020-01-01 00:15:00{Enter}');
    await user.click(within(form).getByTestId('crud-save'));
    expect(await within(form).findByText('The start time must be later than now')).toBeTruthy();
    expect(api.callsTo('/plan/updateplan')).toHaveLength(0);
  }, 15_000);
});
